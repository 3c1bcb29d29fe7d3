import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// No output file the user named is destroyed: `busker render -o` and
/// `busker live --output file:` write beside the file and rename into place
/// only when complete, so an interrupt (SIGINT, SIGTERM, SIGHUP) or a full
/// disk leaves an existing file byte for byte as it was, and the one error
/// line says so. Run on the built command.
final class OutputSafetyCLITests: XCTestCase {
    private var folder = ""
    private let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws { folder = try makeWorkFolder("busker-outputs").path }

    override func tearDownWithError() throws { removeWorkFolder(atPath: folder) }

    // MARK: render -o

    /// A render interrupted when its temporary file holds a quarter of the
    /// song: exit 1, the line names the signal, how far it got and that the
    /// old file was kept; the old file is byte-identical and no temporary is left.
    func testAnInterruptedRenderLeavesTheOldFileAsItWas() throws {
        let song = try writeLongSong()
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let old = try writeOldFile("long-\(signal).wav")
            let before = try Data(contentsOf: URL(fileURLWithPath: old))
            // 8 kHz, 16-bit stereo: 4 bytes a frame; the song is 1920 s at --tempo 0.125.
            let songBytes = 1920 * 8000 * 4
            let (process, _, err) = try launchBusker(["render", song, font, "-o", old, "--tempo", "0.125", "-r", "8000",
                                                      "--format", "s16", "--no-progress"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            let temporary = try XCTUnwrap(waitForTemporary(of: old, toHold: songBytes / 4, process: process),
                                          "the render writes a temporary beside \(old)")
            XCTAssertEqual(kill(process.processIdentifier, signal), 0)
            process.waitUntilExit()
            _ = err.waitForEnd()
            let errors = err.text
            XCTAssertEqual(process.terminationReason, .exit, "signal \(signal) is caught, not fatal")
            assertOneLineError(BuskerRun(status: process.terminationStatus, stdout: "", stderr: errors), status: 1,
                               mentioning: "; \(old) was left as it was")
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            XCTAssertTrue(errors.contains("interrupted by \(name) at "), errors)
            let percent = try XCTUnwrap(Int(errors.components(separatedBy: " at ").last?.split(separator: " ").first ?? ""), errors)
            // The signal came when a quarter was on disk; the render stops within a few milliseconds of it.
            XCTAssertGreaterThanOrEqual(percent, 25, errors)
            XCTAssertLessThan(percent, 50, errors)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: old)), before, "\(old) is byte for byte as it was")
            XCTAssertFalse(FileManager.default.fileExists(atPath: temporary), "the temporary \(temporary) is removed")
        }
    }

    /// Ctrl-C typed in a terminal: the progress bar ends where the render
    /// stopped, not at 100 %.
    func testTheProgressBarStopsWhereAnInterruptedRenderStopped() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let song = try writeLongSong()
        let old = try writeOldFile("bar.wav")
        let before = try Data(contentsOf: URL(fileURLWithPath: old))
        let tmux = try TmuxSession(socket: "busker-bar-\(getpid())", columns: 100, rows: 10,
                                   arguments: [buskerPath, "render", song, font, "-o", old, "--tempo", "0.125", "-r", "8000", "--format", "s16"],
                                   environment: "TERM=xterm-256color")
        defer { tmux.stop() }
        XCTAssertTrue(tmux.waitForLine { $0.contains(" %") && $0.contains("ETA") }, "a progress bar: \((try? tmux.screen()) ?? [])")
        usleep(300_000)
        try tmux.sendKey("C-c")
        XCTAssertTrue(tmux.waitForLine { $0.contains("was left as it was") }, "the error line: \((try? tmux.screen()) ?? [])")
        let screen = try tmux.screen()
        let bar = try XCTUnwrap(screen.last { $0.contains(" %") && $0.contains("ETA") }, screen.joined(separator: "\n"))
        XCTAssertFalse(bar.contains("100 %"), "the bar ends where the render stopped: \(bar)")
        XCTAssertTrue(screen.contains { $0.hasPrefix("busker: interrupted by SIGINT at ") }, screen.joined(separator: "\n"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: old)), before)
    }

    /// A render that fills the disk (a 1 MB tmpfs holding the old file):
    /// exit 1, the write error and that the old file was kept, in one line;
    /// the old file byte-identical, no temporary left.
    func testARenderOnAFullDiskLeavesTheOldFileAsItWas() throws {
        let song = try writeLongSong()
        try assertAFullDiskKeepsTheOldFile(named: "full.wav") { old in
            ["render", song, font, "-o", old, "-r", "8000", "--format", "s16", "--no-progress"]
        }
    }

    // MARK: live --input file: --output file:

    /// `busker live` on files, interrupted by each stop signal midway: the
    /// old output byte-identical, one line naming the signal, exit 1.
    func testAnInterruptedLiveRunOnFilesLeavesTheOldOutputAsItWas() throws {
        let input = try writeSine("voice.wav", seconds: 600)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let old = try writeOldFile("out-\(signal).wav")
            let before = try Data(contentsOf: URL(fileURLWithPath: old))
            let (process, _, err) = try launchBusker(["live", "--input", "file:" + input, "--output", "file:" + old,
                                                      "-r", "8000", "--format", "s16", "-c", "1"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            // 8 kHz 16-bit mono: 2 bytes a frame.
            let temporary = try XCTUnwrap(waitForTemporary(of: old, toHold: 600 * 8000 * 2 / 4, process: process),
                                          "busker live writes a temporary beside \(old)")
            XCTAssertEqual(kill(process.processIdentifier, signal), 0)
            process.waitUntilExit()
            _ = err.waitForEnd()
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            XCTAssertEqual(process.terminationReason, .exit, "\(name) is caught, not fatal")
            assertOneLineError(BuskerRun(status: process.terminationStatus, stdout: "", stderr: err.text), status: 1,
                               mentioning: "interrupted by \(name); \(old) was left as it was")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: old)), before, "\(old) is byte for byte as it was")
            XCTAssertFalse(FileManager.default.fileExists(atPath: temporary))
        }
    }

    /// `busker live` on files filling the disk: the old output kept, one line.
    func testALiveRunOnFilesOnAFullDiskLeavesTheOldOutputAsItWas() throws {
        let input = try writeSine("voice.wav", seconds: 60)
        try assertAFullDiskKeepsTheOldFile(named: "out.wav") { old in
            ["live", "--input", "file:" + input, "--output", "file:" + old, "-r", "8000", "--format", "s16"]
        }
    }

    /// A run that completes replaces the old file with the whole new one.
    func testACompleteRunReplacesTheOldFile() throws {
        let input = try writeSine("short.wav", seconds: 1)
        let old = try writeOldFile("replaced.wav")
        let r = try runBusker(["live", "--input", "file:" + input, "--output", "file:" + old, "-r", "8000", "--format", "s16", "-c", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let reader = try SoundFileReader(path: old)
        XCTAssertEqual(reader.sampleRate, 8000)
        XCTAssertEqual(reader.channelCount, 1)
        XCTAssertGreaterThanOrEqual(reader.frameCount, 8000)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["replaced.wav", "short.wav"],
                       "no temporary left beside it")
    }

    // MARK: SIGPIPE

    /// Standard output a pipe nobody reads: busker is not killed by SIGPIPE
    /// and still writes its file.
    func testAClosedOutputPipeDoesNotKillARender() throws {
        // The setup breaks the pipe: a program that keeps SIGPIPE's default action dies of it.
        // SIGPIPE back to its default and unblocked first: a test process that ignores it (as
        // busker's own code, run in-process by other tests, makes it) or a runner that blocks it
        // would pass that on to every child.
        let yes = Process()
        yes.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        yes.arguments = ["-c", Self.defaultSIGPIPEThenExec, "/usr/bin/yes", "yes"]
        let yesOut = Pipe()
        yes.standardOutput = yesOut
        try yes.run()
        try yesOut.fileHandleForReading.close()
        yes.waitUntilExit()
        XCTAssertEqual(yes.terminationReason, .uncaughtSignal)
        XCTAssertEqual(yes.terminationStatus, SIGPIPE)

        let input = try writeSine("piped.wav", seconds: 1)
        let output = folder + "/piped-out.wav"
        // Busker starts with SIGPIPE's default action too: it must ignore it itself.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.defaultSIGPIPEThenExec, buskerPath, "live", "--input", "file:" + input, "--output", "file:" + output, "-v"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The reader is gone before busker prints its first line.
        try out.fileHandleForReading.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "SIGPIPE is ignored")
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        XCTAssertGreaterThanOrEqual(try SoundFileReader(path: output).frameCount, 48000)
    }

    // MARK: Helpers

    /// A Python prelude that gives SIGPIPE its default action, unblocks it
    /// and runs `argv[1]` with `argv[1:]`: a child started so meets SIGPIPE
    /// as a program started from a shell does.
    private static let defaultSIGPIPEThenExec = """
        import os, signal, sys
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGPIPE])
        os.execv(sys.argv[1], sys.argv[1:])
        """

    /// A format-0 song: one piano note held 240 s at 120 BPM (1920 s at --tempo 0.125).
    private func writeLongSong() throws -> String {
        var song = GMTestSong()
        song.note(0, channel: 0, 60, length: 240)
        let path = folder + "/long.mid"
        try song.write(to: path, endSeconds: 240)
        return path
    }

    /// A finished WAV the user has (a sine at 8 kHz, 16-bit mono) under `name`.
    private func writeOldFile(_ name: String, seconds: Double = 2) throws -> String {
        let path = folder + "/" + name
        let writer = try SoundFileWriter(path: path, sampleRate: 8000, channelCount: 1, sampleFormat: .s16)
        let frames = Int(seconds * 8000)
        try writer.write(interleaved: (0..<frames).map { Float(0.25 * sin(2 * Double.pi * 330 * Double($0) / 8000)) })
        try writer.close()
        return path
    }

    /// A 440 Hz sine at 8 kHz, 16-bit mono.
    private func writeSine(_ name: String, seconds: Int) throws -> String {
        let path = folder + "/" + name
        let writer = try SoundFileWriter(path: path, sampleRate: 8000, channelCount: 1, sampleFormat: .s16)
        let second = (0..<8000).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / 8000)) }
        for _ in 0..<seconds { try writer.write(interleaved: second) }
        try writer.close()
        return path
    }

    /// The hidden temporary busker writes beside `target`, once it holds
    /// `bytes` (polled every 5 ms for at most 60 s while `process` runs).
    private func waitForTemporary(of target: String, toHold bytes: Int, process: Process) -> String? {
        let url = URL(fileURLWithPath: target)
        let prefix = "." + url.lastPathComponent + ".busker-"
        let dir = url.deletingLastPathComponent().path
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            if let name = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.first(where: { $0.hasPrefix(prefix) }) {
                let path = dir + "/" + name
                if ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) >= bytes { return path }
            }
            usleep(5000)
        }
        return nil
    }

    /// Runs busker with the arguments `arguments(old)` makes, writing over
    /// `old` (4 s of 8 kHz mono) on a full 1 MB tmpfs: exit 1, one line with
    /// the write error and that the old file was kept; the old file
    /// byte-identical, no temporary left.
    private func assertAFullDiskKeepsTheOldFile(named name: String, arguments: (String) -> [String],
                                                file: StaticString = #filePath, line: UInt = #line) throws {
        let disk = try mountSmallDisk(in: folder)
        defer { unmount(disk) }
        let old = try writeOldFile("disk/" + name, seconds: 4)
        let before = try Data(contentsOf: URL(fileURLWithPath: old))
        let r = try runBusker(arguments(old))
        assertOneLineError(r, status: 1, mentioning: "writing '\(old)' failed: ", file: file, line: line)
        XCTAssertTrue(r.stderr.hasSuffix("; \(old) was left as it was\n"), r.stderr, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: old)), before, file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), [name], "no temporary left", file: file, line: line)
    }
}
