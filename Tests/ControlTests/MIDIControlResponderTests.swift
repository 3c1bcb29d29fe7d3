import Chains
import Control
import MIDI
import XCTest

/// What MIDI messages do to the live settings: footswitch presses toggle,
/// faders follow only after picking the value up (soft takeover).
final class MIDIControlResponderTests: XCTestCase {
    private func cc(_ controller: UInt8, _ value: UInt8, channel: UInt8 = 0) -> MIDIMessage {
        .controlChange(channel: channel, controller: controller, value: value)
    }

    func testAFootswitchTogglesOnEachPressAndNotOnRelease() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        let outcomes = [cc(64, 127), cc(64, 0), cc(64, 127), cc(64, 0)].map { responder.respond(to: $0, settings: &settings) }
        XCTAssertEqual(outcomes, [.toggleMic(source: .cc(64)), .ignored, .toggleMic(source: .cc(64)), .ignored])
        // A continuous sustain pedal pressed down slowly sends many values over 64: one press.
        let slow = [30, 64, 80, 100, 127, 90, 70].map { responder.respond(to: cc(64, UInt8($0)), settings: &settings) }
        XCTAssertEqual(slow.filter { $0 != .ignored }, [.toggleMic(source: .cc(64))])
        XCTAssertEqual(responder.respond(to: cc(64, 20), settings: &settings), .ignored)
        XCTAssertEqual(responder.respond(to: cc(64, 64), settings: &settings), .toggleMic(source: .cc(64)))
        XCTAssertEqual(settings, LiveSettings(), "the mic switch leaves the settings alone")
    }

    func testAPadTogglesAStripsMute() {
        var map = MIDIControlMap.defaults
        map.bind(.note(36), to: .mute(strip: 2))
        map.bind(.note(37), to: .mute(strip: 3))
        var responder = MIDIControlResponder(map: map)
        var settings = LiveSettings()
        settings.strips = [StripSettings(channels: [1]), StripSettings(channels: [2])]
        XCTAssertEqual(responder.respond(to: .noteOn(channel: 9, note: 36, velocity: 100), settings: &settings),
                       .changed(.mute(strip: 2), source: .note(36)))
        XCTAssertEqual(settings.strips.map(\.mute), [false, true])
        XCTAssertEqual(responder.respond(to: .noteOff(channel: 9, note: 36, velocity: 0), settings: &settings), .ignored)
        XCTAssertEqual(responder.respond(to: .noteOn(channel: 9, note: 36, velocity: 0), settings: &settings), .ignored)
        _ = responder.respond(to: .noteOn(channel: 9, note: 36, velocity: 1), settings: &settings)
        XCTAssertEqual(settings.strips.map(\.mute), [false, false])
        // No strip 3 in this session: nothing happens.
        XCTAssertEqual(responder.respond(to: .noteOn(channel: 9, note: 37, velocity: 100), settings: &settings), .ignored)
    }

    func testAFaderFarFromTheVolumeDoesNothingUntilItPicksItUp() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        XCTAssertEqual(settings.volume, 0.3)
        // The fader was left at the top: its first message must not jump the volume to 1.
        let first = responder.respond(to: cc(7, 127), settings: &settings)
        XCTAssertEqual(first, .awaitingPickup(.volume, source: .cc(7), fader: 1, current: 0.3))
        XCTAssertEqual(settings.volume, 0.3)
        // On the way down, still above the volume: nothing.
        for value: UInt8 in [110, 90, 60, 40] {
            _ = responder.respond(to: cc(7, value), settings: &settings)
            XCTAssertEqual(settings.volume, 0.3, "fader at \(value)")
        }
        // 40/127 = 0.315 → 35/127 = 0.276: it crossed 0.3, so it takes over.
        XCTAssertEqual(responder.respond(to: cc(7, 35), settings: &settings), .changed(.volume, source: .cc(7)))
        XCTAssertEqual(settings.volume, 35 / 127, accuracy: 1e-6)
        // And follows from then on, both ways.
        _ = responder.respond(to: cc(7, 100), settings: &settings)
        XCTAssertEqual(settings.volume, 100 / 127, accuracy: 1e-6)
        _ = responder.respond(to: cc(7, 0), settings: &settings)
        XCTAssertEqual(settings.volume, 0)
    }

    func testAFaderWithinOneStepPicksUpAtOnce() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        // 38/127 = 0.2992, within 1/127 of 0.3.
        XCTAssertEqual(responder.respond(to: cc(7, 38), settings: &settings), .changed(.volume, source: .cc(7)))
        XCTAssertEqual(settings.volume, 38 / 127, accuracy: 1e-6)
    }

    func testAChangeByOtherMeansMustBePickedUpAgain() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        _ = responder.respond(to: cc(7, 38), settings: &settings)
        _ = responder.respond(to: cc(7, 50), settings: &settings)
        XCTAssertEqual(settings.volume, 50 / 127, accuracy: 1e-6)
        settings.volume = 0.8  // a key, or a preset
        XCTAssertEqual(responder.respond(to: cc(7, 52), settings: &settings),
                       .awaitingPickup(.volume, source: .cc(7), fader: 52 / 127, current: 0.8))
        XCTAssertEqual(settings.volume, 0.8)
        // Up past 0.8 (102/127 = 0.803): picked up.
        _ = responder.respond(to: cc(7, 102), settings: &settings)
        XCTAssertEqual(settings.volume, 102 / 127, accuracy: 1e-6)
    }

    func testTheReverbKnobSetsStripOnesSendInPercent() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        settings.strips = [StripSettings(channels: [1]), StripSettings(channels: [2])]
        XCTAssertEqual(responder.respond(to: cc(91, 0), settings: &settings), .changed(.reverb(strip: 1), source: .cc(91)))
        _ = responder.respond(to: cc(91, 127), settings: &settings)
        XCTAssertEqual(settings.strips.map(\.reverbSendPercent), [100, 0])
    }

    func testPanCentresAt64AndGainSpansItsRange() {
        var map = MIDIControlMap.empty
        map.bind(.cc(10), to: .pan(strip: 1))
        map.bind(.cc(12), to: .gain(strip: 1))
        var responder = MIDIControlResponder(map: map)
        var settings = LiveSettings()
        for (value, pan) in [(UInt8(64), Float(0)), (0, -1), (127, 1), (96, 32 / 63)] {
            _ = responder.respond(to: cc(10, value), settings: &settings)
            XCTAssertEqual(settings.strips[0].pan, pan, accuracy: 1e-6, "CC 10 = \(value)")
        }
        // Gain at 0 dB; the knob crosses it between 60 (−1.3 dB) and 70 (+2.5 dB).
        _ = responder.respond(to: cc(12, 60), settings: &settings)
        XCTAssertEqual(settings.strips[0].gainDB, 0)
        _ = responder.respond(to: cc(12, 70), settings: &settings)
        XCTAssertEqual(settings.strips[0].gainDB, -24 + 70 / 127 * 48, accuracy: 1e-4)
        _ = responder.respond(to: cc(12, 127), settings: &settings)
        XCTAssertEqual(settings.strips[0].gainDB, 24)
    }

    func testASourceThatWentAwayLeavesNoFootswitchHeld() {
        var responder = MIDIControlResponder()
        var settings = LiveSettings()
        XCTAssertEqual(responder.respond(to: cc(64, 127), settings: &settings), .toggleMic(source: .cc(64)))
        // Unplugged with the pedal down: the next press after it returns counts.
        responder.sourceReleased()
        XCTAssertEqual(responder.respond(to: cc(64, 127), settings: &settings), .toggleMic(source: .cc(64)))
    }
}
