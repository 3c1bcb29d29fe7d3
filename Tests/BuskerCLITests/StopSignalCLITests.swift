import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// SIGHUP and SIGTERM stop every command as SIGINT does: `busker record`
/// and `busker live --record` on the virtual sound card end with the take
/// finalized (its header matches its data) and its log summed up; the live
/// screen gives the terminal back (echo and line editing on, the main
/// screen, the cursor shown). Each signal is sent to the running built command.
final class StopSignalCLITests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeWorkFolder("busker-signals").path }

    override func tearDownWithError() throws { removeWorkFolder(atPath: folder) }

    func testStopSignalsFinalizeADeviceTake() throws {
        let card = try VirtualSoundCardFixture(name: "busker-sig-rec")
        defer { try? card.stop() }
        for (signal, name) in [(SIGHUP, "SIGHUP"), (SIGTERM, "SIGTERM")] {
            let take = folder + "/rec-\(name).wav"
            try runUntilRecording(["record", take, "--input", "busker_in"], card: card, signal: signal, name: name, take: take)
        }
    }

    func testStopSignalsFinalizeAHeadlessLiveTake() throws {
        let card = try VirtualSoundCardFixture(name: "busker-sig-live")
        defer { try? card.stop() }
        for (signal, name) in [(SIGHUP, "SIGHUP"), (SIGTERM, "SIGTERM")] {
            let take = folder + "/live-\(name).wav"
            try runUntilRecording(["live", "--input", "busker_in", "--output", "busker_out", "--no-tui", "--record", take],
                                  card: card, signal: signal, name: name, take: take)
        }
    }

    /// An offline take (`record --input file:`) ends at SIGHUP with what was read, finalized.
    func testSIGHUPFinalizesAnOfflineTake() throws {
        let input = folder + "/long.wav"
        try writeSparseWAV(at: input)
        let take = folder + "/cut.wav"
        let (process, out, err) = try launchBusker(["record", take, "--input", "file:\(input)", "--format", "wav16"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        XCTAssertTrue(waitUntil({ ((try? FileManager.default.attributesOfItem(atPath: take)[.size] as? Int) ?? 0) >= 1 << 20 }, timeout: 60))
        XCTAssertEqual(kill(process.processIdentifier, SIGHUP), 0)
        process.waitUntilExit()
        _ = out.waitForEnd()
        _ = err.waitForEnd()
        XCTAssertEqual(process.terminationReason, .exit, "SIGHUP is caught, not fatal")
        assertOneLineError(BuskerRun(status: process.terminationStatus, stdout: out.text, stderr: err.text), status: 1,
                           mentioning: "stopped by SIGHUP; ")
        try assertFinalized(take, bytesPerFrame: 2)
    }

    /// The live screen in a real terminal (tmux), stopped by SIGHUP and by
    /// SIGTERM: afterwards the terminal echoes and edits lines again, is on
    /// its main screen and shows the cursor.
    func testStopSignalsGiveTheTerminalBackFromTheLiveScreen() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let card = try VirtualSoundCardFixture(name: "busker-sig-screen")
        defer { try? card.stop() }
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) "
            + "JACK_NO_START_SERVER=1 TERM=xterm-256color"
        for (signal, name) in [(SIGHUP, "SIGHUP"), (SIGTERM, "SIGTERM")] {
            let run = folder + "/screen-\(name)"
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
            // busker runs in the foreground of the pane (its pid written first); then the pane's own stty state is saved.
            let script = run + "/run.sh"
            try """
            sh -c 'echo $$ > "\(run)/pid"; exec "$0" "$@"' "\(buskerPath)" live --input busker_in --output busker_out
            stty -a > "\(run)/stty"
            sleep 30
            """.write(toFile: script, atomically: true, encoding: .utf8)
            let tmux = try TmuxSession(socket: "busker-sig-\(getpid())-\(name)", columns: 100, rows: 30,
                                       arguments: ["/bin/bash", script], environment: environment)
            defer { tmux.stop() }
            XCTAssertTrue(tmux.waitForLine { $0.contains("BUSKER LIVE") }, "the live screen: \((try? tmux.screen()) ?? [])")
            XCTAssertEqual(try tmux.run(["display-message", "-p", "#{alternate_on}"]).output.trimmingCharacters(in: .whitespacesAndNewlines), "1",
                           "the screen runs on the alternate screen")
            let pid = try XCTUnwrap(Int32(String(contentsOfFile: run + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertEqual(kill(pid, signal), 0)
            XCTAssertTrue(waitUntil({ FileManager.default.fileExists(atPath: run + "/stty") }, timeout: 10), "busker ended after \(name)")
            usleep(200_000)
            let stty = try String(contentsOfFile: run + "/stty", encoding: .utf8)
            let words = Set(stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
            XCTAssertTrue(words.contains("echo") && words.contains("icanon"), "after \(name) the terminal echoes and edits lines: \(stty)")
            XCTAssertEqual(try tmux.run(["display-message", "-p", "#{alternate_on} #{cursor_flag}"]).output.trimmingCharacters(in: .whitespacesAndNewlines),
                           "0 1", "after \(name): the main screen, the cursor shown")
            let screen = try tmux.screen().joined(separator: "\n")
            XCTAssertTrue(screen.contains("stopped by \(name)"), screen)
        }
    }

    /// The terminal itself goes away (the tmux server killed, as an ssh
    /// session dropping does): busker gets SIGHUP and a terminal that
    /// answers every write with EIO, and still finalizes its take and exits.
    func testAClosedTerminalStillFinalizesTheTake() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let card = try VirtualSoundCardFixture(name: "busker-sig-hangup")
        defer { try? card.stop() }
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) "
            + "JACK_NO_START_SERVER=1 TERM=xterm-256color"
        let take = folder + "/hangup.wav"
        let script = folder + "/hangup.sh"
        try """
        echo $$ > "\(folder)/pid"
        exec "\(buskerPath)" live --input busker_in --output busker_out --record "\(take)"
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let tmux = try TmuxSession(socket: "busker-hangup-\(getpid())", columns: 100, rows: 30,
                                   arguments: ["/bin/bash", script], environment: environment)
        defer { tmux.stop() }
        XCTAssertTrue(tmux.waitForLine { $0.contains("BUSKER LIVE") }, "the live screen: \((try? tmux.screen()) ?? [])")
        XCTAssertTrue(waitUntil({ ((try? FileManager.default.attributesOfItem(atPath: take)[.size] as? Int) ?? 0) > 48000 * 6 }, timeout: 30))
        let pid = try XCTUnwrap(Int32(String(contentsOfFile: folder + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        tmux.stop()
        XCTAssertTrue(waitUntil({ kill(pid, 0) != 0 }, timeout: 10), "busker ended when its terminal closed")
        try assertFinalized(take, bytesPerFrame: 6)
        let log = try String(contentsOfFile: take + ".log", encoding: .utf8)
        XCTAssertTrue(log.contains("\nsummary: "), "the take was ended, not cut: \(log)")
    }

    // MARK: Helpers

    /// Runs busker on the card until its take holds a second, sends
    /// `signal`, and checks: exit 0 with "stopped by NAME", the take finalized
    /// (24-bit stereo) and its log summed up.
    private func runUntilRecording(_ arguments: [String], card: VirtualSoundCardFixture, signal: Int32, name: String, take: String) throws {
        let (process, out, err) = try launchBusker(arguments, on: card)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // A second of 24-bit stereo on disk.
        XCTAssertTrue(waitUntil({ ((try? FileManager.default.attributesOfItem(atPath: take)[.size] as? Int) ?? 0) > 48000 * 6 }, timeout: 30),
                      "recording: \(out.text) \(err.text)")
        XCTAssertEqual(kill(process.processIdentifier, signal), 0)
        process.waitUntilExit()
        _ = out.waitForEnd()
        _ = err.waitForEnd()
        XCTAssertEqual(process.terminationReason, .exit, "\(name) is caught, not fatal")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertTrue(out.text.contains("stopped by \(name)"), out.text)
        try assertFinalized(take, bytesPerFrame: 6)
        let log = try String(contentsOfFile: take + ".log", encoding: .utf8)
        XCTAssertTrue(log.contains("\nsummary: "), "the log is summed up: \(log)")
    }

    /// The take's header says as many frames as its data holds, at least a second's worth at 8 kHz.
    private func assertFinalized(_ take: String, bytesPerFrame: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let frames = Int(try SoundFileReader(path: take).frameCount)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: take)[.size] as? Int)
        XCTAssertGreaterThanOrEqual(frames, 8000, file: file, line: line)
        XCTAssertLessThan(size - frames * bytesPerFrame, 200, "the header counts every frame on disk: \(size) bytes, \(frames) frames",
                          file: file, line: line)
    }
}
