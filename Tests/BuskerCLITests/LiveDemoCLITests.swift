import Foundation
import RenderTestSupport
import XCTest

/// `Tools/live --demo`, as a newcomer without a mic runs it, on a private
/// virtual sound card: the voice recording it feeds into the card's mic
/// moves the strip's meter and comes out of the speakers, and when busker
/// ends, the demo's player goes with it.
final class LiveDemoCLITests: XCTestCase {
    private var card: VirtualSoundCardFixture!

    override func setUpWithError() throws {
        card = try VirtualSoundCardFixture(name: "busker-demo")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    /// The strip's and the output's peaks in each `--no-tui` status line
    /// ("· in 1 -23.4 dBFS · out -30.1/-30.1 dBFS"), -inf as nil.
    private func peaks(_ text: String) -> [(strip: Double?, out: Double?)] {
        func number(after label: String, in line: Substring) -> Double? {
            guard let range = line.range(of: label) else { return nil }
            return Double(line[range.upperBound...].prefix { $0 == "-" || $0 == "." || $0.isNumber })
        }
        return text.split(separator: "\n").filter { $0.contains(" mic ON") }.map {
            (number(after: "· in 1 ", in: $0), number(after: "· out ", in: $0))
        }
    }

    /// Every process under `pid`, with its command name.
    private func descendants(of pid: Int32) throws -> [(pid: Int32, name: String)] {
        var found: [(pid: Int32, name: String)] = [], parents = [pid]
        while let parent = parents.popLast() {
            let children = try runProgram("/usr/bin/pgrep", ["-l", "-P", String(parent)]).stdout.split(separator: "\n")
            for line in children {
                let fields = line.split(separator: " ", maxSplits: 1)
                guard fields.count == 2, let child = Int32(fields[0]) else { continue }
                found.append((child, String(fields[1])))
                parents.append(child)
            }
        }
        return found
    }

    func testTheDemoVoiceMovesTheMeterAndEndsWithBusker() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(".build/release/busker").path),
                          "Tools/live runs the release build: swift build -c release")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/usr/share/sounds/alsa/Front_Center.wav"), "alsa-utils' voice recordings")
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jack-play"), "jack-play (jack-tools)")
        var environment = ProcessInfo.processInfo.environment
        environment["BUSKER_VIRTUAL_CARD"] = card.serverName
        environment["BUSKER_VIRTUAL_CARD_CONFIG"] = card.asoundrcURL.path
        /// Ends a demo still running: busker first (SIGTERM to bash alone would leave its foreground child).
        func end(_ demo: (process: Process, out: OutputCollector, err: OutputCollector)) {
            guard demo.process.isRunning else { return }
            for process in (try? descendants(of: demo.process.processIdentifier)) ?? [] where process.name == "busker" {
                kill(process.pid, SIGINT)
            }
            _ = waitUntil({ !demo.process.isRunning }, timeout: 5)
            if demo.process.isRunning { demo.process.terminate() }
        }
        // The recording is 1.5 s of voice and a second of silence, looped: within 12 s
        // (busker starting, a take or two) the strip has heard it, and the speakers played it.
        // Should busker get no audio period from the card for its first second, it stops ("no audio
        // period"; JACK clients coming and going while its ALSA jack PCMs start have done it, see
        // Tools/live): then the demo starts again, three times at most.
        var attempt = 0
        var demo: (process: Process, out: OutputCollector, err: OutputCollector)
        var heard = false
        repeat {
            attempt += 1
            demo = try launchProgram("/bin/bash", [root.appendingPathComponent("Tools/live").path, "--demo", "--no-tui", "--volume", "0.5"],
                                     environment: environment)
            let current = demo
            func moved() -> Bool {
                peaks(current.out.text).contains { ($0.strip ?? -.infinity) > -40 && ($0.out ?? -.infinity) > -50 }
            }
            _ = waitUntil({ moved() || !current.process.isRunning }, timeout: 12)
            heard = moved()
            if !heard && !demo.process.isRunning && attempt < 3 && demo.out.text.contains("no audio period") {
                print("demo \(attempt): the card gave busker no audio period in its first second; once more")
                continue
            }
            break
        } while true
        defer { end(demo) }
        XCTAssertTrue(heard, "the demo voice moved the meters (the script \(demo.process.isRunning ? "runs" : "ended with \(demo.process.terminationStatus)")): "
                      + "\(demo.out.text.suffix(800)) \(demo.err.text.suffix(800))")
        XCTAssertTrue(demo.out.text.contains("live: demo: a voice recording"), demo.out.text)

        // busker ends on SIGINT (as Ctrl-C); the script then takes the feeder and its player down.
        let script = demo.process.processIdentifier
        let running = try descendants(of: script)
        let busker = try XCTUnwrap(running.first { $0.name == "busker" }, "busker runs under the script: \(running)")
        kill(busker.pid, SIGINT)
        XCTAssertTrue(waitUntil({ !demo.process.isRunning }, timeout: 10), "the script ended with busker")
        XCTAssertEqual(demo.process.terminationStatus, 0, demo.err.text)
        XCTAssertTrue(waitUntil({ running.allSatisfy { kill($0.pid, 0) != 0 } }, timeout: 3),
                      "every process the demo ran is gone: \(running.filter { kill($0.pid, 0) == 0 })")
        // Whatever player was between takes when the list was made: none is left on the card.
        let ports = try runProgram("/usr/bin/jack_lsp", ["-s", card.serverName])
        XCTAssertEqual(ports.status, 0, ports.stderr)
        XCTAssertFalse(ports.stdout.contains("busker_demo_voice:"), "a demo player outlived the script: \(ports.stdout)")
        // The line to start it again is the script's own, which brings the card back: pasted into the same shell, it works.
        XCTAssertTrue(demo.out.text.contains("start the same sound again with: \(root.appendingPathComponent("Tools/live").path) --demo "
                                             + "--no-tui --volume 0.5"),
                      demo.out.text.suffix(400).description)
    }
}
