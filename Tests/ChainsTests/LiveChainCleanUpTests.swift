import Chains
import Engine
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The noise gate and the compressor inside a channel strip of the live chain: switched by
/// `apply` while the same plan keeps running (no rebuild).
final class LiveChainCleanUpTests: XCTestCase {
    private let rate = 48_000.0

    /// Renders `seconds` of a 1 kHz tone at `rmsDB` through the engine and returns the
    /// RMS level of the last 100 ms of the left output, in dBFS.
    private func outputLevel(_ engine: RenderEngine, seconds: Double, rmsDB: Double) -> Double {
        let block = 64
        let input = AudioBuffer(channelCount: 1, capacity: block)
        let output = AudioBuffer(channelCount: 2, capacity: block)
        let total = Int(seconds * rate), tail = 4_800
        var sum = 0.0
        var n = 0
        let amplitude = pow(10, rmsDB / 20) * 2.0.squareRoot()
        while n < total {
            for i in 0..<block { input[0][i] = Float(amplitude * sin(2 * .pi * 1000 * Double(n + i) / rate)) }
            engine.render(input: input.block(frames: block), output: output.block(frames: block))
            for i in 0..<block where n + i >= total - tail { sum += Double(output[0][i] * output[0][i]) }
            n += block
        }
        return 10 * log10(sum / Double(tail))
    }

    func testGateAndCompressorSwitchInTheRunningChain() throws {
        var s = LiveSettings()
        s.volume = 1
        // A steady pure tone whose level steps is what the howl guard is there
        // to catch (see its README limits); this test is about the gate and the compressor.
        s.howlGuard = false
        let chain = try LiveChain(inputChannelCount: 1, settings: s)
        XCTAssertFalse(chain.strips[0].noiseGate.isOn)
        XCTAssertFalse(chain.strips[0].compressor.isOn)
        XCTAssertEqual(chain.latencyFrames, chain.limiter.latencyFrames, "no voice processor: no added latency")
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        // A quiet tone (−60 dBFS RMS, −57 dBFS peak) below the gate's −50 dB threshold.
        let plain = outputLevel(engine, seconds: 0.5, rmsDB: -60)
        s.strips[0].noiseGate = true
        chain.apply(s)
        let gated = outputLevel(engine, seconds: 0.5, rmsDB: -60)
        XCTAssertEqual(gated - plain, -40, accuracy: 0.1, "the gate's floor")
        // Threshold −70: the tone opens it again.
        s.strips[0].gateThresholdDB = -70
        chain.apply(s)
        XCTAssertEqual(outputLevel(engine, seconds: 0.5, rmsDB: -60) - plain, 0, accuracy: 0.01)
        // The compressor below its −24 dB threshold only adds the make-up gain.
        s.strips[0].compressor = true
        s.strips[0].compressorMakeupDB = 9
        chain.apply(s)
        XCTAssertEqual(outputLevel(engine, seconds: 0.5, rmsDB: -60) - plain, 9, accuracy: 0.01)
        // Off again: back where it started.
        s.strips[0].noiseGate = false
        s.strips[0].compressor = false
        chain.apply(s)
        XCTAssertEqual(outputLevel(engine, seconds: 0.5, rmsDB: -60) - plain, 0, accuracy: 0.001)
        engine.releaseAll()
    }
}
