import AudioFiles
import Chains
import CommandLineInterface
import Control
import Engine
import Foundation
import MIDI
import OfflineDrivers
import Sequencing
import Sessions
import Session
import TerminalUI
import XCTest

/// A part's stand-in for the session tests: a stereo source of silence.
private final class SilentSource: AudioNode {
    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for c in 0..<output.channelCount { for i in 0..<output.frameCount { output[c][i] = 0 } }
    }
}

/// The live session's keys on a stage (a chain with keys, drums and song
/// parts, on an offline driver never started): tab goes over the mic strips
/// and the parts, the strip keys that make sense act on a selected part's
/// fader, pan, mute, solo and send as the audio thread reads them, a save
/// holds every part, and keys mode sends notes to the keyboard port and
/// leaves only by its key.
final class LiveSessionStageTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeSessionFolder("busker-session-stage") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    private func stage(_ arguments: [String] = ["--inputs", "1,2"], keyboardPort: MIDIInputPort? = MIDIInputPort(name: "keyboard")) throws -> LiveSession {
        let input = work.appendingPathComponent("in.wav").path
        let writer = try SoundFileWriter(path: input, sampleRate: 48000, channelCount: 2, sampleFormat: .f32)
        try writer.write(interleaved: [Float](repeating: 0, count: 2 * 480))
        try writer.close()
        let driver = try FileRenderDriver(options: FileRenderDriver.Options(inputPath: input, outputPath: work.appendingPathComponent("out.wav").path))
        let parts = ["keys", "drums", "song"].map { StagePart(name: $0, source: SilentSource(name: $0)) }
        let chain = try LiveChain(inputChannelCount: 2, settings: try LiveSettings(commandLine: arguments), parts: parts)
        let runner = SessionRunner(command: "live", driver: driver, engine: RenderEngine(), policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [] }, suspendProcess: {}, reopen: { driver })
        return LiveSession(chain: chain, runner: runner, useTUI: false, keyboardPort: keyboardPort)
    }

    private func press(_ session: LiveSession, _ text: String) {
        for key in Key.parse(Array(text.utf8)) { XCTAssertTrue(session.handle(key), "\(key) does not quit") }
    }

    private func received(_ port: MIDIInputPort) -> [MIDIMessage] {
        var messages: [MIDIMessage] = []
        while let event = port.receive() {
            if case .message(let message) = event.item { messages.append(message) }
        }
        return messages
    }

    func testTabGoesOverTheMicStripsThenTheParts() throws {
        let s = try stage()
        var seen: [String] = []
        for _ in 0..<6 {
            let status = s.status()
            seen.append(status.selectedPart.map { status.parts[$0].name } ?? "strip \(status.selectedStrip + 1)")
            press(s, "\t")
        }
        XCTAssertEqual(seen, ["strip 1", "strip 2", "keys", "drums", "song", "strip 1"])
        press(s, "\t\t")  // strip 2 → keys → drums
        XCTAssertEqual(s.selectedPart, 1)
        press(s, "2")
        XCTAssertNil(s.selectedPart, "a number picks a mic strip")
        XCTAssertEqual(s.selectedStrip, 1)
    }

    func testAPartsKeysSetItsStripOnTheStageBus() throws {
        let s = try stage()
        let bus = try XCTUnwrap(s.chain.stage)
        press(s, "\t\t")  // keys
        press(s, "III")
        press(s, "PP")
        press(s, "RR")
        press(s, "x")
        XCTAssertEqual(s.settings.parts["keys"], PartSettings(levelDB: 3, pan: 0.2, mute: true, reverbSendPercent: 10))
        XCTAssertEqual(bus.mixer.inputs[1].gainDB.value, 3)
        XCTAssertEqual(bus.mixer.inputs[1].pan.value, 0.2, accuracy: 1e-6)
        XCTAssertTrue(bus.mixer.inputs[1].isMuted)
        XCTAssertEqual(s.settings.strips, try LiveSettings(commandLine: ["--inputs", "1,2"]).strips, "the mic strips are untouched")
        press(s, "\to")  // drums solo
        XCTAssertEqual(s.settings.parts["drums"]?.solo, true)
        XCTAssertTrue(bus.mixer.inputs[0].isMuted, "a soloed part mutes the mic's bus")
        XCTAssertTrue(bus.mixer.inputs[3].isMuted, "and every other part")
        XCTAssertFalse(bus.mixer.inputs[2].isMuted)
        let before = s.settings
        press(s, "b")
        XCTAssertEqual(s.settings, before, "b is a mic strip's key")
        XCTAssertEqual(s.message, "b: drums has level, pan, mute, solo and reverb; tab selects a mic strip for the rest")
        let status = s.status()
        XCTAssertEqual(status.parts.map(\.name), ["keys", "drums", "song"])
        XCTAssertEqual(status.selectedPart, 1)
        XCTAssertFalse(status.strips.contains(where: \.selected), "one selection at a time")
    }

    func testASaveHoldsEveryPartAndTheRestartLineSaysTheChangedOnes() throws {
        let s = try stage()
        s.presets = try PresetStore(environment: ["XDG_CONFIG_HOME": work.path + "/config"])
        press(s, "\t\t\t")  // drums
        press(s, "iii")
        XCTAssertTrue(s.savePreset(as: "gig"))
        let saved = try XCTUnwrap(s.presets).load("gig")
        XCTAssertEqual(saved.settings.parts, ["keys": PartSettings(), "drums": PartSettings(levelDB: -3), "song": PartSettings()])
        XCTAssertEqual(saved.settings, s.settings)
        press(s, "x")
        XCTAssertEqual(LiveRestartCommand.settingsArguments(s.settings, presetName: "gig", saved: saved.settings),
                       ["--preset", "gig", "--part", "drums:mute=on"])
    }

    func testKeysModePlaysTheKeyboardPortAndOnlyItsKeyLeavesIt() throws {
        let port = MIDIInputPort(name: "keyboard")
        let s = try stage(keyboardPort: port)
        XCTAssertTrue(s.micOn)
        press(s, "`")
        XCTAssertTrue(s.keysMode)
        XCTAssertEqual(s.status().keysMode?.on, true)
        press(s, "z")
        XCTAssertEqual(received(port), [.noteOn(channel: 0, note: 60, velocity: 100)])
        press(s, "q")  // a note here, not quit
        press(s, "1")  // the kick pad on channel 10
        XCTAssertEqual(received(port), [.noteOn(channel: 0, note: 72, velocity: 100), .noteOn(channel: 9, note: 36, velocity: 100)])
        XCTAssertFalse(s.quitAsked)
        XCTAssertTrue(s.handle(.escape), "Esc does not quit")
        XCTAssertTrue(s.keysMode)
        XCTAssertEqual(s.message, "Esc does not quit: ` returns to the control keys, where q quits")
        XCTAssertNil(s.selectedPart, "a note's key selects nothing")
        press(s, "`")
        XCTAssertFalse(s.keysMode)
        let offs = received(port)
        let ended = offs.compactMap { message -> UInt8? in
            if case let .noteOff(_, note, _) = message { return note }
            return nil
        }
        XCTAssertEqual(Set(ended), Set<UInt8>([60, 72, 36]),
                       "leaving keys mode ends the held notes: \(offs)")
        XCTAssertTrue(s.handle(.character("q")), "the mic is on: q asks first")
        XCTAssertTrue(s.quitAsked)
        XCTAssertFalse(s.handle(.character("q")), "and the second q quits")
    }

    func testOffAStageTheModeKeySaysWhyAndTheStageKeysDoNothing() throws {
        let s = try makeOfflineLiveSession(["--inputs", "1,2"], in: work)
        press(s, "`")
        XCTAssertFalse(s.keysMode)
        XCTAssertEqual(s.message, LiveSession.noKeysModeMessage)
        let before = s.settings
        press(s, "so\r")
        XCTAssertEqual(s.settings, before)
        XCTAssertNil(s.message)
        XCTAssertNil(s.status().keysMode)
        XCTAssertEqual(s.status().parts, [])
    }

    /// The stage's new keys are free: the mode key plays no note and no
    /// control key is it; s, Enter and o are no mic strip's or the bus's key.
    func testTheStagesKeysAreTakenByNothingElse() {
        XCTAssertEqual(LiveSession.modeKey, .character("`"))
        XCTAssertNil(ComputerKeyboard.binding(for: "`"), "the mode key plays no note in keys mode")
        let controlKeys = (LiveScreen.keyHelp + LiveScreen.stripKeyHelp).flatMap { $0.0.split(separator: " ").map(String.init) }
        for key in ["`", "s", "S", "o", "O", "Enter"] { XCTAssertFalse(controlKeys.contains(key), key) }
        let stageKeys = (LiveScreen.stageKeyHelp + LiveScreen.partKeyHelp).flatMap { $0.0.split(separator: " ").map(String.init) }
        XCTAssertEqual(stageKeys.count, Set(stageKeys).count, "no key twice among the stage's: \(stageKeys)")
    }

    /// Learn mode with a part selected: its strip keys bind nothing (MIDI
    /// drives the mic strips and the bus), and learning goes on.
    func testLearnModeDoesNotBindAMicStripsControlFromAPartsKey() throws {
        let s = try stage()
        let fifo = work.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo)
        s.midi = midi
        midi.start()
        defer { midi.stop() }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writer.close() }
        press(s, "\t\tl")  // keys, then learn
        XCTAssertTrue(s.status().learning)
        press(s, "x")
        XCTAssertEqual(s.message, "learn: MIDI does not drive the keys part's controls; tab selects a mic strip (Esc cancels)")
        XCTAssertEqual(s.status().midi, "learn: press the key of the control to bind (Esc cancels)", "still waiting for a key")
        XCTAssertEqual(s.settings.parts["keys"]?.mute, false, "and x did not mute the part either")
        press(s, "\t\t\tx")  // back to strip 1: x chooses its mute
        XCTAssertEqual(s.status().midi, "learn strip 1 mute: move a knob or pedal, or hit a pad (Esc cancels)")
    }

    func testOnAStageWithoutASongTheSongKeysSaySo() throws {
        let s = try stage()
        press(s, "s")
        XCTAssertEqual(s.message, LiveSession.noSongMessage)
        XCTAssertNil(s.status().song)
    }
}
