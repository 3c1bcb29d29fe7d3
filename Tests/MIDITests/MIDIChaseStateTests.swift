#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import MIDI
import XCTest

/// The state a seek sends: what the song set by then, in an order receivers
/// need, and defaults for what it sets only later.
final class MIDIChaseStateTests: XCTestCase {
    private func messages(_ state: MIDIChaseState) -> [MIDIMessage] {
        var out: [MIDIMessage] = []
        let count = state.forEachMessage { out.append($0) }
        XCTAssertEqual(count, out.count)
        XCTAssertEqual(state.messageCount, out.count)
        return out
    }

    private func cc(_ channel: UInt8, _ controller: UInt8, _ value: UInt8) -> MIDIMessage {
        .controlChange(channel: channel, controller: controller, value: value)
    }

    func testTheLastValueOfEachKeptControllerIsSentInOrder() {
        var state = MIDIChaseState()
        for message: MIDIMessage in [
            .programChange(channel: 2, program: 5), cc(2, 7, 30), cc(2, 7, 90), cc(2, 10, 20),
            .pitchBend(channel: 2, value: 100), .pitchBend(channel: 2, value: 9000),
            cc(2, 0, 1), cc(2, 32, 2), .programChange(channel: 2, program: 48),
            cc(2, 11, 70), cc(2, 91, 60), cc(2, 93, 10), cc(2, 1, 33), cc(2, 64, 127),
            cc(2, 74, 50),  // brightness: not kept
            .noteOn(channel: 2, note: 60, velocity: 100), .channelPressure(channel: 2, pressure: 9),
            cc(0, 7, 50),
        ] { state.observe(message) }
        XCTAssertEqual(messages(state), [
            cc(0, 7, 50),
            cc(2, 0, 1), cc(2, 32, 2), .programChange(channel: 2, program: 48),
            cc(2, 1, 33), cc(2, 7, 90), cc(2, 10, 20), cc(2, 11, 70), cc(2, 91, 60), cc(2, 93, 10),
            .pitchBend(channel: 2, value: 9000), cc(2, 64, 127),
        ])
    }

    func testAPedalThatIsUpSendsNothing() {
        var state = MIDIChaseState()
        state.observe(cc(0, 64, 127))
        state.observe(cc(0, 64, 0))
        XCTAssertEqual(messages(state), [])
    }

    /// RPN 0 through data entry is the bend range; an NRPN's data entry is not.
    /// After the range, the parameter the song had selected is selected again.
    func testThePitchBendRangeFollowsRPNZero() {
        var state = MIDIChaseState()
        for message in [cc(0, 101, 0), cc(0, 100, 0), cc(0, 6, 12), cc(0, 38, 50), cc(0, 101, 127), cc(0, 100, 127),
                        cc(1, 99, 0), cc(1, 98, 0), cc(1, 6, 24)] {
            state.observe(message)
        }
        XCTAssertEqual(messages(state), [
            cc(0, 101, 0), cc(0, 100, 0), cc(0, 6, 12), cc(0, 38, 50), cc(0, 101, 127), cc(0, 100, 127),
            cc(1, 99, 0), cc(1, 98, 0),
        ])
    }

    /// Reset All Controllers puts back what RP-015 says it resets.
    func testResetAllControllersResetsBendModulationExpressionAndPedal() {
        var state = MIDIChaseState()
        for message in [cc(3, 64, 127), cc(3, 11, 20), cc(3, 1, 90), cc(3, 7, 80), cc(3, 121, 0)] { state.observe(message) }
        state.observe(.pitchBend(channel: 3, value: 0))
        state.observe(cc(3, 121, 0))
        XCTAssertEqual(messages(state), [
            cc(3, 1, 0), cc(3, 7, 80), cc(3, 11, 127), cc(3, 101, 127), cc(3, 100, 127), .pitchBend(channel: 3, value: 8192),
        ])
    }

    /// Before the song's first volume change, a seek sends General MIDI's
    /// volume, so going back undoes it; what the song never sets stays alone.
    func testDefaultsForWhatTheSongSetsLater() {
        var whole = MIDIChaseState()
        for message in [cc(0, 7, 40), cc(0, 91, 100), .programChange(channel: 0, program: 3), cc(0, 101, 0), cc(0, 100, 0), cc(0, 6, 7),
                        .pitchBend(channel: 0, value: 0), cc(5, 64, 127), cc(5, 10, 0)] {
            whole.observe(message)
        }
        var early = MIDIChaseState()
        early.observe(cc(5, 10, 0))
        XCTAssertEqual(messages(early.withDefaults(forWhatIsSetIn: whole)), [
            .programChange(channel: 0, program: 0), cc(0, 7, 100), cc(0, 91, 40),
            cc(0, 101, 0), cc(0, 100, 0), cc(0, 6, 2), cc(0, 38, 0), cc(0, 101, 127), cc(0, 100, 127),
            .pitchBend(channel: 0, value: 8192),
            cc(5, 10, 0),
        ])
    }

    /// The audio thread turns a chase into messages: no heap work.
    func testSendingAChaseAllocatesNothing() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        var state = MIDIChaseState()
        for channel in 0..<16 {
            for controller: UInt8 in [0, 32, 1, 7, 10, 11, 64, 91, 93] { state.observe(cc(UInt8(channel), controller, 100)) }
            state.observe(.programChange(channel: UInt8(channel), program: 9))
            state.observe(.pitchBend(channel: UInt8(channel), value: 1))
            for message in [cc(UInt8(channel), 101, 0), cc(UInt8(channel), 100, 0), cc(UInt8(channel), 6, 5)] { state.observe(message) }
        }
        var sum = 0
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        let count = state.forEachMessage { sum &+= Int($0.statusByte) }
        busker_allocation_counting_end()
        XCTAssertEqual(count, 16 * 17)
        XCTAssertGreaterThan(sum, 0)
        XCTAssertEqual(busker_allocation_count(), 0)
        XCTAssertEqual(busker_free_count(), 0)
        // Negative control: the counter sees an allocation here.
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        chaseAllocationSink = malloc(16)
        busker_allocation_counting_end()
        free(chaseAllocationSink)
        XCTAssertEqual(busker_allocation_count(), 1)
    }
}

/// Where the negative control's allocation goes, so the optimizer keeps it.
nonisolated(unsafe) var chaseAllocationSink: UnsafeMutableRawPointer?
