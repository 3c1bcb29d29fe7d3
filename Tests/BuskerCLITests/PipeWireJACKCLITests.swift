import FileIO
import Foundation
import XCTest

/// `busker live --driver jack` on PipeWire's JACK API (`pw-jack`), headless:
/// a private PipeWire daemon (its own runtime folder; its configuration's
/// Dummy-Driver paces the graph, no session manager needed for a client that
/// patches itself) at a 64-frame quantum. Skipped where PipeWire or pw-jack
/// is not installed.
final class PipeWireJACKCLITests: XCTestCase {
    private var runtime: URL!
    private var daemon: pid_t = 0

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire")
                          && FileManager.default.isExecutableFile(atPath: "/usr/bin/pw-jack"),
                          "PipeWire or pw-jack is not installed (apt-get install pipewire pipewire-jack)")
        runtime = FileManager.default.temporaryDirectory.appendingPathComponent("busker-pw-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let pidFile = runtime.appendingPathComponent("pipewire.pid").path
        // Descriptors above 2 closed: the daemon must not hold a pipe of this test open.
        let script = """
        for fd in /proc/self/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null || true; fi; done
        export XDG_RUNTIME_DIR='\(runtime.path)' PIPEWIRE_RUNTIME_DIR='\(runtime.path)'
        setsid pipewire >'\(runtime.path)/pipewire.log' 2>&1 </dev/null &
        echo $! > '\(pidFile)'
        for _ in $(seq 100); do [ -S '\(runtime.path)/pipewire-0' ] && break; sleep 0.05; done
        """
        _ = try runProgram("/bin/bash", ["-c", script])
        daemon = pid_t(Int32((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0)
        try XCTSkipUnless(daemon > 0 && FileManager.default.fileExists(atPath: runtime.appendingPathComponent("pipewire-0").path),
                          "PipeWire did not start: \((try? String(contentsOf: runtime.appendingPathComponent("pipewire.log"), encoding: .utf8)) ?? "")")
    }

    override func tearDown() {
        if daemon > 0 { kill(daemon, SIGKILL) }
        if let runtime { try? FileManager.default.removeItem(at: runtime) }
    }

    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["PIPEWIRE_RUNTIME_DIR"] = runtime.path
        environment["PIPEWIRE_QUANTUM"] = "64/48000"
        environment.removeValue(forKey: "JACK_DEFAULT_SERVER")
        return environment
    }

    /// Busker runs on PipeWire's JACK API at the quantum asked for, its own
    /// latency (the limiter's 1 ms look-ahead: 48 frames) published where
    /// another client reads it; PipeWire killed (it tells its JACK clients
    /// nothing), the stall watch calls it lost: exit status 1 within 2 s, a
    /// last line saying so, the take a valid WAV.
    func testLiveRunsOnPipeWireAndALostDaemonEndsIt() throws {
        let takePath = runtime.appendingPathComponent("take.wav").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pw-jack")
        process.arguments = [buskerPath, "live", "--driver", "jack", "--no-tui", "--limiter-lookahead", "1", "--record=\(takePath)"]
        process.environment = environment
        let out = OutputCollector(), err = OutputCollector()
        process.standardOutput = out.pipe
        process.standardError = err.pipe
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start on PipeWire: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("48000 Hz, 64 frames per cycle"), out.text)
        XCTAssertTrue(out.text.contains(" + 48 Busker + "), out.text)
        // PipeWire publishes port latencies a moment after the client activates.
        var published = ""
        for _ in 0..<20 {
            published = try runProgram("/usr/bin/pw-jack", ["jack_lsp", "-l", "busker:out_L"], environment: environment).stdout
            if published.contains("port capture latency = [ 48 48 ] frames") { break }
            usleep(100_000)
        }
        XCTAssertTrue(published.contains("port capture latency = [ 48 48 ] frames"), published)
        usleep(500_000)

        let killed = Date()
        XCTAssertEqual(kill(daemon, SIGKILL), 0)
        daemon = 0
        let deadline = killed.addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        let stopDelay = Date().timeIntervalSince(killed)
        XCTAssertFalse(process.isRunning, "busker live still runs 10 s after PipeWire was killed (hang)")
        guard !process.isRunning else { return }
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd())
        print(String(format: "busker live --driver jack on PipeWire after SIGKILL of pipewire: exited in %.3f s, status %d",
                     stopDelay, process.terminationStatus))
        XCTAssertLessThan(stopDelay, 2)
        XCTAssertEqual(process.terminationStatus, 1, err.text)
        let line = err.text.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(line.hasPrefix("busker: stopped: device lost: ") && line.contains("jack:default"), line)
        let take = try SoundFileReader(path: takePath)
        XCTAssertEqual(take.sampleRate, 48_000)
        XCTAssertEqual(take.channelCount, 2)
        XCTAssertGreaterThan(take.frameCount, 24_000, "the take holds the half second and more before the loss")
    }
}
