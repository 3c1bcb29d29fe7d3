import Control
import MIDI
import XCTest

/// The MIDI control map of `busker live`: its defaults, its text form in a
/// preset (round trip, and errors that name the line), and how messages find
/// their binding.
final class MIDIControlMapTests: XCTestCase {
    func testDefaultsAreWhatAUserWouldGuess() {
        let map = MIDIControlMap.defaults
        XCTAssertEqual(map.bindings, [.cc(64): .mic, .cc(7): .volume, .cc(91): .reverb(strip: 1)])
        XCTAssertEqual(map.lines, ["cc7 = volume", "cc64 = mic", "cc91 = reverb 1"])
        // Any channel: a footswitch on channel 5 still toggles the mic.
        XCTAssertEqual(map.binding(for: .controlChange(channel: 4, controller: 64, value: 127))?.control, .mic)
        XCTAssertNil(map.binding(for: .controlChange(channel: 0, controller: 1, value: 127)))
        XCTAssertNil(map.binding(for: .pitchBend(channel: 0, value: 0)))
    }

    func testTextFormRoundTrips() throws {
        var map = MIDIControlMap.defaults
        map.bind(.note(36, channel: 9), to: .mute(strip: 2))
        map.bind(.cc(10, channel: 1), to: .pan(strip: 2))
        map.bind(.cc(12), to: .gain(strip: 1))
        map.bind(.cc(13), to: .bass(strip: 3))
        map.bind(.cc(14), to: .treble(strip: 1))
        map.bind(.note(40), to: .mic)
        let lines = map.lines
        XCTAssertEqual(lines, ["cc7 = volume", "cc10 ch2 = pan 2", "cc12 = gain 1", "cc13 = bass 3", "cc14 = treble 1",
                               "cc64 = mic", "cc91 = reverb 1", "note36 ch10 = mute 2", "note40 = mic"])
        XCTAssertEqual(try MIDIControlMap(lines: lines), map)
        // Hand-written: case, spaces, comments and blank lines do not matter; no number means strip 1.
        let edited = try MIDIControlMap(lines: ["# my pedalboard", "", "  CC64=Mic ", "\tcc91 =  reverb", "; off: cc7 = volume"])
        XCTAssertEqual(edited.bindings, [.cc(64): .mic, .cc(91): .reverb(strip: 1)])
        XCTAssertEqual(try MIDIControlMap(lines: []), .empty)
    }

    func testPresetEntriesRoundTripAndNameTheirLine() throws {
        var map = MIDIControlMap.defaults
        map.bind(.note(36, channel: 9), to: .mute(strip: 2))
        let entries = map.entries
        XCTAssertEqual(entries.map { "\($0.key) = \($0.value)" }, map.lines)
        let read = try MIDIControlMap(entries: entries.enumerated().map { ($0.element.key, $0.element.value, $0.offset + 20) })
        XCTAssertEqual(read, map)
        XCTAssertEqual(try MIDIControlMap(entries: []), .empty)
        XCTAssertThrowsError(try MIDIControlMap(entries: [("cc7", "volume", 30), ("cc8", " gain 0", 31)])) { error in
            let mapError = error as? MIDIControlMapError
            XCTAssertEqual(mapError?.line, 31)
            XCTAssertEqual(mapError?.message, "'cc8 = gain 0': strip '0' is not a number 1–16")
        }
    }

    func testParseErrorsNameTheLine() {
        let cases: [([String], String)] = [
            (["cc64 = mic", "cc200 = volume"], "line 12: 'cc200 = volume': 'cc200': CC numbers go from 0 to 127"),
            (["cc64 mic"], "line 11: 'cc64 mic': expected SOURCE = CONTROL, as in cc64 = mic"),
            (["knob3 = volume"], "line 11: 'knob3 = volume': 'knob3' is not a CC or note (write cc64, note36 or cc7 ch2)"),
            (["cc7 = loudness"], "line 11: 'cc7 = loudness': unknown control 'loudness' (one of: mic, volume, reverb N, mute N, gain N, pan N, bass N, treble N)"),
            (["cc7 = reverb x"], "line 11: 'cc7 = reverb x': strip 'x' is not a number 1–16"),
            (["cc7 = reverb 17"], "line 11: 'cc7 = reverb 17': strip '17' is not a number 1–16"),
            (["cc7 = volume 2"], "line 11: 'cc7 = volume 2': volume belongs to the whole mix and takes no strip number"),
            (["cc7 ch17 = volume"], "line 11: 'cc7 ch17 = volume': 'ch17' is not a channel (ch1 … ch16)"),
            (["cc123 = mic"], "line 11: 'cc123 = mic': cc123: CC 120–127 are channel mode messages (all notes off, reset), not controls"),
            (["note36 = volume"], "line 11: 'note36 = volume': a note can only switch mic or mute N; volume needs a knob or fader (a CC)"),
            (["cc7 ="], "line 11: 'cc7 =': no control after '=' (one of: mic, volume, reverb N, mute N, gain N, pan N, bass N, treble N)"),
            (["cc7 = volume", "CC7 = mic"], "line 12: 'CC7 = mic': cc7 is already bound to volume"),
        ]
        for (lines, expected) in cases {
            XCTAssertThrowsError(try MIDIControlMap(lines: lines, firstLineNumber: 11)) { error in
                XCTAssertEqual((error as? MIDIControlMapError)?.description, expected)
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
    }

    func testAChannelBindingWinsOverAnyChannel() {
        var map = MIDIControlMap.defaults
        map.bind(.cc(7, channel: 1), to: .gain(strip: 2))
        XCTAssertEqual(map.binding(for: .controlChange(channel: 1, controller: 7, value: 5))?.control, .gain(strip: 2))
        XCTAssertEqual(map.binding(for: .controlChange(channel: 0, controller: 7, value: 5))?.control, .volume)
        // Notes: a note-on carries its velocity, a note-off 0.
        map.bind(.note(36), to: .mute(strip: 1))
        XCTAssertEqual(map.binding(for: .noteOn(channel: 9, note: 36, velocity: 90))?.value, 90)
        XCTAssertEqual(map.binding(for: .noteOff(channel: 9, note: 36, velocity: 64))?.value, 0)
    }
}
