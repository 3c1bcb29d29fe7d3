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
        let sequencer = try startA4Sequencer(environment: environment)
        defer { endProcess(sequencer) }
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
        return try XCTUnwrap(mostCommonRoundTrip(in: String(probe.out.text.dropFirst(start))), "no reading: \(probe.out.text) \(probe.err.text)")
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
    /// Records `ports` of the client together (one jack_rec client, one
    /// cycle for all) for two seconds; the channels, planar.
    private func record(_ ports: [String], into path: String, environment: [String: String]) throws -> [[Float]] {
        XCTAssertEqual(try runProgram("/usr/bin/jack_rec", ["-f", path, "-d", "2", "-b", "32"] + ports, environment: environment).status, 0)
        let reader = try SoundFileReader(path: path)
        let all = try reader.readAll()
        return (0..<reader.channelCount).map { c in stride(from: c, to: all.count, by: reader.channelCount).map { all[$0] } }
    }

    /// `--direct-outs`: a mono port per mic strip and a pair per part beside
    /// out_L/out_R. The keys' pair carries the piano; the strip's port is
    /// pre-fader and in time with out_L (out_L is the strip at the master
    /// volume, frame for frame) and has no limiter (the strip driven past full
    /// scale stays past it there).
    func testDirectOutsArePreFaderInTimeAndWithoutTheLimiter() throws {
        let card = try VirtualSoundCardFixture(name: "busker-jdirect")
        defer { try? card.stop() }
        let environment = jackClientEnvironment(server: card.serverName)
        let volume: Float = 0.25
        let (process, out, err) = try launchBusker(["live", "--driver", "jack", "--name", "busker-do", "--connect", "strip1=system:playback_2", "--no-tui",
                                                    "--instrument", "piano", "--soundfont", smallFont, "--midi", "none", "--direct-outs",
                                                    "--volume", String(volume), "--gain", "12", "--no-howl-guard"], environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running", timeout: 20), "the stage did not start: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("1 in / 7 out; strip1 → system:playback_2;"), "--connect patches a direct out: \(out.text)")
        let ports = try runProgram("/usr/bin/jack_lsp", ["-s", card.serverName]).stdout
        let mine = ports.split(separator: "\n").filter { $0.hasPrefix("busker-do:") }.map(String.init).sorted()
        XCTAssertEqual(mine, ["busker-do:drums_L", "busker-do:drums_R", "busker-do:in_1", "busker-do:keys_L", "busker-do:keys_R",
                              "busker-do:midi_in", "busker-do:out_L", "busker-do:out_R", "busker-do:strip1"])

        // The keys alone: A4 from jack_midiseq on keys_L, nothing on the strip's port.
        let sequencer = try startA4Sequencer(environment: environment)
        defer { endProcess(sequencer) }
        XCTAssertTrue(try connect("seq:out", "busker-do:midi_in", environment: environment))
        let keys = try record(["busker-do:keys_L", "busker-do:strip1"], into: card.directory.appendingPathComponent("keys.wav").path,
                              environment: environment)
        guard keys.count == 2 else { return XCTFail("two channels recorded") }
        XCTAssertGreaterThan(keys[0].map(abs).max() ?? 0, 1e-3, "the keys' direct out carries the piano")
        let loudest = stride(from: 0, to: 72_000, by: 4_800).max { a, b in
            keys[0][a..<(a + 24_000)].map(abs).max()! < keys[0][b..<(b + 24_000)].map(abs).max()!
        }!
        let pitch = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: keys[0][loudest..<(loudest + 24_000)],
                                                                  among: stride(from: 400.0, through: 480, by: 2), sampleRate: 48_000))
        XCTAssertEqual(pitch, 440, accuracy: 4.4, "A4 within 1 %")
        XCTAssertEqual(keys[1].map(abs).max() ?? 1, 0, "the strip's port carries nothing of the keys")
        sequencer.terminate()
        sequencer.waitUntilExit()

        // jack_iodelay's test tones (peak 0.29) into the strip at +12 dB: past full scale.
        let probe = try launchProgram("/usr/bin/jack_iodelay", [], environment: environment)
        defer {
            probe.process.interrupt()
            probe.process.waitUntilExit()
        }
        XCTAssertTrue(try connect("jack_delay:out", "busker-do:in_1", environment: environment))
        usleep(200_000)
        let loud = try record(["busker-do:out_L", "busker-do:strip1"], into: card.directory.appendingPathComponent("loud.wav").path,
                              environment: environment)
        guard loud.count == 2 else { return XCTFail("two channels recorded") }
        let (main, strip) = (loud[0], loud[1])
        // jack_rec's file holds full scale at most: fit out_L to the strip where the file did not clip it.
        func fit(lag: Int) -> (gain: Double, explained: Double) {
            var dot = 0.0, energy = 0.0, mainEnergy = 0.0
            for i in 256..<(main.count - 256) where abs(strip[i - lag]) < 0.99 {
                let k = Double(strip[i - lag]), m = Double(main[i])
                dot += m * k
                energy += k * k
                mainEnergy += m * m
            }
            return (dot / energy, dot * dot / (energy * mainEnergy))
        }
        let best = (-64...64).max { fit(lag: $0).explained < fit(lag: $1).explained }!
        let atZero = fit(lag: 0)
        let mainPeak = main.map(abs).max() ?? 0, stripPeak = strip.map(abs).max() ?? 0
        print(String(format: "direct out strip1 against out_L: best lag %d, out_L = strip1 %+.3f dB (%.6f explained); "
                     + "peaks: out_L %.3f, strip1 %.3f (the file's full scale), so strip1 reached %.3f", best, 20 * log10(atZero.gain),
                     atZero.explained, mainPeak, stripPeak, Double(mainPeak) / Double(volume)))
        XCTAssertEqual(best, 0, "the direct out is in time with out_L")
        // The master volume (0.25, −12.04 dB) is all there is between them: the direct out is pre-fader.
        XCTAssertEqual(20 * log10(atZero.gain), 20 * log10(Double(volume)), accuracy: 0.05)
        XCTAssertGreaterThan(atZero.explained, 0.9999, "out_L is the strip, nothing else")
        // No limiter on the direct out: the strip went past full scale (out_L / volume > 1), where a
        // limiter would have held it at −1 dBFS; out_L, at a quarter of it, needed none.
        XCTAssertGreaterThan(Double(mainPeak) / Double(volume), 1, "the strip past full scale")
        XCTAssertGreaterThan(stripPeak, 0.99, "its port carries it past the −1 dBFS a limiter would hold")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, err.text)
    }

    /// On a sound card, or on files, the option is a usage error in one line.
    func testDirectOutsAreForJACKOnly() throws {
        assertOneLineError(try runBusker(["live", "--direct-outs", "--input", "file:/nonexistent.wav", "--output", "file:/tmp/x.wav"]),
                           status: 2, mentioning: "--direct-outs is for --driver jack")
        assertOneLineError(try runBusker(["live", "--direct-outs", "--device", "null", "--no-tui"]), status: 2,
                           mentioning: "--direct-outs is for --driver jack")
    }
}
