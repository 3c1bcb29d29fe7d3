import Chains
import Control
import Foundation
import MIDI
import Sessions
import XCTest

/// `LiveMIDIControl` on a real raw MIDI input (a FIFO read by its `midi-in`
/// thread), drained on this thread as `busker live`'s control loop does:
/// messages become settings and mic toggles, learn mode binds what arrives.
final class LiveMIDIControlTests: XCTestCase {
    private var folder: URL!
    private var fifo: String { folder.appendingPathComponent("midi.fifo").path }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-livemidi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Polls (bounded) until `done` says the changes so far are enough.
    private func poll(_ midi: LiveMIDIControl, settings: inout LiveSettings, micOn: Bool,
                      until done: (LiveMIDIControl.Changes, LiveSettings) -> Bool) -> LiveMIDIControl.Changes {
        var all = LiveMIDIControl.Changes()
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let changes = midi.poll(settings: &settings, micOn: micOn)
            all.toggleMic = all.toggleMic != changes.toggleMic
            all.settingsChanged = all.settingsChanged || changes.settingsChanged
            all.learned = all.learned || changes.learned
            if done(all, settings) { break }
            usleep(5000)
        }
        return all
    }

    func testMessagesMoveTheSettingsAndTheFootswitchTheMic() throws {
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo)
        midi.start()
        defer { midi.stop() }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writer.close() }
        var settings = LiveSettings()
        writer.write(Data([0xB0, 64, 127]))
        let press = poll(midi, settings: &settings, micOn: true) { changes, _ in changes.toggleMic }
        XCTAssertTrue(press.toggleMic)
        XCTAssertEqual(midi.takeActionLines(), ["CC 64 → mic off"])
        // Release, then the volume fader near the volume (38/127 = 0.299), then the reverb knob from 0 (the send's value) up.
        writer.write(Data([0xB0, 64, 0, 0xB0, 7, 38, 0xB0, 91, 0, 0xB0, 91, 127]))
        let moved = poll(midi, settings: &settings, micOn: false) { _, now in now.strips[0].reverbSendPercent == 100 }
        XCTAssertFalse(moved.toggleMic, "the release does nothing")
        XCTAssertTrue(moved.settingsChanged)
        XCTAssertEqual(settings.volume, 38 / 127, accuracy: 1e-6)
        XCTAssertEqual(midi.takeActionLines(), ["CC 7 → volume 0.30", "CC 91 → strip 1 reverb 100 %"])
        // Turned down by a key: the fader, now above the volume and moving away from it, waits, and says so.
        settings.volume = 0.1
        writer.write(Data([0xB0, 7, 127]))
        _ = poll(midi, settings: &settings, micOn: false) { _, _ in midi.lastAction?.contains("pick up") ?? false }
        XCTAssertEqual(midi.lastAction, "CC 7 at 1.00: move it to 0.10 to pick up volume")
        XCTAssertEqual(settings.volume, 0.1)
    }

    func testLearnModeBindsWhatArrivesAndTheBindingWorksAtOnce() throws {
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo)
        midi.start()
        defer { midi.stop() }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writer.close() }
        var settings = LiveSettings()
        settings.strips = [StripSettings(channels: [1]), StripSettings(channels: [2])]
        midi.startLearning()
        midi.learnControl(.mute(strip: 2))
        // A pad on channel 10: note 36 on, then off.
        writer.write(Data([0x99, 36, 100, 0x89, 36, 0]))
        let learned = poll(midi, settings: &settings, micOn: true) { changes, _ in changes.learned }
        XCTAssertTrue(learned.learned)
        XCTAssertFalse(learned.settingsChanged, "the hit that was learned does not also mute")
        XCTAssertEqual(midi.map.bindings[.note(36)], .mute(strip: 2))
        XCTAssertEqual(midi.lastAction, "learned note 36 (C2) → strip 2 mute")
        XCTAssertFalse(midi.learn.isActive)
        // The next hit mutes strip 2.
        writer.write(Data([0x99, 36, 90]))
        _ = poll(midi, settings: &settings, micOn: true) { changes, _ in changes.settingsChanged }
        XCTAssertEqual(settings.strips.map(\.mute), [false, true])
        // Cancelled learn binds nothing.
        midi.startLearning()
        midi.learnControl(.volume)
        midi.cancelLearning()
        writer.write(Data([0xB0, 30, 5, 0xB0, 64, 127]))  // the footswitch after it: both have been read
        _ = poll(midi, settings: &settings, micOn: true) { changes, _ in changes.toggleMic }
        XCTAssertNil(midi.map.bindings[.cc(30)])
        XCTAssertEqual(midi.takeActionLines().first, "learned note 36 (C2) → strip 2 mute")
    }
}
