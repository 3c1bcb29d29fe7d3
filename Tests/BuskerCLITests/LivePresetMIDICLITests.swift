import Control
import Foundation
import RenderTestSupport
import XCTest

/// A MIDI mapping saved in a preset drives `busker live` on the next start
/// (`--preset`), and a bad `[midi]` line stops it before any device opens.
final class LivePresetMIDICLITests: XCTestCase {
    private var config: URL!

    override func setUpWithError() throws {
        config = FileManager.default.temporaryDirectory.appendingPathComponent("busker-presetmidi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("busker"), withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: config)
    }

    private func writePreset(_ name: String, _ text: String) throws {
        try text.write(to: config.appendingPathComponent("busker/\(name).preset"), atomically: true, encoding: .utf8)
    }

    func testAPresetsMappingDrivesTheMicOnTheNextStart() throws {
        let card = try VirtualSoundCardFixture(name: "busker-presetmidi")
        defer { try? card.stop() }
        try writePreset("gig", "[bus]\nvolume = 0.3\n\n[midi]\nnote36 ch10 = mic\ncc7 = volume\n")
        let fifo = config.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        var environment = alsaEnvironment(of: card)
        environment["XDG_CONFIG_HOME"] = config.path
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--preset", "gig", "--input", "busker_in", "--output", "busker_out",
                                                    "--period", "256", "--midi", "none", "--midi-in", fifo], environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")

        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        writer.write(Data([0x99, 36, 100, 0x89, 36, 0]))  // the pad on channel 10
        XCTAssertTrue(out.waitFor("MIDI: note 36 (C2) on channel 10 → mic off"), out.text)
        usleep(1_200_000)  // a status line while the mic is off
        // CC 64 is not in this preset's mapping: the footswitch does nothing.
        writer.write(Data([0xB0, 64, 127, 0xB0, 64, 0, 0x99, 36, 100]))
        XCTAssertTrue(out.waitFor("MIDI: note 36 (C2) on channel 10 → mic on"), out.text)
        try writer.close()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd())
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertFalse(out.text.contains("CC 64"), out.text)
        XCTAssertTrue(out.text.contains("mic OFF"), "the status line showed the mic off: \(out.text)")
    }

    func testABadMIDILineInAPresetIsAOneLineUsageError() throws {
        try writePreset("typo", "[bus]\nvolume = 0.3\n\n[midi]\ncc64 = mic\nnote36 = volume\n")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = config.path
        let r = try runBusker(["live", "--no-tui", "--preset", "typo", "--device", "no-such-device"], environment: environment)
        assertOneLineError(r, status: 2, mentioning: "typo.preset line 6: 'note36 = volume': a note can only switch mic or mute N")
        let files = try FileManager.default.contentsOfDirectory(atPath: config.appendingPathComponent("busker").path)
        XCTAssertEqual(files, ["typo.preset"], "nothing written")
    }
}
