import XCTest
import MIDI

/// The message model against the MIDI 1.0 message table.
final class MIDIMessageTests: XCTestCase {
    func testBytesFollowTheMessageTable() {
        XCTAssertEqual(MIDIMessage.noteOff(channel: 0, note: 60, velocity: 64).bytes(), [0x80, 0x3C, 0x40])
        XCTAssertEqual(MIDIMessage.noteOn(channel: 9, note: 36, velocity: 127).bytes(), [0x99, 0x24, 0x7F])
        XCTAssertEqual(MIDIMessage.polyPressure(channel: 1, note: 60, pressure: 10).bytes(), [0xA1, 0x3C, 0x0A])
        XCTAssertEqual(MIDIMessage.controlChange(channel: 15, controller: 7, value: 100).bytes(), [0xBF, 0x07, 0x64])
        XCTAssertEqual(MIDIMessage.programChange(channel: 2, program: 5).bytes(), [0xC2, 0x05])
        XCTAssertEqual(MIDIMessage.channelPressure(channel: 3, pressure: 90).bytes(), [0xD3, 0x5A])
        // Pitch bend: LSB first, then MSB; 8192 (0x2000) is the centre.
        XCTAssertEqual(MIDIMessage.pitchBend(channel: 0, value: MIDIMessage.pitchBendCenter).bytes(), [0xE0, 0x00, 0x40])
        XCTAssertEqual(MIDIMessage.pitchBend(channel: 0, value: 16383).bytes(), [0xE0, 0x7F, 0x7F])
        XCTAssertEqual(MIDIMessage.pitchBend(channel: 0, value: 1).bytes(), [0xE0, 0x01, 0x00])
        XCTAssertEqual(MIDIMessage.timeCodeQuarterFrame(0x35).bytes(), [0xF1, 0x35])
        XCTAssertEqual(MIDIMessage.songPosition(0x0081).bytes(), [0xF2, 0x01, 0x01])
        XCTAssertEqual(MIDIMessage.songSelect(3).bytes(), [0xF3, 0x03])
        XCTAssertEqual(MIDIMessage.tuneRequest.bytes(), [0xF6])
        XCTAssertEqual(MIDIMessage.timingClock.bytes(), [0xF8])
        XCTAssertEqual(MIDIMessage.start.bytes(), [0xFA])
        XCTAssertEqual(MIDIMessage.continue.bytes(), [0xFB])
        XCTAssertEqual(MIDIMessage.stop.bytes(), [0xFC])
        XCTAssertEqual(MIDIMessage.activeSensing.bytes(), [0xFE])
        XCTAssertEqual(MIDIMessage.systemReset.bytes(), [0xFF])
        XCTAssertEqual(MIDIMessage.systemExclusive(byteCount: 3, endedWithEOX: true).bytes(), [])
    }

    func testOutOfRangeFieldsAreMaskedWhenSerialized() {
        XCTAssertEqual(MIDIMessage.noteOn(channel: 0x13, note: 0xBC, velocity: 0xFF).bytes(), [0x93, 0x3C, 0x7F])
    }

    func testDataByteCountsPerStatus() {
        for status in UInt8(0x80)...0xBF { XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: status), 2) }
        for status in UInt8(0xC0)...0xDF { XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: status), 1) }
        for status in UInt8(0xE0)...0xEF { XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: status), 2) }
        XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: 0xF1), 1)
        XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: 0xF2), 2)
        XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: 0xF3), 1)
        XCTAssertEqual(MIDIMessage.dataByteCount(forStatus: 0xF6), 0)
        for status: UInt8 in [0x00, 0x7F, 0xF0, 0xF4, 0xF5, 0xF7, 0xF9, 0xFD] {
            XCTAssertNil(MIDIMessage.dataByteCount(forStatus: status), "\(status)")
        }
    }

    func testClassification() {
        XCTAssertEqual(MIDIMessage.noteOn(channel: 4, note: 1, velocity: 1).channel, 4)
        XCTAssertNil(MIDIMessage.timingClock.channel)
        XCTAssertTrue(MIDIMessage.activeSensing.isRealTime)
        XCTAssertFalse(MIDIMessage.tuneRequest.isRealTime)
        XCTAssertTrue(MIDIMessage.tuneRequest.isSystemCommon)
        XCTAssertTrue(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 0).isNoteOff)
        XCTAssertFalse(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 1).isNoteOff)
        XCTAssertTrue(MIDIMessage.noteOff(channel: 0, note: 60, velocity: 64).isNoteOff)
        XCTAssertNil(MIDIMessage(realTimeByte: 0xF9))
        XCTAssertNil(MIDIMessage(realTimeByte: 0xFD))
    }

    func testChannelModeMessagesAreControlChanges120To127() {
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 120, value: 0).isAllSoundOff)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 121, value: 0).isResetAllControllers)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 122, value: 127).isLocalControl)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 5, controller: 123, value: 0).isAllNotesOff)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 124, value: 0).isOmniOff)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 125, value: 0).isOmniOn)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 126, value: 4).isMonoOn)
        XCTAssertTrue(MIDIMessage.controlChange(channel: 0, controller: 127, value: 0).isPolyOn)
        XCTAssertFalse(MIDIMessage.controlChange(channel: 0, controller: 119, value: 0).isAllNotesOff)
        XCTAssertNil(MIDIMessage.controlChange(channel: 0, controller: 7, value: 0).channelMode)
        XCTAssertNil(MIDIMessage.noteOn(channel: 0, note: 123, velocity: 0).channelMode)
        XCTAssertEqual(MIDIMessage.controlChange(channel: 0, controller: 122, value: 0).channelMode, .localControl(isOn: false))
        XCTAssertEqual(MIDIMessage.controlChange(channel: 0, controller: 126, value: 4).channelMode, .monoOn(channelCount: 4))
        XCTAssertEqual(MIDIMessage.channelMode(.allNotesOff, channel: 9).bytes(), [0xB9, 0x7B, 0x00])
        XCTAssertEqual(MIDIMessage.channelMode(.localControl(isOn: true), channel: 0).bytes(), [0xB0, 0x7A, 0x7F])
        // Per MIDI 1.0, Omni/Mono/Poly also end all notes; Local Control does not.
        XCTAssertTrue(MIDIChannelMode.polyOn.endsAllNotes)
        XCTAssertTrue(MIDIChannelMode.monoOn(channelCount: 0).endsAllNotes)
        XCTAssertFalse(MIDIChannelMode.localControl(isOn: false).endsAllNotes)
        XCTAssertFalse(MIDIChannelMode.resetAllControllers.endsAllNotes)
    }

    func testEncoderRunningStatus() {
        var encoder = MIDIByteEncoder(usesRunningStatus: true)
        var bytes: [UInt8] = []
        encoder.append(.noteOn(channel: 0, note: 60, velocity: 100), to: &bytes)
        encoder.append(.timingClock, to: &bytes)  // real-time: running status stays
        encoder.append(.noteOn(channel: 0, note: 64, velocity: 100), to: &bytes)
        encoder.append(.noteOn(channel: 1, note: 64, velocity: 100), to: &bytes)
        encoder.append(.songSelect(1), to: &bytes)  // system common: cancels it
        encoder.append(.noteOn(channel: 1, note: 67, velocity: 0), to: &bytes)
        encoder.appendSysEx([0x7E], to: &bytes)  // SysEx: cancels it
        encoder.append(.noteOn(channel: 1, note: 67, velocity: 0), to: &bytes)
        XCTAssertEqual(bytes, [0x90, 60, 100, 0xF8, 64, 100, 0x91, 64, 100, 0xF3, 1, 0x91, 67, 0, 0xF0, 0x7E, 0xF7, 0x91, 67, 0])
    }

    func testMessagesAreTriviallyCopyable() {
        // No references inside: safe to copy into a preallocated queue for the audio thread.
        XCTAssertTrue(_isPOD(MIDIMessage.self))
        XCTAssertTrue(_isPOD(MIDIByteParser.self))
        XCTAssertLessThanOrEqual(MemoryLayout<MIDIMessage>.size, 16)
    }

    /// The examples table of the SMF specification.
    func testVariableLengthQuantitiesFromTheSpecification() {
        let table: [(UInt32, [UInt8])] = [
            (0x00, [0x00]), (0x40, [0x40]), (0x7F, [0x7F]),
            (0x80, [0x81, 0x00]), (0x2000, [0xC0, 0x00]), (0x3FFF, [0xFF, 0x7F]),
            (0x4000, [0x81, 0x80, 0x00]), (0x10_0000, [0xC0, 0x80, 0x00]), (0x1F_FFFF, [0xFF, 0xFF, 0x7F]),
            (0x20_0000, [0x81, 0x80, 0x80, 0x00]), (0x800_0000, [0xC0, 0x80, 0x80, 0x00]), (0xFFF_FFFF, [0xFF, 0xFF, 0xFF, 0x7F]),
        ]
        for (value, bytes) in table {
            XCTAssertEqual(VariableLengthQuantity.encode(value), bytes, "\(value)")
            XCTAssertEqual(VariableLengthQuantity.decode(bytes + [0x55])?.value, value)
            XCTAssertEqual(VariableLengthQuantity.decode(bytes)?.byteCount, bytes.count)
        }
        XCTAssertNil(VariableLengthQuantity.decode([0x81, 0x80, 0x80, 0x80, 0x00]), "5 bytes")
        XCTAssertNil(VariableLengthQuantity.decode([0x81, 0x80]), "truncated")
    }
}
