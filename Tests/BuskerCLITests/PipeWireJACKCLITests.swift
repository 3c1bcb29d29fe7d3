import AudioFiles
import Foundation
import XCTest

/// `busker live --driver jack` on PipeWire's JACK API (`pw-jack`), headless:
/// a private PipeWire daemon from `Tools/pipewire-headless` (its own runtime
/// folder; PipeWire's Dummy-Driver paces the graph; a null sink with physical
/// playback ports stands in for the speakers; no session manager) at a
/// 64-frame quantum. Skipped where PipeWire or pw-jack is not installed.
final class PipeWireJACKCLITests: XCTestCase {
    private var serverName = ""
    private var daemon: pid_t = 0
    private var folder: URL { FileManager.default.temporaryDirectory.appendingPathComponent("busker-pipewire-\(serverName)") }
    private static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/pipewire-headless").path

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/pipewire")
                          && FileManager.default.isExecutableFile(atPath: "/usr/bin/pw-jack"),
                          "PipeWire or pw-jack is not installed (apt-get install pipewire pipewire-jack)")
        serverName = "t\(getpid())-\(UUID().uuidString.prefix(6))"
        let started = try runProgram(Self.tool, ["start", "--name", serverName, "--quantum", "64"])
        daemon = pid_t(Int32((try? String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0)
        try XCTSkipUnless(started.status == 0 && daemon > 0, "PipeWire did not start: \(started.stderr)")
    }

    override func tearDown() {
        _ = try? runProgram(Self.tool, ["stop", "--name", serverName])
        try? FileManager.default.removeItem(at: folder)
    }

    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PIPEWIRE_RUNTIME_DIR"] = folder.path
        environment["PIPEWIRE_REMOTE"] = "busker-\(serverName)"
        environment["PIPEWIRE_QUANTUM"] = "64/48000"
        environment.removeValue(forKey: "JACK_DEFAULT_SERVER")
        return environment
    }

    /// Runs `pw-jack` with `arguments` in this PipeWire's environment, in the background.
    private func launch(_ arguments: [String]) throws -> (process: Process, out: OutputCollector, err: OutputCollector) {
        try launchProgram("/usr/bin/pw-jack", arguments, environment: environment)
    }

    /// The round trip jack_iodelay reads most often over 3 s, in frames, with
    /// its ports patched by `patch` (pairs of source and destination).
    private func iodelayRoundTrip(patch: [(String, String)]) throws -> Double {
        let probe = try launch(["stdbuf", "-oL", "jack_iodelay"])
        defer { probe.process.interrupt(); probe.process.waitUntilExit() }
        XCTAssertTrue(probe.out.waitFor("Signal below threshold") || probe.out.waitFor("extra loopback"), probe.out.text + probe.err.text)
        for (from, to) in patch {
            XCTAssertEqual(try runProgram("/usr/bin/pw-jack", ["jack_connect", from, to], environment: environment).status, 0, "\(from) → \(to)")
        }
        let start = probe.out.text.count
        usleep(3_000_000)
        return try XCTUnwrap(mostCommonRoundTrip(in: String(probe.out.text.dropFirst(start))), "no reading: \(probe.out.text)")
    }

    /// On PipeWire as on jackd: `--connect auto` patches out_L and out_R to the
    /// first physical playback ports (the null sink's), and the round trip
    /// from jack_iodelay through Busker (the guard on, the limiter without
    /// look-ahead) and back is one quantum and the limiter's 12 frames of true
    /// peak: a loop between two clients closes through the next cycle, and
    /// Busker buffers nothing else of its own. (PipeWire
    /// closes jack_iodelay's loop on itself within the cycle, 0 frames, so it
    /// is no reference here, unlike jackd's 64.)
    func testConnectAutoAndTheRoundTripIsOneQuantum() throws {
        let busker = try launch([buskerPath, "live", "--driver", "jack", "--no-tui", "--limiter-lookahead", "0"])
        defer { busker.process.interrupt(); busker.process.waitUntilExit() }
        XCTAssertTrue(busker.out.waitFor("] running"), "busker live did not start on PipeWire: \(busker.out.text) \(busker.err.text)")
        XCTAssertTrue(busker.out.text.contains("out_L → dummy_sink:playback_FL, out_R → dummy_sink:playback_FR"), busker.out.text)
        let through = try iodelayRoundTrip(patch: [("jack_delay:out", "busker:in_1"), ("busker:out_L", "jack_delay:in")])
        print(String(format: "PipeWire at 64/48000: jack_iodelay round trip through busker live %.3f frames", through))
        XCTAssertEqual(through, 64 + 12, accuracy: 0.5, "one quantum and the limiter's true peak, nothing else of Busker's own")
    }

    /// Busker runs on PipeWire's JACK API at the quantum asked for, its own
    /// latency (the limiter's 1 ms look-ahead and 12 frames of true peak: 60) published where
    /// another client reads it; PipeWire killed (it tells its JACK clients
    /// nothing), the stall watch calls it lost: exit status 1 within 2 s, a
    /// last line saying so, the take a valid WAV.
    func testLiveRunsOnPipeWireAndALostDaemonEndsIt() throws {
        let takePath = folder.appendingPathComponent("take.wav").path
        let (process, out, err) = try launch([buskerPath, "live", "--driver", "jack", "--no-tui", "--limiter-lookahead", "1",
                                              "--record=\(takePath)"])
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start on PipeWire: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("48000 Hz, 64 frames per cycle"), out.text)
        XCTAssertTrue(out.text.contains(" + 60 Busker + "), out.text)
        // PipeWire publishes port latencies a moment after the client activates.
        var published = ""
        for _ in 0..<20 {
            published = try runProgram("/usr/bin/pw-jack", ["jack_lsp", "-l", "busker:out_L"], environment: environment).stdout
            if published.contains("port capture latency = [ 60 60 ] frames") { break }
            usleep(100_000)
        }
        XCTAssertTrue(published.contains("port capture latency = [ 60 60 ] frames"), published)
        usleep(500_000)

        let killed = Date()
        XCTAssertEqual(kill(daemon, SIGKILL), 0)
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

    /// `busker play --driver jack` on PipeWire: `jack_midiseq` (through
    /// pw-jack) strikes A4 every second into `midi_in`; `jack_rec` records
    /// out_L: the notes sound at A4's pitch, and Ctrl-C ends the session
    /// with status 0.
    func testPlaySoundsTheNotesSentToMidiIn() throws {
        for tool in ["jack_midiseq", "jack_rec", "jack_connect"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"), "\(tool) is not installed")
        }
        let (process, out, err) = try launch([buskerPath, "play", "--driver", "jack", "--name", "busker-play", "--connect", "none",
                                              "--no-tui", "--midi", "none", "--soundfont", "/usr/share/sounds/sf2/TimGM6mb.sf2",
                                              "--no-drums"])
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker play did not start on PipeWire: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("MIDI in on busker-play:midi_in"), out.text)
        let sequencer = try launch(["jack_midiseq", "seq", "48000", "0", "69", "47000"])
        defer { sequencer.process.terminate(); sequencer.process.waitUntilExit() }
        let deadline = Date().addingTimeInterval(10)
        var connected = false
        while !connected && Date() < deadline {
            connected = try runProgram("/usr/bin/pw-jack", ["jack_connect", "seq:out", "busker-play:midi_in"],
                                       environment: environment).status == 0
            if !connected { usleep(50_000) }
        }
        XCTAssertTrue(connected, "jack_connect seq:out busker-play:midi_in")
        let held = folder.appendingPathComponent("held.wav").path
        XCTAssertEqual(try runProgram("/usr/bin/pw-jack", ["jack_rec", "-f", held, "-d", "2", "-b", "32", "-B", "262144",
                                                           "busker-play:out_L"],
                                      environment: environment).status, 0)
        let playing = try SoundFileReader(path: held).readAll()
        XCTAssertEqual(playing.count, 96_000)
        let peak = playing.map(abs).max() ?? 0
        print("busker play --driver jack on PipeWire, A4 from jack_midiseq: peak \(20 * log10(Double(peak))) dBFS")
        XCTAssertGreaterThan(peak, 1e-3, "the notes sent to midi_in were played")
        // The pitch of every quarter second that sounds, and their median: a window
        // spanning a strike, or a dropout of a stalled host, does not decide it.
        let pitches = stride(from: 0, to: playing.count - 12_000, by: 4_800).compactMap { start -> Double? in
            let window = playing[start..<(start + 12_000)]
            guard window.map(abs).max() ?? 0 > 1e-3 else { return nil }
            return ToneAnalysis.strongestFrequency(in: window, among: stride(from: 400.0, through: 480, by: 2), sampleRate: 48_000)
        }.sorted()
        XCTAssertGreaterThanOrEqual(pitches.count, 5, "quarter seconds that sound")
        let pitch = pitches.isEmpty ? 0 : pitches[pitches.count / 2]
        print("pitches of the quarter seconds: \(pitches)")
        XCTAssertEqual(pitch, 440, accuracy: 4.4, "A4 within 1 % (the median quarter second)")
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd())
        XCTAssertEqual(process.terminationStatus, 0, err.text)
    }
}
