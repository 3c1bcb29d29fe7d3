import Foundation
import XCTest

/// `Tools/live` on a machine without a sound card starts a JACK server of
/// its own for the virtual card, stops it when busker ends, and prints a
/// line to start the same sound again that works pasted into a shell: run
/// as printed, it starts its own card again and prints the same line.
final class ToolsLiveCardCLITests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// This environment without a sound card chosen: no ALSA configuration, JACK server or card named.
    private var plainEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["ALSA_CONFIG_PATH", "JACK_DEFAULT_SERVER", "BUSKER_VIRTUAL_CARD", "BUSKER_VIRTUAL_CARD_CONFIG", "BUSKER_LAUNCHER"] {
            environment[name] = nil
        }
        return environment
    }

    /// Runs `command` in bash until busker says it runs, then stops busker
    /// with SIGINT as Ctrl-C would; returns the script's pid, its exit
    /// status and output.
    private func runUntilRunning(_ command: String) throws -> (pid: Int32, status: Int32, output: String) {
        let started = try launchProgram("/bin/bash", ["-c", command], environment: plainEnvironment)
        let script = started.process.processIdentifier
        defer { if started.process.isRunning { started.process.terminate() } }
        XCTAssertTrue(waitUntil({ started.out.text.contains("running mic ON") || !started.process.isRunning }, timeout: 30),
                      started.out.text + started.err.text)
        let card = "busker-live-\(script)"
        let pidFile = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/busker-virtual-soundcard-\(card).pid"
        XCTAssertTrue(FileManager.default.fileExists(atPath: pidFile), "the script's own server \(card) runs: \(started.out.text) \(started.err.text)")
        let server = Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let children = try runProgram("/usr/bin/pgrep", ["-P", String(script), "-x", "busker"])
        let busker = try XCTUnwrap(Int32(children.stdout.split(separator: "\n").first ?? ""), "busker runs under the script")
        kill(busker, SIGINT)
        XCTAssertTrue(waitUntil({ !started.process.isRunning }, timeout: 15), "the script ends with busker")
        XCTAssertTrue(waitUntil({ server == 0 || kill(server, 0) != 0 }, timeout: 10), "the server it started is stopped")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pidFile))
        XCTAssertFalse(FileManager.default.fileExists(atPath: (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/\(card).asoundrc"))
        return (script, started.process.terminationStatus, started.out.text)
    }

    private func restartLine(_ output: String) throws -> String {
        let marker = "start the same sound again with: "
        let line = try XCTUnwrap(output.split(separator: "\n").last { $0.contains(marker) }, output)
        return String(line[line.range(of: marker)!.upperBound...])
    }

    func testToolsLiveStartsItsOwnCardStopsItAndItsLineStartsItAgain() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(".build/release/busker").path),
                          "Tools/live runs the release build: swift build -c release")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd"), "jackd is not installed")
        let cards = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        try XCTSkipIf(cards.contains { $0.hasPrefix("pcmC") }, "a sound card is here: Tools/live uses it, not a virtual one")
        let script = root.appendingPathComponent("Tools/live").path
        let first = try runUntilRunning("exec '\(script)' --no-tui --volume 0.2")
        XCTAssertEqual(first.status, 0, first.output)
        let line = try restartLine(first.output)
        XCTAssertEqual(line, "\(script) --no-tui --volume 0.2")
        // Pasted into a shell: a card of its own again, the same sound, the same line.
        // (exec: the script is the process started, so its pid names its card.)
        let again = try runUntilRunning("exec " + line)
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(again.output.contains("vol 0.20"), again.output)
        XCTAssertEqual(try restartLine(again.output), line)
    }
}
