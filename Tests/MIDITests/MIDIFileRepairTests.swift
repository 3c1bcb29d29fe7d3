import XCTest
import MIDI

/// Forgiving reading: each kind of damage found in files in the wild, made here
/// from a valid file, gives back every note the valid file has, at its tick,
/// and a repair saying what was skipped and where; the strict reader refuses
/// the same bytes. Only data that is not a MIDI file is refused.
final class MIDIFileRepairTests: XCTestCase {
    /// Four notes, one with running status, a program change, a text event and
    /// a tempo: what the damaged copies must still play.
    private let events: [(Int, [UInt8])] = [
        (0, tempoEvent(500_000)), (0, [0xC0, 0x05]), (0, [0x90, 0x3C, 0x64]), (96, [0x80, 0x3C, 0x00]),
        (0, textEvent(0x01, "verse")), (0, [0x90, 0x40, 0x64]), (96, [0x40, 0x00]),
        (0, [0x90, 0x43, 0x64]), (96, [0x80, 0x43, 0x00]), (0, endOfTrack),
    ]

    private var valid: [UInt8] { header(format: 0, trackCount: 1, division: 96) + track(events) }

    /// The channel messages with their ticks: what a player plays.
    private func notes(_ file: StandardMIDIFile) -> [String] {
        file.mergedEvents().compactMap { event in
            if case .message(let message) = event.kind { return "\(event.tick) \(message)" }
            return nil
        }
    }

    /// Reads `bytes` forgivingly and checks what every repaired file must show:
    /// the valid file's notes, the expected repair kinds, one summary line; and
    /// that the strict reader refuses the bytes (unless `strictReads`).
    @discardableResult
    private func repaired(_ bytes: [UInt8], kinds: [MIDIFileRepair.Kind], strictReads: Bool = false,
                          file: StaticString = #filePath, line: UInt = #line) throws -> StandardMIDIFile {
        let read = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(notes(read), notes(try StandardMIDIFile(bytes: valid, mode: .strict)), "every note recovered", file: file, line: line)
        XCTAssertEqual(read.repairs.map(\.kind), kinds, file: file, line: line)
        let summary = try XCTUnwrap(read.repairSummary, file: file, line: line)
        XCTAssertTrue(summary.hasPrefix("recovered from damage: "), summary, file: file, line: line)
        XCTAssertFalse(summary.contains("\n"), "one line", file: file, line: line)
        if !strictReads {
            XCTAssertThrowsError(try StandardMIDIFile(bytes: bytes, mode: .strict), file: file, line: line)
        }
        return read
    }

    func testAValidFileNeedsNoRepair() throws {
        let read = try StandardMIDIFile(bytes: valid)
        XCTAssertEqual(read, try StandardMIDIFile(bytes: valid, mode: .strict))
        XCTAssertEqual(read.repairs, [])
        XCTAssertNil(read.repairSummary)
        XCTAssertEqual(notes(read).count, 7)
    }

    func testStrayRealTimeAndSystemCommonEventsAreSkipped() throws {
        // Clock, active sensing and song position stored as events of their own, with delta times.
        var damaged = events
        damaged.insert((0, [0xF8]), at: 3)
        damaged.insert((0, [0xF2, 0x10, 0x20]), at: 5)
        damaged.insert((0, [0xFE]), at: 8)
        let bytes = header(format: 0, trackCount: 1, division: 96) + track(damaged)
        let read = try repaired(bytes, kinds: [.strayStatusBytes])
        XCTAssertEqual(read.repairs[0], MIDIFileRepair(kind: .strayStatusBytes, track: 0, offset: bytes.firstIndex(of: 0xF8)!, count: 3, byteCount: 5))
        XCTAssertEqual(read.repairSummary, "recovered from damage: 3 stray status bytes skipped in track 1 (first at byte \(bytes.firstIndex(of: 0xF8)!), 5 bytes)")
    }

    func testStrayBytesSlippedInsideAndBeforeEventsAreSkipped() throws {
        // No delta time of their own: between a delta time and its event (F4, F9), and inside a note's data (FA).
        var damaged = events
        damaged[2].1 = [0xF4] + damaged[2].1
        damaged[5].1 = [0x90, 0x40, 0xFA, 0x64]
        damaged[7].1 = [0xF9] + damaged[7].1
        let read = try repaired(header(format: 0, trackCount: 1, division: 96) + track(damaged), kinds: [.strayStatusBytes])
        XCTAssertEqual(read.repairs[0].count, 3)
    }

    func testRunningStatusAcrossAMetaOrSysExEventIsKept() throws {
        // The notes after a text event and after a SysEx lose their status bytes.
        func song(statusAfterMetaAndSysEx status: [UInt8]) -> [UInt8] {
            header(format: 0, trackCount: 1, division: 96) + track([
                (0, [0x90, 0x3C, 0x64]), (0, textEvent(0x01, "verse")), (96, status + [0x3E, 0x64]),
                (0, [0xF0, 0x01, 0xF7]), (96, status + [0x40, 0x64]), (96, endOfTrack),
            ])
        }
        let bytes = song(statusAfterMetaAndSysEx: [])
        let read = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(notes(read), notes(try StandardMIDIFile(bytes: song(statusAfterMetaAndSysEx: [0x90]), mode: .strict)))
        XCTAssertEqual(notes(read).count, 3)
        XCTAssertEqual(read.repairs, [MIDIFileRepair(kind: .runningStatusAfterMetaOrSysEx, track: 0, offset: bytes.firstIndex(of: 0x3E)!,
                                                     count: 2, byteCount: 0)], "nothing skipped")
        XCTAssertEqual(read.repairSummary, "recovered from damage: running status carried across a meta or SysEx event 2 times in track 1 (first at byte \(bytes.firstIndex(of: 0x3E)!))")
        XCTAssertThrowsError(try StandardMIDIFile(bytes: bytes, mode: .strict))
    }

    func testALastChunkOneByteShortKeepsItsEndOfTrack() throws {
        let bytes = Array(valid.dropLast())
        let read = try repaired(bytes, kinds: [.truncatedTrack])
        XCTAssertEqual(read.repairs[0], MIDIFileRepair(kind: .truncatedTrack, track: 0, offset: bytes.count, byteCount: 1))
        XCTAssertEqual(read.endTick, try StandardMIDIFile(bytes: valid).endTick, "the song keeps its length")
        XCTAssertEqual(read.repairSummary, "recovered from damage: track 1 ends 1 byte short (the file ends at byte \(bytes.count))")
    }

    func testATrackLengthBeyondTheFileReadsToTheEnd() throws {
        var bytes = valid
        bytes.replaceSubrange(18..<22, with: be32(0x7FFF_FFFF))
        let read = try repaired(bytes, kinds: [.truncatedTrack])
        XCTAssertEqual(read.repairs[0].byteCount, 0x7FFF_FFFF - (bytes.count - 22))
    }

    func testAFormat0HeaderWithTwoTracksIsReadAsFormat1() throws {
        let bytes = header(format: 0, trackCount: 2, division: 96)
            + track(Array(events[0..<5]) + [(0, endOfTrack)]) + track([(96, events[5].1)] + Array(events[6...]))
        let read = try repaired(bytes, kinds: [.formatReadAsOne(announced: 0)])
        XCTAssertEqual(read.format, .simultaneousTracks)
        XCTAssertEqual(read.tracks.count, 2)
        XCTAssertEqual(read.repairSummary, "recovered from damage: format 0 header with 2 tracks read as format 1")
    }

    func testTrailingBytesAfterTheLastChunkAreIgnored() throws {
        let bytes = valid + [0x00, 0x00, 0x1A, 0xFF, 0x90]
        let read = try repaired(bytes, kinds: [.trailingBytes], strictReads: true)
        XCTAssertEqual(read.repairs[0], MIDIFileRepair(kind: .trailingBytes, track: nil, offset: valid.count, byteCount: 5))
        XCTAssertEqual(try StandardMIDIFile(bytes: bytes, mode: .strict).repairs, [], "strictly, what follows the announced tracks is not read")
    }

    func testAMissingEndOfTrackIsNoted() throws {
        let read = try repaired(header(format: 0, trackCount: 1, division: 96) + track(Array(events.dropLast())),
                                kinds: [.missingEndOfTrack], strictReads: true)
        XCTAssertEqual(read.repairSummary, "recovered from damage: track 1 has no end-of-track event")
    }

    func testATrackLengthThatLiesShortFindsTheNextTrackAgain() throws {
        // Two tracks; the first one's length says 3 bytes fewer: its End of Track is cut
        // off, and the next chunk header is found again past the 3 bytes.
        let first = track(Array(events[0..<5]) + [(0, endOfTrack)])
        var damagedFirst = first
        damagedFirst.replaceSubrange(4..<8, with: be32(first.count - 8 - 3))
        let second = track([(96, events[5].1)] + Array(events[6...]))
        let bytes = header(format: 1, trackCount: 2, division: 96) + damagedFirst + second
        let read = try repaired(bytes, kinds: [.cutOffEvent, .damagedChunkHeader])
        XCTAssertEqual(read.repairs[1].byteCount, 3)
        XCTAssertEqual(read.tracks.count, 2)
    }

    func testDataBytesWithNoStatusAreSkipped() throws {
        var damaged = events
        // Before any status byte: nothing to apply them to. The byte before the next
        // status byte is its delta time.
        damaged.insert((0, [0x11, 0x22]), at: 1)
        let read = try repaired(header(format: 0, trackCount: 1, division: 96) + track(damaged), kinds: [.strayDataBytes])
        XCTAssertEqual(read.repairs[0].count, 2)
    }

    func testAnUnreadableTrackKeepsItsEarlierEventsAndTheOtherTracks() throws {
        // A delta time of five bytes in the first track: its rest is lost, the second track plays.
        let bytes = header(format: 1, trackCount: 2, division: 96)
            + chunk("MTrk", [0x00, 0x90, 0x30, 0x40] + [0x80, 0x80, 0x80, 0x80, 0x00, 0x90, 0x31, 0x40] + [0x00] + endOfTrack)
            + track(events)
        let read = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(read.repairs.map(\.kind), [.unreadableTrackRest])
        XCTAssertEqual(read.tracks[0].events.count, 1)
        XCTAssertEqual(read.tracks[1], try StandardMIDIFile(bytes: valid).tracks[0])
    }

    func testWhatIsNotAMIDIFileIsStillRefused() {
        func refusal(_ bytes: [UInt8]) -> MIDIFileError? {
            do {
                _ = try StandardMIDIFile(bytes: bytes)
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(refusal([]), MIDIFileError(.notAStandardMIDIFile, offset: 0))
        XCTAssertEqual(refusal(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)), MIDIFileError(.notAStandardMIDIFile, offset: 0))
        XCTAssertEqual(refusal(Array(valid.dropFirst())), MIDIFileError(.notAStandardMIDIFile, offset: 0))
        XCTAssertEqual(refusal(Array(valid.prefix(10))), MIDIFileError(.truncated("the MThd header"), offset: 10))
        XCTAssertEqual(refusal(chunk("MThd", [0, 0, 0, 1]) + track(events)), MIDIFileError(.headerTooShort(length: 4), offset: 4))
        XCTAssertEqual(refusal(header(format: 0, trackCount: 1, division: 0) + track(events)), MIDIFileError(.invalidTimeDivision(0), offset: 12))
    }
}
