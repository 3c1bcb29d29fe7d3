import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import XCTest

final class LimiterTests: XCTestCase {
    private let ceiling = powf(10, -1 / 20)

    private func assertHoldsCeiling(_ output: [[Float]], file: StaticString = #filePath, line: UInt = #line) {
        for channel in output {
            for x in channel {
                XCTAssertTrue(x.isFinite, "non-finite output", file: file, line: line)
                if !(abs(x) <= ceiling + 1e-6) {
                    XCTFail("sample \(x) above the ceiling \(ceiling)", file: file, line: line)
                    return
                }
            }
        }
    }

    private func loudNoise(frames: Int, channels: Int, scale: Float, seed: UInt64) -> [[Float]] {
        var noise = SeededUniformNoise(state: seed)
        return (0..<channels).map { _ in (0..<frames).map { _ in noise.next() * scale } }
    }

    func testLatencyIsTheLookaheadAndTheTruePeakDelay() {
        let limiter = LimiterNode()
        _ = BlockRenderHarness(limiter, inputChannelCounts: [2])
        XCTAssertEqual(limiter.latencyFrames, 48 + LimiterNode.truePeakDelayFrames)
        XCTAssertEqual(LimiterNode.truePeakDelayFrames, 12)
        XCTAssertEqual(limiter.ceilingGain, ceiling, accuracy: 1e-7)
    }

    func testHoldsCeilingOnLoudRandomInput() {
        let limiter = LimiterNode()
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
        let input = loudNoise(frames: 48_000, channels: 2, scale: 10, seed: 1)
        let output = harness.run([input], blockSize: 256)
        assertHoldsCeiling(output)
        // Not by silencing: the loudest samples come out within 6 dB of the ceiling (the
        // limiter holds true peaks, which in white noise stand a few dB over its samples).
        XCTAssertGreaterThan(output[0].map(abs).max()!, ceiling * 0.5)
        XCTAssertGreaterThan(limiter.gainReductionDB, 15)
    }

    func testHoldsCeilingOnClippedSquareAt20dB() {
        let harness = BlockRenderHarness(LimiterNode(), inputChannelCounts: [1])
        let input = (0..<48_000).map { i -> Float in (i / 240) % 2 == 0 ? 10 : -10 }  // 100 Hz, +20 dBFS
        let output = harness.run([[input]], blockSize: 128)
        assertHoldsCeiling(output)
        // Once settled, the square's true peak is at the ceiling: its flat tops sit under
        // it by the overshoot its edges ring with between samples (Gibbs: under 3 dB).
        let top = abs(output[0][40_000])
        XCTAssertLessThan(top, ceiling * 0.98)
        XCTAssertGreaterThan(top, ceiling * 0.7)
    }

    func testHoldsCeilingOnSingleSampleImpulses() {
        for amplitude: Float in [1, 100, -100] {  // 0 dBFS and +40 dBFS
            let limiter = LimiterNode()
            let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
            var left = [Float](repeating: 0, count: 4_800)
            left[1_000] = amplitude
            let right = [Float](repeating: 0, count: 4_800)
            let output = harness.run([[left, right]], blockSize: 64)
            assertHoldsCeiling(output)
            // The impulse leaves one look-ahead later, brought down to the ceiling, not below.
            XCTAssertEqual(output[0][1_000 + limiter.latencyFrames], amplitude > 0 ? ceiling : -ceiling, accuracy: 1e-5)
            XCTAssertEqual(output[1].map(abs).max()!, 0)
        }
    }

    func testHoldsCeilingOnSineSweep() {
        let harness = BlockRenderHarness(LimiterNode(), inputChannelCounts: [2])
        // Exponential sweep 20 Hz → 20 kHz over 2 s at +12 dBFS.
        let frames = 96_000, rate: Double = 48_000
        let k = log(1000.0) / (Double(frames) / rate)
        let sweep = (0..<frames).map { i -> Float in
            let t = Double(i) / rate
            return Float(4 * sin(2 * Double.pi * 20 * (exp(k * t) - 1) / k))
        }
        let output = harness.run([[sweep, sweep.map { -$0 * 0.5 }]], blockSize: 333)
        assertHoldsCeiling(output)
    }

    func testNonFiniteInputGivesFiniteOutput() {
        let limiter = LimiterNode()
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
        var input = loudNoise(frames: 9_600, channels: 2, scale: 3, seed: 7)
        for i in stride(from: 100, to: 9_600, by: 211) { input[0][i] = .nan }
        for i in stride(from: 150, to: 9_600, by: 307) { input[1][i] = .infinity }
        for i in stride(from: 190, to: 9_600, by: 401) { input[1][i] = -.infinity }
        input[0][500] = .greatestFiniteMagnitude
        let output = harness.run([input], blockSize: 100)
        assertHoldsCeiling(output)
        XCTAssertTrue(limiter.gainReductionDB.isFinite)
        // And it keeps working afterwards: once released (the huge sample asked for
        // ~760 dB of reduction; the linear-domain release needs ~14 time constants to
        // come within 1e-6 of unity), a quiet signal comes back unchanged.
        let quiet = (0..<96_000).map { Float(0.1 * sin(Double($0) * 0.05)) }
        let after = harness.run([[quiet, quiet]], blockSize: 100)
        let l = limiter.latencyFrames
        var worst: Float = 0
        for i in 72_000..<96_000 { worst = max(worst, abs(after[0][i] - quiet[i - l]), abs(after[1][i] - quiet[i - l])) }
        XCTAssertLessThanOrEqual(worst, 1e-6)
    }

    func testQuietSignalPassesDelayedAndUnchanged() {
        let limiter = LimiterNode()
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
        let left = (0..<20_000).map { Float(0.1 * sin(Double($0) * 2 * .pi * 440 / 48_000)) }  // −20 dBFS
        let right = (0..<20_000).map { Float(0.1 * cos(Double($0) * 2 * .pi * 1_000 / 48_000)) }
        let output = harness.run([[left, right]], blockSize: 256)
        let l = limiter.latencyFrames
        for i in 0..<l { XCTAssertEqual(output[0][i], 0); XCTAssertEqual(output[1][i], 0) }
        var worst: Float = 0
        for i in l..<20_000 {
            worst = max(worst, abs(output[0][i] - left[i - l]), abs(output[1][i] - right[i - l]))
        }
        XCTAssertLessThanOrEqual(worst, 1e-6)
        XCTAssertEqual(limiter.gainReductionDB, 0)
    }

    /// The live mic's setting: no look-ahead, so only the true peak's twelve
    /// frames of latency; the ceiling still holds.
    func testWithoutLookaheadOnlyTheTruePeakDelaysAndTheCeilingHolds() {
        let limiter = LimiterNode(lookaheadMilliseconds: 0)
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
        XCTAssertEqual(limiter.latencyFrames, 12)
        let quiet = (0..<4_800).map { Float(0.1 * sin(Double($0) * 2 * .pi * 440 / 48_000)) }
        let passed = harness.run([[quiet, quiet]], blockSize: 64)
        XCTAssertEqual(Array(passed[0][12...]), Array(quiet[..<(4_800 - 12)]), "below the ceiling the signal passes delayed 12 frames, bit for bit")
        let loud = loudNoise(frames: 48_000, channels: 2, scale: 10, seed: 7)
        for blockSize in [1, 64, 333] {
            let output = BlockRenderHarness(LimiterNode(lookaheadMilliseconds: 0), inputChannelCounts: [2]).run([loud], blockSize: blockSize)
            assertHoldsCeiling(output)
            XCTAssertGreaterThan(output[0].map(abs).max()!, ceiling * 0.9)
        }
    }

    func testGainRecoversAfterLoudBurst() {
        let limiter = LimiterNode(releaseMilliseconds: 80)
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [1])
        let burst = (0..<9_600).map { Float(4 * sin(Double($0) * 0.1)) }  // +12 dBFS, 200 ms
        _ = harness.run([[burst]], blockSize: 480)
        XCTAssertGreaterThan(limiter.gainReductionDB, 12)

        let quiet = (0..<96_000).map { Float(0.1 * sin(Double($0) * 0.03)) }
        var reductions: [Float] = []
        var output: [Float] = []
        for start in stride(from: 0, to: quiet.count, by: 4_800) {  // 100 ms steps
            output += harness.run([[Array(quiet[start..<(start + 4_800)])]], blockSize: 480)[0]
            reductions.append(limiter.gainReductionDB)
        }
        // The reduction falls steadily (exponential release), then reaches exactly 0.
        XCTAssertLessThan(reductions[1], reductions[0])
        XCTAssertLessThan(reductions[2], reductions[1])
        XCTAssertEqual(reductions.last, 0)
        // 80 ms release: after 100 ms most of the ~13 dB is back.
        XCTAssertLessThan(reductions[0], 6)
        // The tail is the delayed input again, unchanged.
        let l = limiter.latencyFrames
        for i in 80_000..<96_000 { XCTAssertEqual(output[i], quiet[i - l], accuracy: 1e-6) }
    }

    func testBlockSizeInvariance() {
        var input = loudNoise(frames: 20_000, channels: 2, scale: 0.3, seed: 3)
        for i in 5_000..<6_000 { input[0][i] *= 20 }  // bursts that start and stop limiting
        for i in 12_000..<12_050 { input[1][i] *= 50 }
        var reference: [[Float]]?
        for blockSize in [1, 64, 333] {
            let output = BlockRenderHarness(LimiterNode(), inputChannelCounts: [2]).run([input], blockSize: blockSize)
            if let reference {
                for c in 0..<2 {
                    for i in 0..<20_000 where abs(output[c][i] - reference[c][i]) > 1e-6 {
                        XCTFail("block size \(blockSize): channel \(c) frame \(i) differs"); return
                    }
                }
            } else {
                reference = output
            }
        }
    }

    func testRenderDoesNotAllocate() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() == 1)
        let limiter = LimiterNode()
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [2])
        for c in 0..<2 { for i in 0..<512 { harness.inputs[0][c][i] = Float(i % 7) - 3 } }
        let blocks = UnsafeMutablePointer<AudioBlock>.allocate(capacity: 1)
        defer { blocks.deallocate() }
        blocks[0] = harness.inputs[0].block(frames: 512)
        let output = harness.output.block(frames: 512)
        limiter.render(inputs: UnsafeBufferPointer(start: blocks, count: 1), output: output)  // warm up
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        for _ in 0..<20 { limiter.render(inputs: UnsafeBufferPointer(start: blocks, count: 1), output: output) }
        limiter.reset()
        busker_allocation_counting_end()
        XCTAssertEqual(busker_allocation_count(), 0)
    }
}
