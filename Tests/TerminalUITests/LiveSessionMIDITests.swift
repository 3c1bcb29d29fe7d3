import AudioFiles
import CommandLineInterface
import Control
import Engine
import Foundation
import Sessions
import Session
import TerminalUI
import XCTest

/// MIDI control through the live session, as its loop runs it: a real
/// `midi-in` reader on a FIFO, `pollMIDI` on this (the control) thread, the
/// chain's parameters read as the audio thread would. Learn mode's keys:
/// `l`, a control's key, then MIDI; Esc cancels instead of quitting.
final class LiveSessionMIDITests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeSessionFolder("busker-session-midi") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    private func session(_ arguments: [String]) throws -> LiveSession {
        try makeOfflineLiveSession(arguments, in: work)
    }

    /// Polls (bounded, 5 s) until `done`.
    private func poll(_ session: LiveSession, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        repeat {
            session.pollMIDI(headless: false)
            if done() { return }
            usleep(5000)
        } while Date() < deadline
        XCTFail("timed out")
    }

    func testTheFootswitchAndALearnedKnobDriveTheChain() throws {
        let s = try session(["--inputs", "1,2"])
        let fifo = work.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo)
        s.midi = midi
        midi.start()
        defer { midi.stop() }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writer.close() }

        // Before any MIDI: the line shows the mapping.
        XCTAssertEqual(s.status().midi, "MIDI: CC 7 volume, CC 64 mic, CC 91 reverb 1")
        // The footswitch: the mic goes off on every strip, then on again at the next press.
        writer.write(Data([0xB0, 64, 127, 0xB0, 64, 0]))
        poll(s) { !s.micOn }
        XCTAssertTrue((0..<2).allSatisfy { s.chain.busMixer.inputs[$0].isMuted })
        writer.write(Data([0xB0, 64, 127]))
        poll(s) { s.micOn }

        // Learn: strip 2 selected, l, r (its reverb send), then a knob (CC 21) at 0.
        XCTAssertTrue(s.handle(.character("2")))
        XCTAssertTrue(s.handle(.character("l")))
        XCTAssertEqual(s.status().midi, "learn: press the key of the control to bind (Esc cancels)")
        XCTAssertTrue(s.status().learning)
        XCTAssertTrue(s.handle(.character("r")))
        XCTAssertEqual(s.settings.strips[1].reverbSendPercent, 0, "r chose the control; it did not turn the send")
        XCTAssertEqual(s.status().midi, "learn strip 2 reverb: move a knob or pedal (Esc cancels)")
        writer.write(Data([0xB0, 21, 0]))
        poll(s) { midi.map.bindings[.cc(21)] != nil }
        XCTAssertEqual(midi.map.bindings[.cc(21)], .reverb(strip: 2))
        XCTAssertEqual(s.status().midi, "MIDI: learned CC 21 → strip 2 reverb")
        XCTAssertFalse(s.status().learning)
        // The knob now turns strip 2's send, and only that.
        writer.write(Data([0xB0, 21, 127]))
        poll(s) { s.settings.strips[1].reverbSendPercent == 100 }
        XCTAssertEqual(s.chain.sendMixer.inputs[1].gainDB.value, 0, "send at 100 %: 0 dB")
        XCTAssertEqual(s.settings.strips[0].reverbSendPercent, 0)

        // Esc while learning cancels and keeps the session; Esc never quits.
        XCTAssertTrue(s.handle(.character("l")))
        XCTAssertTrue(s.handle(.escape))
        XCTAssertEqual(s.status().midi, "MIDI: learn cancelled")
        XCTAssertTrue(s.handle(.escape))
        XCTAssertEqual(s.status().message, "Esc does not quit: q quits")
    }

    /// A mapping learnt with `l` is saved by `w` (wired as `busker live` wires it) and,
    /// loaded by the next start's `--preset`, drives the same control from the same knob.
    func testALearnedMappingSurvivesARestartThroughAPreset() throws {
        let presets = try PresetStore(environment: ["XDG_CONFIG_HOME": work.path + "/config"])
        let fifo = work.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)

        // First run: learn CC 21 as strip 2's reverb send, then save as "learned".
        let first = try session(["--inputs", "1,2"])
        first.presets = presets
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo)
        first.midi = midi
        first.midiPresetEntries = { midi.map.presetEntries }
        midi.start()
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        for key in ["2", "l", "r"] { XCTAssertTrue(first.handle(.character(Character(key)))) }
        writer.write(Data([0xB0, 21, 0]))
        poll(first) { midi.map.bindings[.cc(21)] != nil }
        for key in Key.parse(Array("wlearned\r".utf8)) { XCTAssertTrue(first.handle(key)) }
        XCTAssertEqual(first.message, "saved learned")
        try writer.close()
        midi.stop()

        // Second run: the preset's settings and mapping, as `--preset learned` loads them.
        let preset = try presets.load("learned")
        let second = try session(preset.settings.commandLineArguments())
        XCTAssertEqual(second.settings.strips.count, 2, "the preset's two strips")
        let map = try MIDIControlMap(preset: preset.midi)
        XCTAssertEqual(map.bindings[.cc(21)], .reverb(strip: 2), "the learned binding is in the preset")
        let again = try LiveMIDIControl(midi: "none", midiIn: fifo, map: map)
        second.midi = again
        again.start()
        defer { again.stop() }
        let writerAgain = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writerAgain.close() }
        // Soft takeover: the knob first meets the send's value (0 %), then turns it.
        writerAgain.write(Data([0xB0, 21, 0, 0xB0, 21, 127]))
        poll(second) { second.settings.strips[1].reverbSendPercent == 100 }
        XCTAssertEqual(second.settings.strips[0].reverbSendPercent, 0, "only strip 2's send moved")
    }
}
