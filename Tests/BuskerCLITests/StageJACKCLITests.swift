import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// The stage as a JACK client (`busker live --driver jack --instrument …`)
/// on a private JACK server (the dummy driver at 64-frame cycles): one
/// client with a port per mic strip, `midi_in` playing the instruments and
/// `out_L`/`out_R`; jackd2's `jack_midiseq` plays the sampler through
/// `midi_in`; `jack_iodelay`'s round trip through the mic strip is the same
/// with the instruments as without.
final class StageJACKCLITests: XCTestCase {
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws {
        for tool in ["jack_midiseq", "jack_rec", "jack_connect", "jack_lsp", "jack_iodelay", "stdbuf"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"), "\(tool) is not installed")
        }
        try XCTSkipUnless(FileManager.default.fileExists(atPath: smallFont), "TimGM6mb is not installed (apt-get install timgm6mb-soundfont)")
    }

    /// Connects `from` to `to`, asking again while the client that owns
    /// `from` is still activating; whether it connected.
    private func connect(_ from: String, _ to: String, environment: [String: String]) throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try runProgram("/usr/bin/jack_connect", [from, to], environment: environment).status == 0 { return true }
            usleep(50_000)
        }
        return false
    }

    func testPortsPerStripAndMidiInPlaysThePiano() throws {
        let card = try VirtualSoundCardFixture(name: "busker-jstage")
        defer { try? card.stop() }
        let environment = jackClientEnvironment(server: card.serverName)
        let (process, out, err) = try launchBusker(["live", "--driver", "jack", "--name", "busker-stage", "--connect", "none", "--no-tui",
                                                    "--inputs", "1,2", "--instrument", "piano", "--soundfont", smallFont,
                                                    "--midi", "none", "--volume", "1"], environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running", timeout: 20), "the stage did not start: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("busker live: MIDI in on busker-stage:midi_in"), out.text)
        XCTAssertTrue(out.text.contains("keys: "), out.text)
        let ports = try runProgram("/usr/bin/jack_lsp", ["-s", card.serverName]).stdout
        let mine = ports.split(separator: "\n").filter { $0.hasPrefix("busker-stage:") }.map(String.init).sorted()
        XCTAssertEqual(mine, ["busker-stage:in_1", "busker-stage:in_2", "busker-stage:midi_in", "busker-stage:out_L", "busker-stage:out_R"],
                       "one client: a port per strip, midi_in, out_L and out_R")

        // A4 struck every second and held for 47000 of its 48000 frames, into midi_in.
        let sequencer = Process()
        sequencer.executableURL = URL(fileURLWithPath: "/usr/bin/jack_midiseq")
        sequencer.arguments = ["seq", "48000", "0", "69", "47000"]
        sequencer.environment = environment
        sequencer.standardOutput = FileHandle.nullDevice
        sequencer.standardError = FileHandle.nullDevice
        try sequencer.run()
        defer {
            if sequencer.isRunning { sequencer.terminate() }
            sequencer.waitUntilExit()
        }
        XCTAssertTrue(try connect("seq:out", "busker-stage:midi_in", environment: environment), "jack_connect seq:out busker-stage:midi_in")
        let held = card.directory.appendingPathComponent("held.wav").path
        XCTAssertEqual(try runProgram("/usr/bin/jack_rec", ["-f", held, "-d", "2", "-b", "32", "busker-stage:out_L"],
                                      environment: environment).status, 0)
        let playing = try SoundFileReader(path: held).readAll()
        XCTAssertEqual(playing.count, 96_000)
        let peak = playing.map(abs).max() ?? 0
        print("busker live --driver jack --instrument piano, A4 from jack_midiseq into midi_in: peak \(20 * log10(Double(peak))) dBFS")
        XCTAssertGreaterThan(peak, 1e-3, "the notes sent to midi_in were played")
        // The loudest half second is A4 (within 1 %).
        let loudest = stride(from: 0, to: 72_000, by: 4_800).max { a, b in
            playing[a..<(a + 24_000)].map(abs).max()! < playing[b..<(b + 24_000)].map(abs).max()!
        }!
        let pitch = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: playing[loudest..<(loudest + 24_000)],
                                                                  among: stride(from: 400.0, through: 480, by: 2), sampleRate: 48_000))
        XCTAssertEqual(pitch, 440, accuracy: 4.4, "A4 within 1 %")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd())
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertTrue(out.text.contains("stopped by SIGINT"), out.text)
    }

    /// The round trip `jack_iodelay` reads most often over 3 s through
    /// `busker live --driver jack` with `extra` options: jack_delay:out →
    /// in_1 → the mic strip → out_L → jack_delay:in.
    private func roundTrip(server: String, extra: [String]) throws -> Double {
        let environment = jackClientEnvironment(server: server)
        let busker = try launchBusker(["live", "--driver", "jack", "--name", "busker-rt", "--connect", "none", "--no-tui",
                                       "--limiter-lookahead", "0", "--midi", "none", "--volume", "1"] + extra, environment: environment)
        defer {
            if busker.process.isRunning { busker.process.interrupt() }
            busker.process.waitUntilExit()
        }
        XCTAssertTrue(busker.out.waitFor("] running", timeout: 20), "busker live did not start: \(busker.out.text) \(busker.err.text)")
        let probe = try launchProgram("/usr/bin/stdbuf", ["-oL", "jack_iodelay"], environment: environment)
        defer {
            probe.process.interrupt()
            probe.process.waitUntilExit()
        }
        XCTAssertTrue(try connect("jack_delay:out", "busker-rt:in_1", environment: environment))
        XCTAssertTrue(try connect("busker-rt:out_L", "jack_delay:in", environment: environment))
        let start = probe.out.text.count
        usleep(3_000_000)
        let readings = String(probe.out.text.dropFirst(start)).split(whereSeparator: { $0 == "\r" || $0 == "\n" })
            .compactMap { line -> Double? in
                guard line.contains("total roundtrip latency") else { return nil }
                return Double(line.split(separator: " ").first ?? "")
            }
        let counts = Dictionary(grouping: readings, by: { $0 }).mapValues(\.count)
        return try XCTUnwrap(counts.max { $0.value < $1.value }?.key, "no reading: \(probe.out.text) \(probe.err.text)")
    }

    /// Busker's latency is whole frames: half a frame tells a change from the reading's own decimals.
    func testTheRoundTripThroughTheMicStripIsTheSameWithTheInstruments() throws {
        let card = try VirtualSoundCardFixture(name: "busker-jstage-rt")
        defer { try? card.stop() }
        let alone = try roundTrip(server: card.serverName, extra: [])
        let stage = try roundTrip(server: card.serverName, extra: ["--instrument", "piano", "--soundfont", smallFont])
        print(String(format: "jack_iodelay round trip through busker live: %.3f frames alone, %.3f frames on the stage", alone, stage))
        XCTAssertEqual(stage, alone, accuracy: 0.5, "the instruments add nothing to the mic's path")
        // One cycle (a loop between two clients closes in the next) and the limiter's true peak.
        XCTAssertEqual(alone, 64 + 12, accuracy: 0.5)
    }
}
