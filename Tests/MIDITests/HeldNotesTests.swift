import MIDI
import XCTest

final class HeldNotesTests: XCTestCase {
    func testNoteOnsAndOffsIncludingVelocityZero() {
        let held = HeldNotes()
        held.observe(.noteOn(channel: 0, note: 60, velocity: 100), at: 10)
        held.observe(.noteOn(channel: 3, note: 61, velocity: 1), at: 20)
        held.observe(.noteOn(channel: 0, note: 60, velocity: 90), at: 30)  // retrigger: still one note
        XCTAssertEqual(held.count, 2)
        // The retrigger restarted note 60's clock: a watchdog cutoff at 25 ends only note 61.
        var early: [MIDIMessage] = []
        let probe = HeldNotes()
        for (message, frame) in [(MIDIMessage.noteOn(channel: 0, note: 60, velocity: 100), Int64(10)),
                                 (.noteOn(channel: 3, note: 61, velocity: 1), 20), (.noteOn(channel: 0, note: 60, velocity: 90), 30)] {
            probe.observe(message, at: frame)
        }
        probe.releaseNotes(startedBefore: 25) { early.append($0) }
        XCTAssertEqual(early, [.noteOff(channel: 3, note: 61, velocity: 0)])
        held.observe(.noteOn(channel: 0, note: 60, velocity: 0), at: 40)
        XCTAssertFalse(held.isHeld(channel: 0, note: 60))
        held.observe(.noteOff(channel: 3, note: 61, velocity: 64), at: 50)
        held.observe(.noteOff(channel: 3, note: 61, velocity: 64), at: 51)  // a second off changes nothing
        XCTAssertEqual(held.count, 0)
    }

    func testReleaseAllEmitsNoteOffsAndLiftsPedalsThenForgets() {
        let held = HeldNotes()
        held.observe(.noteOn(channel: 1, note: 40, velocity: 100), at: 0)
        held.observe(.noteOn(channel: 9, note: 36, velocity: 100), at: 0)
        held.observe(.controlChange(channel: 1, controller: 64, value: 127), at: 0)
        held.observe(.controlChange(channel: 2, controller: 64, value: 64), at: 0)
        held.observe(.controlChange(channel: 2, controller: 64, value: 63), at: 0)  // lifted again
        var emitted: [MIDIMessage] = []
        XCTAssertEqual(held.releaseAll { emitted.append($0) }, 3)
        XCTAssertEqual(emitted, [
            .noteOff(channel: 1, note: 40, velocity: 0), .noteOff(channel: 9, note: 36, velocity: 0),
            .controlChange(channel: 1, controller: 64, value: 0),
        ])
        emitted.removeAll()
        XCTAssertEqual(held.releaseAll { emitted.append($0) }, 0)
        XCTAssertEqual(emitted, [])
    }

    func testChannelModeMessagesAndResetClearWhatTheyCover() {
        let held = HeldNotes()
        for note: UInt8 in [60, 62] { held.observe(.noteOn(channel: 0, note: note, velocity: 1), at: 0) }
        held.observe(.noteOn(channel: 1, note: 60, velocity: 1), at: 0)
        held.observe(.controlChange(channel: 0, controller: 123, value: 0), at: 5)
        XCTAssertEqual(held.count, 1)
        XCTAssertTrue(held.isHeld(channel: 1, note: 60))
        held.observe(.controlChange(channel: 1, controller: 64, value: 127), at: 5)
        held.observe(.controlChange(channel: 1, controller: 121, value: 0), at: 5)
        XCTAssertEqual(held.sustainedChannels, 0)
        held.observe(.systemReset, at: 6)
        XCTAssertEqual(held.count, 0)
    }

    func testWatchdogReleasesOnlyNotesStartedBeforeTheCutoff() {
        let held = HeldNotes()
        held.observe(.noteOn(channel: 0, note: 1, velocity: 1), at: 100)
        held.observe(.noteOn(channel: 0, note: 2, velocity: 1), at: 200)
        var emitted: [MIDIMessage] = []
        XCTAssertEqual(held.releaseNotes(startedBefore: 200) { emitted.append($0) }, 1)
        XCTAssertEqual(emitted, [.noteOff(channel: 0, note: 1, velocity: 0)])
        XCTAssertEqual(held.count, 1)
        XCTAssertTrue(held.isHeld(channel: 0, note: 2))
    }

    func testWatchdogLiftsAPedalHeldSinceBeforeTheCutoff() {
        let held = HeldNotes()
        held.observe(.controlChange(channel: 2, controller: 64, value: 127), at: 100)
        held.observe(.controlChange(channel: 2, controller: 64, value: 120), at: 300)  // still down: the clock keeps its start
        held.observe(.controlChange(channel: 5, controller: 64, value: 127), at: 400)
        var emitted: [MIDIMessage] = []
        XCTAssertEqual(held.releaseNotes(startedBefore: 350) { emitted.append($0) }, 1)
        XCTAssertEqual(emitted, [.controlChange(channel: 2, controller: 64, value: 0)])
        XCTAssertEqual(held.sustainedChannels, 1 << 5)
    }
}
