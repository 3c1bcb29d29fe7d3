import Foundation
import RenderTestSupport
import XCTest

/// A MIDI binding learned on the live screen and not saved is named when
/// busker live ends, with the key that saves it, instead of being lost in
/// silence; the restart line still starts from the preset.
final class LiveLearnQuitCLITests: XCTestCase {
    func testALearnedBindingNotSavedIsNamedAtQuit() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let card = try VirtualSoundCardFixture(name: "busker-learn-quit")
        defer { try? card.stop() }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("busker-learn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work.appendingPathComponent("busker"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        try "[bus]\nvolume = 0.3\n\n[midi]\ncc64 = mic\n".write(to: work.appendingPathComponent("busker/gig.preset"), atomically: true, encoding: .utf8)
        let fifo = work.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)

        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) "
            + "JACK_NO_START_SERVER=1 XDG_CONFIG_HOME=\(work.path) TERM=xterm-256color"
        let tmux = try TmuxSession(socket: "busker-learn-\(getpid())", columns: 120, rows: 40,
                                   arguments: [buskerPath, "live", "--input", "busker_in", "--output", "busker_out", "--preset", "gig",
                                               "--midi", "none", "--midi-in", fifo],
                                   environment: environment)
        defer { tmux.stop() }
        XCTAssertTrue(tmux.waitForLine { $0.hasPrefix("BUSKER LIVE") }, (try? tmux.screen().joined(separator: "\n")) ?? "")
        // The FIFO's writer: busker reads it from the start.
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        defer { try? writer.close() }

        // l: learn; x: strip 1's mute; then a controller moves CC 16.
        try tmux.sendKey("l")
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.localizedCaseInsensitiveContains("learn") }, (try? tmux.screen().joined(separator: "\n")) ?? "")
        try tmux.sendKey("x")
        usleep(300_000)
        writer.write(Data([0xB0, 16, 127]))
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.contains("CC 16") }, (try? tmux.screen().joined(separator: "\n")) ?? "")

        // The mic is on: q asks, a second q quits.
        try tmux.sendKey("q")
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.contains("q again to quit") }, (try? tmux.screen().joined(separator: "\n")) ?? "")
        try tmux.sendKey("q")
        let expected = "busker live: learned CC 16 → strip 1 mute: not saved; w saves it"
        let joined = { (try? tmux.screen().joined(separator: "\n")) ?? "" }
        XCTAssertTrue(tmux.waitForLine(within: 10) { $0 == expected }, joined())
        // The restart line follows, still from the preset (the binding is what it cannot bring back).
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.contains("start the same sound again with:") }, joined())
        let flat = joined().filter { !$0.isWhitespace }
        XCTAssertTrue(flat.contains("--presetgig"), joined())
    }
}
