import AudioFiles
import Chains
import CommandLineInterface
import Engine
import Foundation
import OfflineDrivers
import Sessions
import XCTest

/// The channel strips of the live chain, measured: where each strip's voice
/// comes out (left, right, both), what a mute, an EQ or a sum does to it, and
/// what a mono device gets. Pure tones on separate channels keep the strips
/// apart in the output (each is measured at its own frequency), and the howl
/// guard is off where a steady tone is the input (a steady pure tone is what
/// it is there to notch).
final class ChannelStripTests: XCTestCase {
    private let rate = 48_000.0
    private let seconds = 1.5

    private func settings(_ arguments: [String]) throws -> LiveSettings {
        try LiveSettings(commandLine: arguments)
    }

    private func tone(_ hz: Double, amplitude: Float = 0.1) -> [Float] {
        (0..<Int(seconds * rate)).map { amplitude * Float(sin(2 * .pi * hz * Double($0) / rate)) }
    }

    /// Renders planar `input` through `chain` in 64-frame blocks; returns the output, planar.
    private func render(_ chain: LiveChain, _ input: [[Float]]) throws -> [[Float]] {
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        defer { engine.releaseAll() }
        let outChannels = chain.master.outputChannels
        let inBuffer = AudioBuffer(channelCount: input.count, capacity: 64)
        let outBuffer = AudioBuffer(channelCount: outChannels, capacity: 64)
        var out = [[Float]](repeating: [], count: outChannels)
        var offset = 0
        while offset < input[0].count {
            let n = min(64, input[0].count - offset)
            for c in input.indices { for i in 0..<n { inBuffer[c][i] = input[c][offset + i] } }
            engine.render(input: inBuffer.block(frames: n), output: outBuffer.block(frames: n))
            for c in 0..<outChannels { out[c].append(contentsOf: UnsafeBufferPointer(start: outBuffer[c], count: n)) }
            offset += n
        }
        return out
    }

    /// Renders planar `input` offline, as `busker live --input file:IN --output
    /// file:OUT` does (the file driver, 1024-frame blocks, the output aligned
    /// with the input), through 32-bit float files; returns as many frames as
    /// went in (the reverb's tail cut), planar.
    private func renderOffline(_ settings: LiveSettings, _ input: [[Float]]) throws -> [[Float]] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("busker-strips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inPath = dir.appendingPathComponent("in.wav").path, outPath = dir.appendingPathComponent("out.wav").path
        let frames = input[0].count
        let writer = try SoundFileWriter(path: inPath, sampleRate: Int(rate), channelCount: input.count, sampleFormat: .f32)
        try writer.write(interleaved: (0..<frames).flatMap { i in input.map { $0[i] } })
        try writer.close()
        var options = FileRenderDriver.Options(inputPath: inPath, outputPath: outPath)
        options.sampleFormat = .f32
        _ = try LiveChain.renderFile(options: options, settings: settings)
        let reader = try SoundFileReader(path: outPath)
        let all = try reader.readAll(), channels = reader.channelCount
        XCTAssertGreaterThanOrEqual(all.count / channels, frames, "the whole input came out")
        return (0..<channels).map { c in (0..<min(frames, all.count / channels)).map { all[$0 * channels + c] } }
    }

    /// `settings` over `input` in memory (64-frame blocks) or offline (the file driver).
    private func render(_ settings: LiveSettings, _ input: [[Float]], offline: Bool) throws -> [[Float]] {
        offline ? try renderOffline(settings, input)
            : try render(try LiveChain(inputChannelCount: input.count, settings: settings), input)
    }

    /// The amplitude of the `hz` component over the last second (a whole number of cycles).
    private func level(_ x: [Float], at hz: Double) -> Double {
        let n = Int(rate), start = x.count - n
        var c = 0.0, s = 0.0
        for i in 0..<n {
            let phase = 2 * Double.pi * hz * Double(start + i) / rate
            c += Double(x[start + i]) * cos(phase)
            s += Double(x[start + i]) * sin(phase)
        }
        return 2 * (c * c + s * s).squareRoot() / Double(n)
    }

    private func db(_ x: Double) -> Double { 20 * log10(max(x, 1e-30)) }

    private func rmsDB(_ x: ArraySlice<Float>) -> Double {
        10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count)) + 1e-30)
    }

    /// Deterministic noise with a syllable-like envelope.
    private func voice(frames: Int) -> [Float] {
        var seed: UInt32 = 777
        return (0..<frames).map { i in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Int32(bitPattern: seed)) / Float(Int32.max)
            return 0.3 * Float(0.5 + 0.5 * sin(2 * Double.pi * 3 * Double(i) / 48000)) * noise
        }
    }

    /// The first complaint: a mic on input 1 of a two-input interface
    /// came out of the left speaker only. With the default strip (channel 1,
    /// centred) left and right carry it equally: within 0.5 dB, the
    /// requirement, and in fact to the bit. In memory and offline on a file.
    func testAVoiceOnChannelOneOfTwoComesOutEqualLeftAndRight() throws {
        let frames = Int(seconds * rate)
        let mic = voice(frames: frames)
        let out = try render(try LiveChain(inputChannelCount: 2), [mic, [Float](repeating: 0, count: frames)])
        let left = rmsDB(out[0][4800...]), right = rmsDB(out[1][4800...])
        XCTAssertGreaterThan(left, -40, "the voice comes through")
        XCTAssertEqual(left, right, accuracy: 0.5)
        XCTAssertEqual(out[0], out[1], "a centred strip is the same on both sides")

        // Offline, as `busker live --input file:IN --output file:OUT` runs it.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("busker-strips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inPath = dir.appendingPathComponent("left-only.wav").path, outPath = dir.appendingPathComponent("out.wav").path
        let writer = try SoundFileWriter(path: inPath, sampleRate: 48000, channelCount: 2, sampleFormat: .f32)
        try writer.write(interleaved: mic.flatMap { [$0, 0] })
        try writer.close()
        var options = FileRenderDriver.Options(inputPath: inPath, outputPath: outPath)
        options.sampleFormat = .f32
        _ = try LiveChain.renderFile(options: options, settings: LiveSettings())
        let reader = try SoundFileReader(path: outPath)
        XCTAssertEqual(reader.channelCount, 2)
        let all = try reader.readAll()
        let fileLeft = stride(from: 0, to: all.count, by: 2).map { all[$0] }
        let fileRight = stride(from: 1, to: all.count, by: 2).map { all[$0] }
        XCTAssertGreaterThan(rmsDB(fileLeft[4800...]), -40)
        XCTAssertEqual(rmsDB(fileLeft[4800...]), rmsDB(fileRight[4800...]), accuracy: 0.5)
    }

    /// Two strips, each with its own pan: the left/right level ratio of each
    /// strip's tone is the constant-power law's, cos((1 + p)·π/4) / cos((1 − p)·π/4).
    /// The mixer's gains are exact, so 0.01 dB is the arithmetic's slack. In
    /// memory and offline.
    func testEachStripsPanPlacesItByTheConstantPowerLaw() throws {
        for offline in [false, true] {
            for (pan1, pan2) in [(Float(-0.5), Float(0.8)), (0.3, -0.9), (0, 0.25)] {
                let s = try settings(["--inputs", "1,2", "--no-howl-guard", "--volume", "1",
                                      "--strip", "1:pan=\(pan1)", "--strip", "2:pan=\(pan2)"])
                let out = try render(s, [tone(1000), tone(300)], offline: offline)
                for (hz, pan) in [(1000.0, pan1), (300.0, pan2)] {
                    let measured = db(level(out[0], at: hz)) - db(level(out[1], at: hz))
                    let theta = Double.pi / 4
                    let expected = db(cos((1 + Double(pan)) * theta) / cos((1 - Double(pan)) * theta))
                    XCTAssertEqual(measured, expected, accuracy: 0.01, "strip at \(hz) Hz, pan \(pan), offline \(offline)")
                }
            }
        }
    }

    /// A strip's mute silences that strip alone (in memory and offline); the
    /// mic switch silences all.
    func testMuteSilencesOnlyItsStripAndTheMicSwitchSilencesAll() throws {
        let input = [tone(1000), tone(300)]
        let base = ["--inputs", "1,2", "--no-howl-guard", "--reverb", "30"]
        for offline in [false, true] {
            let open = try render(try settings(base), input, offline: offline)
            let muted = try render(try settings(base + ["--strip", "2:mute=on"]), input, offline: offline)
            // Muted strip 2, reverb send and all, adds exactly nothing: the output is
            // the one strip 2 gives when its channel is silent.
            let silentTwo = try render(try settings(base), [tone(1000), [Float](repeating: 0, count: input[0].count)], offline: offline)
            for c in 0..<2 {
                XCTAssertGreaterThan(db(level(open[c], at: 300)), -40, "strip 2 plays when not muted (offline \(offline))")
                XCTAssertEqual(db(level(muted[c], at: 1000)), db(level(open[c], at: 1000)), accuracy: 0.01,
                               "strip 1 as before (offline \(offline))")
                XCTAssertEqual(muted[c], silentTwo[c], "muted strip 2 (and its reverb send) is gone (offline \(offline))")
            }
        }
        let chain = try LiveChain(inputChannelCount: 2, settings: try settings(["--inputs", "1,2", "--no-howl-guard"]))
        chain.micOn = false
        let off = try render(chain, input)
        XCTAssertEqual(off[0].suffix(24_000).map(abs).max(), 0, "mic off: every strip muted")
        XCTAssertEqual(off[1].suffix(24_000).map(abs).max(), 0)
    }

    /// Strip 2's tone controls do not touch strip 1: with strip 1 hard left and
    /// strip 2 hard right, the left channel is the same to the bit whether strip 2
    /// is flat or has bass +12, treble −12 and boost +6. In memory and offline.
    func testStripTwosEQLeavesStripOneUntouched() throws {
        let input = [tone(1000), tone(200)]
        let base = ["--inputs", "1,2", "--no-howl-guard", "--volume", "1", "--strip", "1:pan=-1", "--strip"]
        for offline in [false, true] {
            let flat = try render(try settings(base + ["2:pan=1"]), input, offline: offline)
            let shaped = try render(try settings(base + ["2:pan=1,bass=12,treble=-12,boost=6"]), input, offline: offline)
            XCTAssertGreaterThan(db(level(shaped[1], at: 200)) - db(level(flat[1], at: 200)), 6,
                                 "strip 2's EQ and boost act on strip 2 (offline \(offline))")
            XCTAssertGreaterThan(db(level(flat[0], at: 1000)), -30, "strip 1 is on the left (offline \(offline))")
            XCTAssertEqual(flat[0], shaped[0], "strip 1's side does not change by a bit (offline \(offline))")
        }
    }

    /// `--inputs 1+2` sums both channels into one strip: each tone at the level
    /// it has through a strip of its own channel alone.
    func testAStripOfOnePlusTwoSumsBothChannels() throws {
        let input = [tone(1000), tone(300, amplitude: 0.05)]
        let summed = try render(try LiveChain(inputChannelCount: 2, settings: try settings(["--inputs", "1+2", "--no-howl-guard"])), input)
        let one = try render(try LiveChain(inputChannelCount: 2, settings: try settings(["--inputs", "1", "--no-howl-guard"])), input)
        let two = try render(try LiveChain(inputChannelCount: 2, settings: try settings(["--inputs", "2", "--no-howl-guard"])), input)
        XCTAssertEqual(db(level(summed[0], at: 1000)), db(level(one[0], at: 1000)), accuracy: 0.01)
        XCTAssertEqual(db(level(summed[0], at: 300)), db(level(two[0], at: 300)), accuracy: 0.01)
        XCTAssertLessThan(db(level(one[0], at: 300)), -120, "strip 1 alone does not read channel 2")
    }

    /// A mono playback device gets the bus down-mixed: the mean of left and
    /// right, so a centred strip comes out at its own level and a hard-panned
    /// one at half of its side's.
    func testAMonoOutputGetsTheBusDownMixed() throws {
        let input = [tone(1000), tone(300)]
        let s = try settings(["--inputs", "1,2", "--no-howl-guard", "--volume", "1", "--strip", "2:pan=1"])
        let mono = try render(try LiveChain(inputChannelCount: 2, settings: s, outputChannelCount: 1), input)
        let stereo = try render(try LiveChain(inputChannelCount: 2, settings: s), input)
        XCTAssertEqual(mono.count, 1)
        XCTAssertEqual(db(level(mono[0], at: 1000)), db(0.1), accuracy: 0.01, "centred strip 1 at its input level")
        XCTAssertEqual(db(level(mono[0], at: 1000)), db(level(stereo[0], at: 1000)), accuracy: 0.01)
        let sideSum = level(stereo[0], at: 300) + level(stereo[1], at: 300)
        XCTAssertEqual(db(level(mono[0], at: 300)), db(sideSum / 2), accuracy: 0.01, "hard-right strip 2: the mean of its sides")
    }

    /// A strip reading a channel the input does not have is a one-line request
    /// error, which the command line reports as a usage error naming `--inputs`.
    func testAChannelTheInputDoesNotHaveIsAUsageError() throws {
        XCTAssertThrowsError(try LiveChain(inputChannelCount: 2, settings: try settings(["--inputs", "1,3"]))) { error in
            XCTAssertEqual(error as? ChainError, .missingInputChannel(strip: 2, channel: 3, inputChannelCount: 2))
            XCTAssertEqual("\(error)", "strip 2 reads channel 3, but the input has 2 channels")
            XCTAssertEqual((error as? ChainError)?.isRequestError, true)
            let reported = (error as? ChainError).map(CommandLineError.init)
            XCTAssertEqual(reported?.description, "--inputs: strip 2 reads channel 3, but the input has 2 channels")
            XCTAssertEqual(reported?.exitCode, 2)
        }
        XCTAssertThrowsError(try LiveChain(inputChannelCount: 1, settings: try settings(["--inputs", "1+2"]))) { error in
            XCTAssertEqual("\(error)", "strip 1 reads channel 2, but the input has 1 channel")
        }
    }
}
