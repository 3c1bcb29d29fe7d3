import Control
import MIDI
import XCTest

/// Learn mode's states: off → choosing a control → waiting for MIDI → bound
/// (off again), Escape from any of them.
final class MIDILearnTests: XCTestCase {
    func testAKnobIsBoundToTheChosenControl() {
        var learn = MIDILearn()
        var map = MIDIControlMap.defaults
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 20, value: 3), map: &map), .notTaken, "off: nothing taken")
        learn.start()
        XCTAssertEqual(learn.state, .choosingControl)
        XCTAssertEqual(learn.prompt, "learn: press the key of the control to bind (Esc cancels)")
        // Messages before a control is chosen still drive their controls.
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 20, value: 3), map: &map), .notTaken)
        learn.choose(.volume)
        XCTAssertEqual(learn.state, .waitingForMIDI(.volume))
        learn.choose(.reverb(strip: 2))  // changed my mind: another key
        XCTAssertEqual(learn.state, .waitingForMIDI(.reverb(strip: 2)))
        XCTAssertEqual(learn.prompt, "learn strip 2 reverb: move a knob or pedal (Esc cancels)")
        XCTAssertEqual(learn.receive(.pitchBend(channel: 0, value: 100), map: &map), .notTaken)
        XCTAssertEqual(learn.receive(.controlChange(channel: 3, controller: 21, value: 40), map: &map), .bound(.cc(21), .reverb(strip: 2)))
        XCTAssertEqual(learn.state, .off)
        XCTAssertEqual(learn.prompt, "learn: CC 21 → strip 2 reverb")
        XCTAssertEqual(map.bindings[.cc(21)], .reverb(strip: 2))
        XCTAssertEqual(map.bindings.count, 4, "the defaults stay")
    }

    func testAPadIsBoundToAToggleAndRefusedForAKnobsControl() {
        var learn = MIDILearn()
        var map = MIDIControlMap.defaults
        learn.start()
        learn.choose(.volume)
        let refused = learn.receive(.noteOn(channel: 9, note: 36, velocity: 100), map: &map)
        XCTAssertEqual(refused, .refused("volume needs a knob, fader or pedal (a CC); pads and keys only switch"))
        XCTAssertEqual(learn.state, .waitingForMIDI(.volume), "still waiting for a knob")
        XCTAssertEqual(learn.receive(.noteOff(channel: 9, note: 36, velocity: 0), map: &map), .refused("a note release"))
        XCTAssertEqual(map, .defaults)
        learn.cancel()
        XCTAssertEqual(learn.state, .off)
        XCTAssertEqual(learn.prompt, "learn: learn cancelled")

        learn.start()
        learn.choose(.mic)
        XCTAssertEqual(learn.receive(.noteOn(channel: 9, note: 36, velocity: 100), map: &map), .bound(.note(36), .mic))
        XCTAssertEqual(map.bindings[.note(36)], .mic)
        XCTAssertEqual(map.bindings[.cc(64)], .mic, "the footswitch still works too")
    }

    func testRebindingASourceReplacesWhatItDrove() {
        var learn = MIDILearn()
        var map = MIDIControlMap.defaults
        learn.start()
        learn.choose(.mute(strip: 1))
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 64, value: 127), map: &map), .bound(.cc(64), .mute(strip: 1)))
        XCTAssertEqual(map.bindings[.cc(64)], .mute(strip: 1))
        XCTAssertEqual(map.sources(for: .mic), [])
    }

    func testEscapeCancelsAtEveryStep() {
        var learn = MIDILearn()
        var map = MIDIControlMap.defaults
        learn.start()
        learn.cancel()
        XCTAssertEqual(learn.state, .off)
        learn.start()
        learn.choose(.volume)
        learn.cancel()
        XCTAssertEqual(learn.state, .off)
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 30, value: 1), map: &map), .notTaken)
        XCTAssertEqual(map, .defaults)
        // Choosing without starting does nothing.
        learn.choose(.volume)
        XCTAssertEqual(learn.state, .off)
    }

    func testChannelModeMessagesAreNotLearned() {
        var learn = MIDILearn()
        var map = MIDIControlMap.defaults
        learn.start()
        learn.choose(.volume)
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 123, value: 0), map: &map),
                       .refused("CC 123 is a channel mode message: move a knob or pedal"))
        XCTAssertEqual(learn.state, .waitingForMIDI(.volume))
    }
}
