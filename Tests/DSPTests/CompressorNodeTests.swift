import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import Synchronization
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The compressor, measured: static curves from level sweeps, timing, switching.
final class CompressorNodeTests: XCTestCase {
    private let rate = 48_000.0

    private func sine(frequency: Double = 1000, frames: Int, rmsDB: Double) -> [Float] {
        let amplitude = pow(10, rmsDB / 20) * 2.0.squareRoot()
        return (0..<frames).map { i in Float(amplitude * sin(2 * .pi * frequency * Double(i) / rate)) }
    }

    private func rmsDB(_ x: ArraySlice<Float>) -> Double {
        10 * log10(x.reduce(0.0) { $0 + Double($1 * $1) } / Double(x.count))
    }

    /// The textbook soft-knee curve (Giannoulis, Massberg & Reiss 2012, eq. 4),
    /// written out here independently of the node: output level for input level x.
    private func expectedOutput(_ x: Double, threshold t: Double, ratio r: Double, knee w: Double, makeup: Double) -> Double {
        let y: Double
        if 2 * (x - t) < -w {
            y = x
        } else if 2 * abs(x - t) <= w && w > 0 {
            y = x + (1 / r - 1) * pow(x - t + w / 2, 2) / (2 * w)
        } else {
            y = t + (x - t) / r
        }
        return y + makeup
    }

    /// Sweeps a 1 kHz tone from −60 to 0 dBFS RMS in 2 dB steps (and through the
    /// knee in 1 dB steps); each level's steady output level (the last 200 ms of
    /// 1 s) matches the curve for threshold, ratio, knee and make-up within 0.5 dB.
    func testStaticCurvesMatchThresholdRatioKneeAndMakeup() {
        let settings: [(t: Float, r: Float, w: Float, m: Float)] = [(-24, 3, 6, 6), (-30, 8, 12, 10), (-18, 2, 0, 0), (-40, 20, 0, -6)]
        for s in settings {
            var worst = 0.0
            var levels = Array(stride(from: -60.0, through: 0, by: 2))
            levels += Array(stride(from: Double(s.t - s.w / 2 - 1), through: Double(s.t + s.w / 2 + 1), by: 1))
            for level in levels {
                let node = CompressorNode(thresholdDB: s.t, ratio: s.r, kneeDB: s.w, makeupDB: s.m)
                let harness = BlockRenderHarness(node, inputChannelCounts: [1])
                let input = sine(frames: 48_000, rmsDB: level)
                let out = harness.run([[input]], blockSize: 64)[0]
                let measured = rmsDB(out[38_400...])
                let expected = expectedOutput(level, threshold: Double(s.t), ratio: Double(s.r), knee: Double(s.w), makeup: Double(s.m))
                worst = max(worst, abs(measured - expected))
                XCTAssertEqual(measured, expected, accuracy: 0.5, "T \(s.t) R \(s.r) W \(s.w) M \(s.m) at \(level) dBFS")
            }
            print("compressor T \(s.t) dB, \(s.r):1, knee \(s.w) dB, make-up \(s.m) dB: static curve within \(String(format: "%.3f", worst)) dB over \(levels.count) levels")
        }
    }

    /// A step from −40 to −10 dBFS (20 dB over a −24 dB threshold at 3:1 → 13.3 dB of
    /// reduction): the reduction builds with the 10 ms attack (under half after 2 ms,
    /// within 0.5 dB after 100 ms), and eases with the 120 ms release after the step down.
    func testAttackAndRelease() {
        let node = CompressorNode(thresholdDB: -24, ratio: 3, kneeDB: 0, makeupDB: 0)
        let harness = BlockRenderHarness(node, inputChannelCounts: [1])
        let dc: (Float, Int) -> [Float] = { v, n in [Float](repeating: v, count: n) }
        let low: Float = powf(10, -40 / 20), high: Float = powf(10, -10 / 20)
        let out = harness.run([[dc(low, 24_000) + dc(high, 24_000) + dc(low, 48_000)]], blockSize: 64)[0]
        let reductionAt = { (i: Int, level: Float) -> Double in -20 * log10(Double(out[i] / level)) }
        let steady = 14 * 2.0 / 3  // (−10 − −24)(1 − 1/3)
        XCTAssertLessThan(reductionAt(24_000 + 96, high), steady / 2, "2 ms into the step")
        XCTAssertEqual(reductionAt(24_000 + 4_800, high), steady, accuracy: 0.5, "100 ms into the step")
        XCTAssertEqual(reductionAt(47_999, high), steady, accuracy: 0.01)
        // Release: a 120 ms time constant, so after 120 ms about 37 % of the reduction is left.
        let left = reductionAt(48_000 + 5_760, low) / steady
        XCTAssertEqual(left, exp(-1), accuracy: 0.1, "reduction left 120 ms after the step down")
        XCTAssertEqual(reductionAt(95_999, low), 0, accuracy: 0.05)
        XCTAssertEqual(Double(node.gainReductionDB), 0, accuracy: 0.05)
    }

    /// Off, the compressor copies its input; switching glides, never steps.
    func testOffIsACopyAndSwitchingGlides() {
        let node = CompressorNode(thresholdDB: -24, ratio: 4, makeupDB: 12, isOn: false)
        let harness = BlockRenderHarness(node, inputChannelCounts: [2])
        let tone = sine(frames: 9_600, rmsDB: -12)
        let out = harness.run([[tone, tone]], blockSize: 64)
        assertSameSamples(out[0], tone)
        assertSameSamples(out[1], tone)
        node.isOn = true
        let on = harness.run([[tone + tone, tone + tone]], blockSize: 64)[0]
        XCTAssertGreaterThan(node.gainReductionDB, 5)
        // The gain, sample by sample, moves smoothly: no step over 0.1 dB between samples.
        let gains = (0..<on.count).compactMap { i -> Double? in
            let x = (tone + tone)[i]
            return abs(x) > 0.05 ? 20 * log10(Double(on[i] / x)) : nil
        }
        XCTAssertLessThan(zip(gains, gains.dropFirst()).map { abs($0 - $1) }.max() ?? 0, 0.1)
        node.isOn = false
        let off = harness.run([[tone + tone + tone, tone + tone + tone]], blockSize: 64)[0]
        // Back to a copy once the release and the make-up ramp have run out (well within 0.6 s).
        assertSameSamples(Array(off[19_200...]), Array((tone + tone + tone)[19_200...]))
    }

    func testOutputDoesNotDependOnBlockSize() {
        let signal = swellingNoise(seed: 9, lowDB: -40, swellDB: 36, cyclesPerSecond: 3)
        assertBlockSizeInvariant({ CompressorNode() }, signal)
    }

    func testRendersWithoutAllocating() throws {
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 1)
        let compressor = CompressorNode()
        let id = graph.add(compressor)
        try graph.connect(graph.input, to: id)
        graph.output = id
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        // Whether it reduced gain is read on the render thread after each counted block (an
        // atomic load): the control thread may get the CPU only a few times in the run.
        let sawReduction = Atomic<Bool>(false)
        assertNoAllocationsOnRenderThread(
            engine: engine, blocks: 3000, frames: 64, inputChannels: 1, outputChannels: 1,
            control: { i in
                compressor.makeupDB.value = Float(i % 30) - 6
                compressor.thresholdDB.value = -40 + Float(i % 20)
                compressor.isOn = (i / 100) % 3 != 2
            },
            afterEachBlock: { _, _ in if compressor.gainReductionDB > 1 { sawReduction.store(true, ordering: .relaxed) } }
        )
        XCTAssertTrue(sawReduction.load(ordering: .relaxed), "the compressor worked during the run")
        engine.releaseAll()
    }

    /// The gain computer's arithmetic (`fastLog2`, `fastExp2`) against the same
    /// design in libm (`log10f`, `exp2f`), written out here: on noise whose level
    /// sweeps from −40 to −4 dBFS through the knee, every output sample is within
    /// 0.0001 dB of the libm design's (the requirement in FastLogExp.swift).
    func testGainMatchesTheLibmDesignWithinATenThousandthOfADecibel() {
        var noise = SeededUniformNoise(state: 5)
        let signal = (0..<96_000).map { i -> Float in
            let envelope = Float(pow(10, (-40 + 36 * (0.5 + 0.5 * sin(2 * .pi * 2 * Double(i) / 48_000))) / 20))
            return envelope * noise.next()
        }
        let (t, r, w, makeup): (Float, Float, Float, Float) = (-24, 3, 6, 6)
        let harness = BlockRenderHarness(CompressorNode(thresholdDB: t, ratio: r, kneeDB: w, makeupDB: makeup), inputChannelCounts: [1])
        let out = harness.run([[signal]], blockSize: 64)[0]
        func coefficient(_ ms: Double) -> Float { Float(exp(-1 / (ms / 1000 * rate))) }
        let rmsA = coefficient(10), attackA = coefficient(10), releaseA = coefficient(120)
        var ms: Float = 0, gr: Float = 0, worst = 0.0, compared = 0
        for (i, x) in signal.enumerated() {
            ms = x * x + rmsA * (ms - x * x)
            let level = ms > 1e-20 ? 10 * log10f(ms) : -200
            let target = CompressorNode.staticCurve(level, threshold: t, ratio: r, knee: w) - level
            gr = target + (target < gr ? attackA : releaseA) * (gr - target)
            let expected = x * exp2f((gr + makeup) * 0.166_096_4)
            guard abs(expected) > 1e-4 else { continue }
            worst = max(worst, abs(20 * log10(Double(out[i]) / Double(expected))))
            compared += 1
        }
        XCTAssertGreaterThan(compared, 80_000)
        XCTAssertLessThan(worst, 1e-4, "worst difference from the libm design, dB")
        print("compressor vs the libm design: worst \(worst) dB over \(compared) samples")
    }
}
