import Foundation
import RenderTestSupport
import TerminalUI
import XCTest

/// `busker live`'s screen in a real terminal (tmux) of the usual size, 80×24,
/// and a roomier 120×40, on the virtual sound card: every key's label is on
/// screen, the screen starts at its title line (nothing scrolled it away) and
/// no line wraps into the next (each meter line ends with its reading).
final class LiveScreenSizeTests: XCTestCase {
    private var card: VirtualSoundCardFixture?

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        card = try VirtualSoundCardFixture(name: "busker-screen-test")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    func testEveryKeyIsOnScreenAt80x24() throws {
        try checkScreen(columns: 80, rows: 24, extraArguments: [])
    }

    func testTwoStripsFitAt80x24() throws {
        try checkScreen(columns: 80, rows: 24, extraArguments: ["--inputs", "1,2"])
    }

    func testEveryKeyIsOnScreenAt120x40() throws {
        try checkScreen(columns: 120, rows: 40, extraArguments: ["--inputs", "1,2"])
    }

    private func checkScreen(columns: Int, rows: Int, extraArguments: [String]) throws {
        let card = try XCTUnwrap(card)
        let socket = "busker-screen-\(getpid())-\(columns)"
        let command = ([buskerPath, "live", "--input", "busker_in", "--output", "busker_out"] + extraArguments)
            .map { "'\($0)'" }.joined(separator: " ")
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) JACK_NO_START_SERVER=1 TERM=xterm-256color"
        let started = try tmux(socket, ["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)",
                                        "env \(environment) \(command); sleep 30"])
        XCTAssertEqual(started.status, 0, started.output)
        defer { _ = try? tmux(socket, ["kill-server"]) }

        // Wait (bounded) for a full screen: the title and the tip at its end.
        var screen: [String] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            usleep(200_000)
            screen = try capture(socket: socket)
        } while !(screen.first?.hasPrefix("BUSKER LIVE") == true && screen.contains { $0.contains("quit") }) && Date() < deadline
        usleep(500_000)  // a few more redraws with the meters running
        screen = try capture(socket: socket)
        let text = screen.joined(separator: "\n")

        XCTAssertTrue(screen.first?.hasPrefix("BUSKER LIVE") == true, "the title line scrolled away:\n\(text)")
        XCTAssertLessThanOrEqual(screen.count, rows)
        for line in screen { XCTAssertLessThanOrEqual(line.count, columns, line) }
        for (key, label) in LiveScreen.keyHelp + LiveScreen.stripKeyHelp {
            XCTAssertTrue(text.contains("\(key) \(label)"), "'\(key) \(label)' is not on the \(columns)×\(rows) screen:\n\(text)")
        }
        // Meter lines carry their reading at their end: a wrapped one would not.
        let meters = screen.filter { $0.contains("█") || $0.contains("·····") }
        XCTAssertFalse(meters.isEmpty, text)
        for line in meters { XCTAssertTrue(line.hasSuffix("dBFS"), "a meter line wrapped: '\(line)'\n\(text)") }

        // Quit from the keyboard: the screen is given back.
        _ = try tmux(socket, ["send-keys", "q"])
        let quitDeadline = Date().addingTimeInterval(10)
        repeat {
            usleep(200_000)
            screen = try capture(socket: socket)
        } while !screen.joined().contains("busker live:") && Date() < quitDeadline
        XCTAssertTrue(screen.joined(separator: "\n").contains("busker live:"), screen.joined(separator: "\n"))
    }

    /// Runs tmux on its own server socket, its output in a file, not a pipe,
    /// and with every descriptor above 2 closed first: the tmux server it
    /// starts would otherwise inherit them, among them the one Foundation's
    /// Process watches for the child's exit, and the test would wait for as
    /// long as the server runs.
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

    /// The pane's text, trailing blank lines and spaces removed.
    private func capture(socket: String) throws -> [String] {
        let r = try tmux(socket, ["capture-pane", "-p"])
        var lines = r.output.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
