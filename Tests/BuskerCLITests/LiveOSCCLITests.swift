import AudioFiles
import Chains
import CommandLineInterface
import Control
import Foundation
import RenderTestSupport
import Sessions
import XCTest

/// `busker live --osc PORT` end to end, on the virtual sound card with the
/// ALSA `file` plugin feeding a two-tone "mic" (100 Hz and 3 kHz) into the
/// capture and keeping a copy of everything played: messages sent with
/// liblo's `oscsend` change the volume, strip 1's bass and the mic, measured
/// in what was played; a control surface's query is answered to it and
/// nothing else is sent; 5,000 bad datagrams change nothing; and without
/// `--osc` no UDP socket is open at all.
final class LiveOSCCLITests: XCTestCase {
    private let rate = 48_000
    /// 100 ms: a whole number of periods of both tones, so each window's level is exact.
    private let window = 4_800
    private let low = 100.0, high = 3_000.0

    private func twoTones(seconds: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: rate * seconds * 2)
        for n in 0..<(rate * seconds) {
            let t = Double(n) / Double(rate)
            let x = Float(0.25 * sin(2 * .pi * low * t) + 0.25 * sin(2 * .pi * high * t))
            samples[2 * n] = x
            samples[2 * n + 1] = x
        }
        return samples
    }

    /// The amplitude of `frequency` in `samples` (a whole number of its periods).
    private func amplitude(_ samples: ArraySlice<Float>, _ frequency: Double) -> Double {
        2 * ToneAnalysis.magnitude(of: samples, at: frequency, sampleRate: Double(rate)) / Double(samples.count)
    }

    /// The amplitude of a tone near `frequency`, played through a device
    /// whose clock Busker follows by resampling (the virtual card's capture and
    /// playback are two clocks): on a loaded host the correction moves 3 kHz
    /// by several Hz for a while, out of an exact-frequency measurement's
    /// 10 Hz wide main lobe. So the strongest of the frequencies within ±1 %,
    /// in 0.025 % steps (Goertzel; scalloping ≤ 0.03 dB at 3 kHz).
    private func playedAmplitude(_ samples: ArraySlice<Float>, _ frequency: Double) -> Double {
        var best = 0.0
        for step in -40...40 {
            let w = 2 * Double.pi * frequency * (1 + Double(step) * 0.00025) / Double(rate)
            let coefficient = 2 * cos(w)
            var s1 = 0.0, s2 = 0.0
            for x in samples {
                let s0 = Double(x) + coefficient * s1 - s2
                s2 = s1
                s1 = s0
            }
            let power = max(0, s1 * s1 + s2 * s2 - coefficient * s1 * s2)
            best = max(best, 2 * power.squareRoot() / Double(samples.count))
        }
        return best
    }

    private func dB(_ ratio: Double) -> Double { 20 * log10(ratio) }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// The card with `busker_mic` (reads `tone`) and `busker_tap` (writes `tap`).
    private func card(name: String, tone: [Float]) throws -> (VirtualSoundCardFixture, tap: String) {
        let card = try VirtualSoundCardFixture(name: name)
        let toneURL = card.directory.appendingPathComponent("tone.raw")
        try tone.withUnsafeBytes { try Data($0).write(to: toneURL) }
        let tap = card.directory.appendingPathComponent("played.raw").path
        try (card.asoundrc() + """

            pcm.busker_mic {
                type file
                slave.pcm "busker_in"
                file "/dev/null"
                infile "\(toneURL.path)"
                format "raw"
            }
            pcm.busker_tap {
                type file
                slave.pcm "busker_out"
                file "\(tap)"
                format "raw"
            }
            """).write(to: card.asoundrcURL, atomically: true, encoding: .utf8)
        return (card, tap)
    }

    private func leftChannel(of path: String) throws -> [Float] {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count / 8 * 8, by: 8).map { raw.loadUnaligned(fromByteOffset: $0, as: Float.self) }
        }
    }

    private func oscsend(_ port: Int, _ address: String, _ type: String, _ value: String) throws {
        let r = try runProgram("/usr/bin/oscsend", ["127.0.0.1", String(port), address, type, value])
        XCTAssertEqual(r.status, 0, "oscsend \(address): \(r.stderr)")
    }

    /// What strip 1's bass +12 dB does to each tone at volume 0.15, from the
    /// same chain run offline over a file: the change the OSC message must make live.
    private func offlineBassGain(tone: [Float], in directory: URL) throws -> (low: Double, high: Double) {
        let input = directory.appendingPathComponent("tone.wav").path
        let writer = try SoundFileWriter(path: input, sampleRate: rate, channelCount: 2, sampleFormat: .f32)
        try writer.write(interleaved: Array(tone.prefix(rate * 2 * 2)))
        try writer.close()
        var levels: [[Double]] = []
        for extra in [[], ["--bass", "12"]] {
            let output = directory.appendingPathComponent("offline\(levels.count).wav").path
            let r = try runBusker(["live", "--input", "file:" + input, "--output", "file:" + output, "--format", "f32",
                                   "--volume", "0.15", "--no-howl-guard"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let all = try SoundFileReader(path: output).readAll()
            let left = stride(from: 0, to: all.count, by: 2).map { all[$0] }
            let steady = left[(rate / 2)..<(rate / 2 + 5 * window)]
            levels.append([amplitude(steady, low), amplitude(steady, high)])
        }
        return (dB(levels[1][0] / levels[0][0]), dB(levels[1][1] / levels[0][1]))
    }

    func testOscsendChangesTheVolumeAStripsBassAndTheMicInWhatIsPlayed() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/oscsend"), "oscsend is not installed (apt-get install liblo-tools)")
        let tone = twoTones(seconds: 30)
        let (card, tap) = try card(name: "busker-osc", tone: tone)
        defer { try? card.stop() }
        let expectedBass = try offlineBassGain(tone: tone, in: card.directory)
        XCTAssertGreaterThan(expectedBass.low, 6, "bass +12 dB lifts 100 Hz")
        let port = try OSCTestClient.freePort()

        // The howl guard would rightly notch a steady sine; it is not what this test is about.
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--no-howl-guard", "--midi", "none", "--osc", String(port)],
                                                   on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("busker live ended early: \(err.text)") }
        XCTAssertTrue(out.text.contains("OSC on 127.0.0.1 port \(port) (UDP)"), out.text)

        // Two seconds between messages: each setting's plateau (20 windows) must outlast the
        // five windows the next change is measured against even when a host stall delays a
        // message or drops played frames.
        usleep(1_500_000)
        try oscsend(port, "/busker/volume", "f", "0.15")
        usleep(2_000_000)
        try oscsend(port, "/busker/strip/1/bass", "f", "12")
        usleep(2_000_000)
        try oscsend(port, "/busker/mic", "i", "0")
        usleep(1_200_000)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        let text = out.text
        for line in ["OSC: /busker/volume → volume 0.15", "OSC: /busker/strip/1/bass → strip 1 bass 12.0 dB", "OSC: /busker/mic → mic off",
                     "OSC: 3 messages: 3 applied, 0 answered, 0 unknown addresses, 0 refused; 0 malformed"] {
            XCTAssertTrue(text.contains(line), "no '\(line)' in: \(text)")
        }

        // Each tone's level in every 100 ms of what was played (left channel).
        let left = try leftChannel(of: tap)
        let windows = stride(from: 0, to: left.count - window, by: window).map { left[$0..<($0 + window)] }
        let lows = windows.map { playedAmplitude($0, low) }, highs = windows.map { playedAmplitude($0, high) }
        let onset = try XCTUnwrap(highs.firstIndex { $0 > 1e-3 }, "the tones were played")
        // A loaded host's glitches (an xrun's gap, the resampler moving the
        // pitch) only ever lower a window's level: each setting's level is
        // the highest window of its plateau, and a change is three windows in a row.
        func level(_ levels: [Double], _ range: Range<Int>) -> Double { levels[range].max() ?? 0 }
        func firstRun(from start: Int, _ condition: (Int) -> Bool) -> Int? {
            (start..<max(start, highs.count - 2)).first { condition($0) && condition($0 + 1) && condition($0 + 2) }
        }
        let firstHigh = level(highs, (onset + 3)..<(onset + 8))
        // The volume message: both tones fall together.
        let volume = try XCTUnwrap(firstRun(from: onset + 3) { highs[$0] < firstHigh * 0.7 }, "the volume never fell")
        guard volume - 1 > onset + 3 else { return XCTFail("the volume fell \(volume - onset) windows after the onset: no plateau before it") }
        let baseLow = level(lows, (onset + 3)..<(volume - 1)), baseHigh = level(highs, (onset + 3)..<(volume - 1))
        // The bass message: 100 Hz rises, 3 kHz stays.
        let bass = try XCTUnwrap(firstRun(from: volume + 2) { lows[$0] > level(lows, (volume + 2)..<(volume + 5)) * 1.4 },
                                 "the bass never rose")
        guard bass - 1 > volume + 2 else { return XCTFail("the bass rose \(bass - volume) windows after the volume fell: no plateau between") }
        let volumeLow = level(lows, (volume + 2)..<(bass - 1)), volumeHigh = level(highs, (volume + 2)..<(bass - 1))
        // The mic message: silence from some window to the end.
        let lastSound = try XCTUnwrap(highs.indices.last { highs[$0] >= 1e-5 || lows[$0] >= 1e-5 })
        let off = lastSound + 1
        XCTAssertGreaterThan(off, bass + 5, "the mic went off after the bass plateau")
        let bassLow = level(lows, (bass + 2)..<(off - 2)), bassHigh = level(highs, (bass + 2)..<(off - 2))
        let silence = left[(off * window)...].reduce(Float(0)) { max($0, abs($1)) }
        print("volume 0.3 → 0.15: \(dB(volumeLow / baseLow)) dB at 100 Hz, \(dB(volumeHigh / baseHigh)) dB at 3 kHz; "
              + "bass +12: \(dB(bassLow / volumeLow)) dB at 100 Hz (offline \(expectedBass.low)), \(dB(bassHigh / volumeHigh)) dB at 3 kHz "
              + "(offline \(expectedBass.high)); mic off: peak \(silence) over \(left.count / window - off) windows")
        XCTAssertEqual(dB(volumeHigh / baseHigh), dB(0.15 / 0.3), accuracy: 0.2)
        XCTAssertEqual(dB(volumeLow / baseLow), dB(0.15 / 0.3), accuracy: 0.2)
        XCTAssertEqual(dB(bassLow / volumeLow), expectedBass.low, accuracy: 0.3)
        XCTAssertEqual(dB(bassHigh / volumeHigh), expectedBass.high, accuracy: 0.3)
        XCTAssertGreaterThanOrEqual(left.count / window - off, 5, "at least half a second of the mic off was played")
        XCTAssertLessThan(silence, 1e-6, "the mic off is silence")
    }

    func testASurfaceGetsAnswersOnlyToWhatItAsksAndBadDatagramsChangeNothing() throws {
        let (card, tap) = try card(name: "busker-oscq", tone: twoTones(seconds: 30))
        defer { try? card.stop() }
        let port = try OSCTestClient.freePort()
        // Two presets: one for these two strips, one for a single strip (which this session cannot load).
        let config = card.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("busker"), withIntermediateDirectories: true)
        let quiet = try LiveSettings(commandLine: ["--inputs", "1,2", "--volume", "0.1", "--strip", "2:treble=-3"])
        try LivePreset(settings: quiet).text.write(to: config.appendingPathComponent("busker/quiet.preset"), atomically: true, encoding: .utf8)
        try LivePreset(settings: LiveSettings()).text.write(to: config.appendingPathComponent("busker/solo.preset"),
                                                             atomically: true, encoding: .utf8)
        var environment = alsaEnvironment(of: card)
        environment["XDG_CONFIG_HOME"] = config.path
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--no-howl-guard", "--midi", "none", "--osc", String(port),
                                                    "--inputs", "1,2"],
                                                   environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("busker live ended early: \(err.text)") }

        // Listening on the loopback address only.
        let sockets = udpSockets(of: process.processIdentifier)
        XCTAssertEqual(sockets.map(\.local), [String(format: "0100007F:%04X", port)], "\(sockets)")

        // Settings sent: nothing comes back.
        let surface = try OSCTestClient()
        surface.send(OSCMessage("/busker/volume", [.float32(0.2)]), to: port)
        surface.send(OSCMessage("/busker/strip/2/pan", [.float32(-0.5)]), to: port)
        surface.send(OSCMessage("/busker/strip/1/mute", [.true]), to: port)
        XCTAssertEqual(surface.receive(for: 0.5), [], "nothing is sent unasked")

        // 5,000 bad datagrams from another port: random bytes, wrong types,
        // values out of range, strips the session lacks, unknown addresses.
        var seed: UInt64 = 5
        func next() -> UInt64 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return seed >> 33
        }
        let fuzzer = try OSCTestClient()
        let bad: [OSCMessage] = [
            OSCMessage("/busker/volume", [.float32(1.5)]), OSCMessage("/busker/volume", [.float32(.nan)]),
            OSCMessage("/busker/volume", [.string("loud")]), OSCMessage("/busker/mic", [.int32(7)]),
            OSCMessage("/busker/strip/1/gain", [.float64(1e300)]), OSCMessage("/busker/strip/3/gain", [.float32(0)]),
            OSCMessage("/busker/strip/2/bass", [.float32(1), .float32(2)]), OSCMessage("/busker/strip/1/mute", [.float32(0.5)]),
            OSCMessage("/busker/preset", [.string("../../etc/passwd")]), OSCMessage("/busker/strip/1/boost", [.float32(3)]),
            OSCMessage("/mixer/volume", [.float32(0)]), OSCMessage("/busker/mic/", [.int32(0)]),
        ]
        let sent = 5_000
        for i in 0..<sent {
            if i % 2 == 0 {
                fuzzer.send((0..<Int(next() % 96)).map { _ in UInt8(truncatingIfNeeded: next()) }, to: port)
            } else {
                fuzzer.send(bad[Int(next()) % bad.count], to: port)
            }
            if i % 50 == 49 { usleep(3_000) }  // a surface's pace, not a flood the kernel drops
        }
        XCTAssertEqual(fuzzer.receive(for: 0.3), [], "bad datagrams get no answer")
        XCTAssertTrue(process.isRunning, "busker live survived: \(err.text)")

        // The state, asked for: what the three settings made, nothing from the fuzz.
        surface.send(OSCMessage("/busker/state"), to: port)
        let state = surface.receive(for: 1)
        let expected: [OSCMessage] = [
            OSCMessage("/busker/strips", [.int32(2)]), OSCMessage("/busker/mic", [.int32(1)]),
            OSCMessage("/busker/volume", [.float32(0.2)]), OSCMessage("/busker/preset", [.string("")]),
            OSCMessage("/busker/strip/1/gain", [.float32(0)]), OSCMessage("/busker/strip/1/pan", [.float32(0)]),
            OSCMessage("/busker/strip/1/mute", [.int32(1)]), OSCMessage("/busker/strip/1/bass", [.float32(0)]),
            OSCMessage("/busker/strip/1/treble", [.float32(0)]), OSCMessage("/busker/strip/1/reverb", [.float32(0)]),
            OSCMessage("/busker/strip/2/gain", [.float32(0)]), OSCMessage("/busker/strip/2/pan", [.float32(-0.5)]),
            OSCMessage("/busker/strip/2/mute", [.int32(0)]), OSCMessage("/busker/strip/2/bass", [.float32(0)]),
            OSCMessage("/busker/strip/2/treble", [.float32(0)]), OSCMessage("/busker/strip/2/reverb", [.float32(0)]),
        ]
        XCTAssertEqual(state, expected)
        surface.send(OSCMessage("/busker/volume"), to: port)
        XCTAssertEqual(surface.receive(for: 0.5), [OSCMessage("/busker/volume", [.float32(0.2)])])

        // A preset for other strips is refused; one for these is loaded, and named.
        surface.send(OSCMessage("/busker/preset", [.string("solo")]), to: port)
        surface.send(OSCMessage("/busker/preset", [.string("quiet")]), to: port)
        XCTAssertEqual(surface.receive(for: 0.5), [], "loading answers nothing")
        surface.send(OSCMessage("/busker/state"), to: port)
        var loaded = expected
        loaded[2] = OSCMessage("/busker/volume", [.float32(0.1)])
        loaded[3] = OSCMessage("/busker/preset", [.string("quiet")])
        loaded[6] = OSCMessage("/busker/strip/1/mute", [.int32(0)])
        loaded[11] = OSCMessage("/busker/strip/2/pan", [.float32(0)])
        loaded[14] = OSCMessage("/busker/strip/2/treble", [.float32(-3)])
        XCTAssertEqual(surface.receive(for: 1), loaded)

        usleep(300_000)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertTrue(out.text.contains("OSC: /busker/preset solo: refused, its strips differ from this session's"), out.text)
        XCTAssertTrue(out.text.contains("OSC: /busker/preset → preset quiet"), out.text)
        // The counts: three settings, a preset and three queries taken; every bad message counted, none applied.
        let summary = try XCTUnwrap(out.text.split(separator: "\n").last { $0.contains("OSC: ") && $0.contains(" messages: ") })
        print(summary)
        let numbers = summary.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        XCTAssertEqual(numbers.count, 6, String(summary))
        let (received, applied, answered, unknown, refused, malformed) = (numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5])
        XCTAssertEqual(applied, 4)
        XCTAssertEqual(answered, 3)
        XCTAssertEqual(received, applied + answered + unknown + refused)
        // UDP may drop datagrams on a loaded host; most must have been read and counted.
        XCTAssertGreaterThan(unknown + refused + malformed, sent / 2, "the bad datagrams were read and counted")
        XCTAssertGreaterThan(try leftChannel(of: tap).count, rate, "audio ran")
    }

    func testWithoutOSCNoUDPSocketIsOpen() throws {
        let (card, _) = try card(name: "busker-noosc", tone: twoTones(seconds: 10))
        defer { try? card.stop() }
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--midi", "none"], on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        XCTAssertEqual(udpSockets(of: process.processIdentifier).map(\.local), [])
        XCTAssertFalse(out.text.contains("OSC"), out.text)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, err.text)
    }

    func testBadOSCOptionsAreOneLineErrors() throws {
        let taken = try OSCTestClient()
        let base = ["live", "--no-tui", "--midi", "none", "--device", "null"]
        assertOneLineError(try runBusker(base + ["--osc", "0"]), status: 2, mentioning: "--osc")
        assertOneLineError(try runBusker(base + ["--osc", "nine"]), status: 2, mentioning: "--osc")
        assertOneLineError(try runBusker(base + ["--osc-bind", "127.0.0.1"]), status: 2, mentioning: "--osc-bind goes with --osc")
        assertOneLineError(try runBusker(base + ["--osc", "9000", "--osc-bind", "localhost"]), status: 2, mentioning: "numeric address")
        assertOneLineError(try runBusker(base + ["--osc", String(taken.port)]), status: 1,
                           mentioning: "cannot listen on 127.0.0.1 port \(taken.port)")
        assertOneLineError(try runBusker(["live", "--input", "file:/nonexistent.wav", "--output", "file:/tmp/x.wav", "--osc", "9000"]),
                           status: 2, mentioning: "--osc is for devices")
    }
}
