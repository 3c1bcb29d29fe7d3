import Foundation
import MIDI
import RenderTestSupport
import XCTest

/// `busker play`'s computer keyboard in a real terminal that does not speak
/// the kitty keyboard protocol (tmux): the query is answered by the device
/// attributes alone, so the timing rules play; keys whose escape sequences
/// Busker does not know (F5, Ctrl-Right, Alt-z, F1, Page Up) sound nothing.
/// What sounded is read back from the session's MIDI take.
final class PlayKeyboardTerminalTests: XCTestCase {
    func testInTmuxUnknownKeysSoundNothingAndANoteEndsByItsHold() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let card = try VirtualSoundCardFixture(name: "busker-play-keys-test")
        defer { try? card.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-play-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let socket = "busker-play-keys-\(getpid())"
        let command = [buskerPath, "play", "--output", "busker_out", "--midi", "none", "--soundfont", font, "--no-drums",
                       "--record=\(folder)/take.wav"].map { "'\($0)'" }.joined(separator: " ")
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) JACK_NO_START_SERVER=1 TERM=xterm-256color"
        let started = try tmux(socket, ["-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "40",
                                        "env \(environment) \(command); sleep 30"])
        XCTAssertEqual(started.status, 0, started.output)
        defer { _ = try? tmux(socket, ["kill-server"]) }

        XCTAssertTrue(waitForScreen(socket) { $0.hasPrefix("BUSKER PLAY") }, "the play screen did not come up")
        usleep(1_000_000)
        for key in ["F5", "C-Right", "M-z", "F1", "PageUp"] { _ = try tmux(socket, ["send-keys", key]) }
        usleep(500_000)
        _ = try tmux(socket, ["send-keys", "z"])
        usleep(1_500_000)
        _ = try tmux(socket, ["send-keys", "Escape"])
        XCTAssertTrue(waitForScreen(socket) { $0.contains("busker play:") }, "busker play did not quit on Esc")

        let file = try StandardMIDIFile(contentsOfFile: folder + "/take.mid", mode: .strict)
        var notes: [(on: Bool, note: UInt8, seconds: Double)] = []
        for event in file.timedEvents(ofTrack: 0) {
            switch event.kind {
            case .message(.noteOn(_, let note, let velocity)): notes.append((velocity > 0, note, event.seconds))
            case .message(.noteOff(_, let note, _)): notes.append((false, note, event.seconds))
            default: break
            }
        }
        XCTAssertEqual(notes.map { "\($0.on ? "on" : "off") \($0.note)" }, ["on 60", "off 60"], "only z sounded: \(notes)")
        guard notes.count == 2 else { return }
        // No release from tmux: the note ends by the timing rules' 0.6 s hold, not when the key was let go.
        let held = notes[1].seconds - notes[0].seconds
        print(String(format: "busker play in tmux: z held %.3f s (the 0.6 s hold)", held))
        XCTAssertGreaterThanOrEqual(held, 0.55)
    }

    private func waitForScreen(_ socket: String, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        repeat {
            if let lines = try? tmux(socket, ["capture-pane", "-p"]).output, lines.split(separator: "\n").contains(where: { condition(String($0)) }) {
                return true
            }
            usleep(200_000)
        } while Date() < deadline
        return false
    }

    /// tmux on its own socket, output in a file, descriptors above 2 closed
    /// (the server it starts must not inherit the one Process watches).
    private func tmux(_ socket: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("busker-tmux-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let closeAndRun = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; exec /usr/bin/tmux "$@""#
        process.arguments = ["-c", closeAndRun, "tmux", "-L", socket] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
    }
}
