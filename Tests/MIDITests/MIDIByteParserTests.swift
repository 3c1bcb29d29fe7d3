import XCTest
import MIDI

/// The byte-stream parser against the MIDI 1.0 rules, one rule per test.
final class MIDIByteParserTests: XCTestCase {
    private func messages(_ items: [MIDIMessage]) -> [ParsedItem] { items.map { .message($0) } }

    // MARK: Running status

    func testRunningStatusRepeatsTheLastChannelStatus() {
        let bytes: [UInt8] = [0x90, 0x3C, 0x64, 0x40, 0x64, 0x43, 0x00, 0xC1, 0x05, 0x06, 0xE2, 0x00, 0x40, 0x7F, 0x7F]
        XCTAssertEqual(parseAll(bytes), messages([
            .noteOn(channel: 0, note: 0x3C, velocity: 0x64),
            .noteOn(channel: 0, note: 0x40, velocity: 0x64),
            .noteOn(channel: 0, note: 0x43, velocity: 0),
            .programChange(channel: 1, program: 5),
            .programChange(channel: 1, program: 6),
            .pitchBend(channel: 2, value: 8192),
            .pitchBend(channel: 2, value: 16383),
        ]))
    }

    func testRunningStatusSurvivesRealTimeBytes() {
        // FluidSynth's parser drops running status on a clock byte: this one must not.
        let bytes: [UInt8] = [0x90, 0x3C, 0x64, 0xF8, 0x3E, 0xFE, 0x64, 0xFA, 0x40, 0x64]
        XCTAssertEqual(parseAll(bytes), messages([
            .noteOn(channel: 0, note: 0x3C, velocity: 0x64),
            .timingClock,
            .activeSensing,
            .noteOn(channel: 0, note: 0x3E, velocity: 0x64),
            .start,
            .noteOn(channel: 0, note: 0x40, velocity: 0x64),
        ]))
    }

    func testSystemCommonMessagesCancelRunningStatus() {
        var parser = MIDIByteParser()
        let items = parseAll([0x90, 0x3C, 0x40, 0xF6, 0x3E, 0x40, 0x91, 0x3C, 0x40, 0xF1, 0x12, 0x3E, 0x40], with: &parser)
        XCTAssertEqual(items, messages([
            .noteOn(channel: 0, note: 0x3C, velocity: 0x40), .tuneRequest,
            .noteOn(channel: 1, note: 0x3C, velocity: 0x40), .timeCodeQuarterFrame(0x12),
        ]))
        XCTAssertEqual(parser.statistics.strayDataBytes, 4)
        XCTAssertNil(parser.runningStatus)
    }

    func testSysExCancelsRunningStatus() {
        var parser = MIDIByteParser()
        let items = parseAll([0x90, 0x3C, 0x40, 0xF0, 0x01, 0xF7, 0x3E, 0x40], with: &parser)
        XCTAssertEqual(items, [.message(.noteOn(channel: 0, note: 0x3C, velocity: 0x40)), .sysEx([0x01], endedWithEOX: true)])
        XCTAssertEqual(parser.statistics.strayDataBytes, 2)
    }

    func testSystemCommonMessagesWithData() {
        var parser = MIDIByteParser()
        let items = parseAll([0xF2, 0x01, 0x02, 0x03, 0xF3, 0x05, 0xF1, 0x7F], with: &parser)
        XCTAssertEqual(items, messages([.songPosition(0x0101), .songSelect(5), .timeCodeQuarterFrame(0x7F)]))
        XCTAssertEqual(parser.statistics.strayDataBytes, 1, "the 0x03 after song position has no status")
    }

    // MARK: Real-time bytes everywhere

    /// Every message type, alone and in a running-status pair, with each real-time
    /// byte (and each undefined one) inserted before every byte and at the end.
    func testRealTimeBytesInsertedAtEveryPositionOfEveryMessageType() {
        let longSysEx = (0..<150).map { UInt8($0 % 128) }
        let cases: [[ParsedItem]] = [
            [.message(.noteOff(channel: 3, note: 60, velocity: 40))],
            [.message(.noteOn(channel: 0, note: 60, velocity: 100))],
            [.message(.polyPressure(channel: 1, note: 61, pressure: 2))],
            [.message(.controlChange(channel: 2, controller: 64, value: 127))],
            [.message(.programChange(channel: 4, program: 9))],
            [.message(.channelPressure(channel: 5, pressure: 77))],
            [.message(.pitchBend(channel: 6, value: 12345))],
            [.message(.timeCodeQuarterFrame(0x23))],
            [.message(.songPosition(9999))],
            [.message(.songSelect(42))],
            [.message(.tuneRequest)],
            [.sysEx([], endedWithEOX: true)],
            [.sysEx([0x7E, 0x7F, 0x09, 0x01], endedWithEOX: true)],
            [.sysEx(longSysEx, endedWithEOX: true)],
            // Running status: the second message has no status byte.
            [.message(.noteOn(channel: 0, note: 60, velocity: 100)), .message(.noteOn(channel: 0, note: 62, velocity: 0))],
            [.message(.programChange(channel: 7, program: 1)), .message(.programChange(channel: 7, program: 2))],
            [.message(.pitchBend(channel: 1, value: 0)), .message(.pitchBend(channel: 1, value: 16383))],
        ]
        var checked = 0
        for items in cases {
            let (bytes, lastByteIndex) = serialize(items, runningStatus: true)
            XCTAssertEqual(parseAll(bytes), items, "uninterrupted \(items)")
            for position in 0...bytes.count {
                for realTime in realTimeBytes + undefinedRealTimeBytes {
                    var stream = bytes
                    stream.insert(realTime, at: position)
                    // The real-time message comes out before the first message not yet complete.
                    var expected = items
                    if let message = MIDIMessage(realTimeByte: realTime) {
                        let index = lastByteIndex.firstIndex { $0 >= position } ?? items.count
                        expected.insert(.message(message), at: index)
                    }
                    var parser = MIDIByteParser()
                    XCTAssertEqual(parseAll(stream, with: &parser), expected, "\(stream.map { String($0, radix: 16) })")
                    let undefined = undefinedRealTimeBytes.contains(realTime) ? 1 : 0
                    XCTAssertEqual(parser.statistics.undefinedStatusBytes, undefined)
                    XCTAssertEqual(parser.statistics.total, undefined, "nothing else skipped")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 1_000)
    }

    // MARK: SysEx

    func testSysExInterruptedByRealTimeBytes() {
        let bytes: [UInt8] = [0xF0, 0x7E, 0x7F, 0xF8, 0x09, 0x01, 0xFE, 0xFA, 0xF7]
        XCTAssertEqual(parseAll(bytes), [
            .message(.timingClock), .message(.activeSensing), .message(.start),
            .sysEx([0x7E, 0x7F, 0x09, 0x01], endedWithEOX: true),
        ])
    }

    func testLongSysExArrivesInBoundedChunksAroundRealTimeBytes() {
        var stream: [UInt8] = [0xF0]
        var payload: [UInt8] = []
        var clocks = 0
        for index in 0..<10_000 {
            let byte = UInt8(index * 7 % 128)
            stream.append(byte)
            payload.append(byte)
            if index % 13 == 0 { stream.append(0xF8); clocks += 1 }
        }
        stream.append(0xF7)
        var parser = MIDIByteParser()
        var chunkSizes: [Int] = []
        var received: [UInt8] = []
        var order: [String] = []
        parser.parse(stream) { output in
            switch output {
            case .sysExData(let chunk, _): chunkSizes.append(chunk.count); received.append(contentsOf: chunk)
            case .message(.timingClock): order.append("clock")
            case .message(.systemExclusive(let count, let eox)):
                XCTAssertEqual(count, 10_000)
                XCTAssertTrue(eox)
                order.append("end")
            case .message(let other): XCTFail("\(other)")
            }
        }
        XCTAssertEqual(received, payload)
        XCTAssertEqual(order.filter { $0 == "clock" }.count, clocks)
        XCTAssertEqual(order.last, "end")
        XCTAssertTrue(chunkSizes.dropLast().allSatisfy { $0 == MIDIByteParser.sysExChunkCapacity }, "full chunks, then the rest")
        XCTAssertEqual(chunkSizes.count, (10_000 + MIDIByteParser.sysExChunkCapacity - 1) / MIDIByteParser.sysExChunkCapacity)
    }

    func testSysExEndedByAnotherStatusByteIsDeliveredAsInterrupted() {
        var parser = MIDIByteParser()
        let items = parseAll([0xF0, 0x43, 0x10, 0x90, 0x3C, 0x40, 0x3E, 0x40], with: &parser)
        XCTAssertEqual(items, [
            .sysEx([0x43, 0x10], endedWithEOX: false),
            .message(.noteOn(channel: 0, note: 0x3C, velocity: 0x40)),
            .message(.noteOn(channel: 0, note: 0x3E, velocity: 0x40)),
        ])
        XCTAssertEqual(parser.statistics.interruptedSysEx, 1)
        // A new F0 also ends the previous SysEx.
        var second = MIDIByteParser()
        XCTAssertEqual(parseAll([0xF0, 0x01, 0xF0, 0x02, 0xF7], with: &second), [
            .sysEx([0x01], endedWithEOX: false), .sysEx([0x02], endedWithEOX: true),
        ])
        XCTAssertFalse(second.isReceivingSysEx)
    }

    // MARK: Stray and undefined bytes

    func testStrayDataBytesAreSkippedAndCounted() {
        var parser = MIDIByteParser()
        let items = parseAll([0x3C, 0x40, 0x00, 0x90, 0x3C, 0x40], with: &parser)
        XCTAssertEqual(items, messages([.noteOn(channel: 0, note: 0x3C, velocity: 0x40)]))
        XCTAssertEqual(parser.statistics.strayDataBytes, 3)
    }

    func testUndefinedSystemCommonBytesCancelRunningStatusAndTheMessageInProgress() {
        for undefined: UInt8 in [0xF4, 0xF5] {
            var parser = MIDIByteParser()
            let items = parseAll([0x90, 0x3C, 0x40, 0x3E, undefined, 0x40, 0x3E, 0x40, 0x80, 0x3C, 0x00], with: &parser)
            XCTAssertEqual(items, messages([.noteOn(channel: 0, note: 0x3C, velocity: 0x40), .noteOff(channel: 0, note: 0x3C, velocity: 0)]))
            XCTAssertEqual(parser.statistics.undefinedStatusBytes, 1)
            XCTAssertEqual(parser.statistics.incompleteMessages, 1, "the note on with only its key number")
            XCTAssertEqual(parser.statistics.strayDataBytes, 3)
        }
    }

    func testUndefinedRealTimeBytesAreIgnoredInPlace() {
        var parser = MIDIByteParser()
        let items = parseAll([0x90, 0xF9, 0x3C, 0xFD, 0x40, 0xF0, 0x01, 0xFD, 0x02, 0xF7], with: &parser)
        XCTAssertEqual(items, [.message(.noteOn(channel: 0, note: 0x3C, velocity: 0x40)), .sysEx([0x01, 0x02], endedWithEOX: true)])
        XCTAssertEqual(parser.statistics.undefinedStatusBytes, 3)
        XCTAssertEqual(parser.statistics.total, 3)
    }

    func testAStatusByteAbandonsAnIncompleteMessage() {
        var parser = MIDIByteParser()
        let items = parseAll([0x90, 0x3C, 0x80, 0x3C, 0x00, 0xB0, 0xC0, 0x01], with: &parser)
        XCTAssertEqual(items, messages([.noteOff(channel: 0, note: 0x3C, velocity: 0), .programChange(channel: 0, program: 1)]))
        XCTAssertEqual(parser.statistics.incompleteMessages, 2)
    }

    func testStrayEndOfExclusiveIsCountedAndCancelsRunningStatus() {
        var parser = MIDIByteParser()
        let items = parseAll([0x90, 0x3C, 0x40, 0xF7, 0x3C, 0x40], with: &parser)
        XCTAssertEqual(items, messages([.noteOn(channel: 0, note: 0x3C, velocity: 0x40)]))
        XCTAssertEqual(parser.statistics.strayEndOfExclusiveBytes, 1)
        XCTAssertEqual(parser.statistics.strayDataBytes, 2)
    }

    func testResetForgetsTheMessageInProgress() {
        var parser = MIDIByteParser()
        _ = parseAll([0x90, 0x3C, 0xF0, 0x01], with: &parser)
        XCTAssertTrue(parser.isReceivingSysEx)
        parser.reset()
        XCTAssertFalse(parser.isReceivingSysEx)
        XCTAssertEqual(parseAll([0x40, 0x90, 0x3C, 0x40], with: &parser), messages([.noteOn(channel: 0, note: 0x3C, velocity: 0x40)]))
    }

    func testSystemResetByteDoesNotDisturbTheMessageInProgress() {
        XCTAssertEqual(parseAll([0xB0, 0x07, 0xFF, 0x64]), messages([.systemReset, .controlChange(channel: 0, controller: 7, value: 100)]))
    }
}
