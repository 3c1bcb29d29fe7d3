import XCTest
import MIDI

/// Corrupt, truncated and non-MIDI input read strictly: a one-line error naming
/// the byte offset, never a crash. (Forgiving reading of the same damage is in
/// `MIDIFileRepairTests`.)
final class MIDIFileErrorTests: XCTestCase {
    private let validHeader = header(format: 0, trackCount: 1, division: 96)

    private func error(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> MIDIFileError? {
        do {
            _ = try StandardMIDIFile(bytes: bytes, mode: .strict)
            XCTFail("expected an error", file: file, line: line)
            return nil
        } catch {
            XCTAssertFalse(error.description.contains("\n"), "one line", file: file, line: line)
            return error
        }
    }

    func testNotAMIDIFile() {
        XCTAssertEqual(error(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)), MIDIFileError(.notAStandardMIDIFile, offset: 0))
        XCTAssertEqual(error([]), MIDIFileError(.notAStandardMIDIFile, offset: 0))
        XCTAssertEqual(error(Array("MTh".utf8)), MIDIFileError(.truncated("the MThd header"), offset: 3))
        XCTAssertEqual(error(Array("MThd".utf8) + [0, 0, 0, 6, 0]), MIDIFileError(.truncated("the MThd header"), offset: 9))
        XCTAssertEqual(error(Array("RIFF".utf8))?.description, "MIDI file: byte 0: not a Standard MIDI File (no \"MThd\" header)")
    }

    func testHeaderFields() {
        XCTAssertEqual(error(chunk("MThd", [0, 0, 0, 1]) + [0, 0, 0, 0]), MIDIFileError(.headerTooShort(length: 4), offset: 4))
        XCTAssertEqual(error(header(format: 3, trackCount: 1, division: 96)), MIDIFileError(.unsupportedFormat(3), offset: 8))
        XCTAssertEqual(error(header(format: 0, trackCount: 2, division: 96)), MIDIFileError(.invalidTrackCount(format: 0, count: 2), offset: 10))
        XCTAssertEqual(error(header(format: 1, trackCount: 1, division: 0)), MIDIFileError(.invalidTimeDivision(0), offset: 12))
        XCTAssertEqual(error(header(format: 1, trackCount: 1, division: 0xE900 | 4)), MIDIFileError(.invalidTimeDivision(0xE904), offset: 12), "−23 fps")
        XCTAssertEqual(error(header(format: 1, trackCount: 1, division: 0xE700)), MIDIFileError(.invalidTimeDivision(0xE700), offset: 12), "0 ticks per frame")
        let lyingHeader = Array("MThd".utf8) + be32(1_000) + be16(0) + be16(1) + be16(96)
        XCTAssertEqual(error(lyingHeader), MIDIFileError(.chunkLengthPastEnd(chunkType: "MThd", length: 1_000, available: 6), offset: 4))
    }

    func testAChunkLengthBeyondTheEndIsAnErrorNotAnAllocation() {
        let bytes = validHeader + Array("MTrk".utf8) + be32(0xFFFF_FFF0) + [0x00, 0xFF, 0x2F, 0x00]
        let failure = error(bytes)
        XCTAssertEqual(failure, MIDIFileError(.chunkLengthPastEnd(chunkType: "MTrk", length: 0xFFFF_FFF0, available: 4), offset: 18))
        XCTAssertEqual(failure?.description, "MIDI file: byte 18: MTrk chunk claims 4294967280 bytes but only 4 remain")
    }

    func testMissingAndTruncatedTracks() {
        let oneTrack = track([(0, endOfTrack)])
        XCTAssertEqual(error(header(format: 1, trackCount: 2, division: 96) + oneTrack),
                       MIDIFileError(.missingTracks(expected: 2, found: 1), offset: 14 + oneTrack.count))
        XCTAssertEqual(error(validHeader + Array("MTrk".utf8) + [0, 0]), MIDIFileError(.truncated("a chunk header"), offset: 20))
        XCTAssertEqual(error(validHeader + [0x4D, 0x00, 0x72, 0x6B] + be32(0)), MIDIFileError(.invalidChunkType, offset: 14))
    }

    func testEventsThatRunPastTheirTrack() {
        // Offsets: the header is 14 bytes, the MTrk chunk header 8, so track data starts at 22.
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0x90, 0x3C])), MIDIFileError(.eventPastEndOfTrack, offset: 25))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x60])), MIDIFileError(.eventPastEndOfTrack, offset: 23), "a delta time with no event")
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x81])), MIDIFileError(.eventPastEndOfTrack, offset: 23), "a truncated delta time")
        // A meta event whose length lies: the error names the length field.
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0xFF, 0x01, 0x7F, 0x61, 0x62])), MIDIFileError(.eventPastEndOfTrack, offset: 25))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0xF0, 0x8F, 0xFF, 0xFF, 0x7F, 0x01])), MIDIFileError(.eventPastEndOfTrack, offset: 24))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0xFF])), MIDIFileError(.eventPastEndOfTrack, offset: 24))
    }

    func testBadEventBytes() {
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x90])), MIDIFileError(.variableLengthQuantityTooLong, offset: 22))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0x3C, 0x40])), MIDIFileError(.dataByteWithoutRunningStatus(0x3C), offset: 23))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0xF8])), MIDIFileError(.unexpectedStatusByte(0xF8), offset: 23))
        XCTAssertEqual(error(validHeader + chunk("MTrk", [0x00, 0x90, 0x3C, 0x80])), MIDIFileError(.unexpectedStatusByte(0x80), offset: 25))
    }

    func testMetaAndSysExEventsCancelRunningStatus() {
        let afterMeta = validHeader + chunk("MTrk", [0x00, 0x90, 0x3C, 0x40, 0x00, 0xFF, 0x01, 0x00, 0x00, 0x3E, 0x40])
        XCTAssertEqual(error(afterMeta), MIDIFileError(.dataByteWithoutRunningStatus(0x3E), offset: 31))
        let afterSysEx = validHeader + chunk("MTrk", [0x00, 0x90, 0x3C, 0x40, 0x00, 0xF0, 0x01, 0xF7, 0x00, 0x3E, 0x40])
        XCTAssertEqual(error(afterSysEx), MIDIFileError(.dataByteWithoutRunningStatus(0x3E), offset: 31))
        XCTAssertTrue(error(afterSysEx)!.description.contains("byte 31: data byte 0x3E without a status byte"))
    }

    func testErrorsFromAPathNameThePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("busker-corrupt-\(getpid()).mid").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = validHeader + Array("MTrk".utf8) + be32(100) + [0x00, 0xFF, 0x2F, 0x00]
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        do {
            _ = try StandardMIDIFile(contentsOfFile: path, mode: .strict)
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.offset, 18)
            XCTAssertEqual(error.description, "\(path): byte 18: MTrk chunk claims 100 bytes but only 4 remain")
        }
        do {
            _ = try StandardMIDIFile(contentsOfFile: path + ".missing")
            XCTFail("expected an error")
        } catch {
            XCTAssertNil(error.offset)
            XCTAssertEqual(error.description, "\(path).missing: cannot read: No such file or directory")
        }
    }
}
