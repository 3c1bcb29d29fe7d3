#if canImport(Glibc)
import Chains
import Glibc
#endif
import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import Sessions
import SpeechProcessing
import Synchronization
import XCTest

/// The whole live voice chain with every clean-up stage in it: voice
/// processing, noise gate and compressor, as `busker live
/// --voice-processing --gate --compressor` builds it.
final class VoiceCleanUpChainTests: XCTestCase {
    private let rate = 48_000.0

    private func everythingOn() -> LiveSettings {
        var s = LiveSettings()
        s.strips[0].noiseGate = true
        s.strips[0].compressor = true
        s.strips[0].voiceProcessing = true
        s.strips[0].bassDB = 3
        s.strips[0].reverbSendPercent = 30
        s.volume = 1
        return s
    }

    /// Every stage on, every switch flipped and every clean-up control moved by
    /// the control thread while the audio thread renders: nothing allocated.
    func testFullChainRendersWithoutAllocatingWhileSwitching() throws {
        let chain = try LiveChain(inputChannelCount: 1, settings: everythingOn(), limiterLookaheadMilliseconds: 0,
                                   voiceProcessing: true)
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        // Seen on the render thread after each block: the control thread may rarely get the CPU.
        let sawCompression = Atomic<Bool>(false)
        let compressor = chain.strips[0].compressor
        assertNoAllocationsOnRenderThread(
            engine: engine, blocks: 4000, frames: 64, inputChannels: 1, outputChannels: 2,
            control: { i in
                var s = self.everythingOn()
                s.strips[0].noiseGate = (i / 30) % 4 != 3
                s.strips[0].compressor = (i / 50) % 4 != 3
                s.strips[0].voiceProcessing = (i / 70) % 4 != 3
                s.strips[0].gateThresholdDB = (i / 20) % 2 == 0 ? -50 : -1  // −1 dB closes the gate on the harness's −6 dBFS ramp
                s.strips[0].compressorMakeupDB = Float(i % 19) - 6
                chain.apply(s)
                engine.collectRetiredPlans()
            },
            afterEachBlock: { _, _ in if compressor.gainReductionDB > 1 { sawCompression.store(true, ordering: .relaxed) } }
        )
        XCTAssertTrue(sawCompression.load(ordering: .relaxed), "the compressor was working during the run")
        XCTAssertGreaterThan(chain.outputMeter.reading(channel: 0).maxPeak, 0.01, "sound came through")
        engine.releaseAll()
    }

    /// The chain's reported latency (voice processing's one 512-frame window
    /// at 48 kHz plus the limiter's 1 ms look-ahead) is the delay an impulse
    /// takes through it.
    func testChainLatencyIsTheMeasuredDelay() throws {
        var s = LiveSettings()
        s.strips[0].voiceProcessing = false  // in the chain, switched off: a pure delay of the same length
        s.volume = 1
        let chain = try LiveChain(inputChannelCount: 1, settings: s, limiterLookaheadMilliseconds: 1,
                                   voiceProcessing: true)
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 256)))
        let frames = 4096
        let input = AudioBuffer(channelCount: 1, capacity: frames)
        input[0][0] = 0.5
        let output = AudioBuffer(channelCount: 2, capacity: frames)
        engine.render(input: input.block(frames: frames), output: output.block(frames: frames))
        let peak = (0..<frames).max { abs(output[0][$0]) < abs(output[0][$1]) }!
        print("voice chain with voice processing: reported latency \(chain.latencyFrames) frames, impulse peak at \(peak)")
        XCTAssertEqual(chain.latencyFrames, 512 + 48 + LimiterNode.truePeakDelayFrames)
        XCTAssertEqual(peak, chain.latencyFrames)
        engine.releaseAll()
    }

    /// With every stage on, how the driver cuts the stream into blocks does not change the output.
    func testFullChainOutputDoesNotDependOnBlockSize() throws {
        var seed: UInt64 = 11
        let input = (0..<48_000).map { i -> Float in
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let noise = Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max)
            let envelope = Float(pow(10, (-55 + 45 * (0.5 + 0.5 * sin(2 * .pi * 2 * Double(i) / 48_000))) / 20))
            return envelope * noise
        }
        var outputs: [[Float]] = []
        for block in [1, 64, 333] {
            let chain = try LiveChain(inputChannelCount: 1, settings: everythingOn(), voiceProcessing: true)
            let engine = RenderEngine()
            engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 512)))
            let inBuffer = AudioBuffer(channelCount: 1, capacity: block)
            let outBuffer = AudioBuffer(channelCount: 2, capacity: block)
            var out: [Float] = []
            var offset = 0
            while offset < input.count {
                let n = min(block, input.count - offset)
                for i in 0..<n { inBuffer[0][i] = input[offset + i] }
                engine.render(input: inBuffer.block(frames: n), output: outBuffer.block(frames: n))
                out.append(contentsOf: UnsafeBufferPointer(start: outBuffer[0], count: n))
                offset += n
            }
            engine.releaseAll()
            outputs.append(out)
        }
        for (k, other) in outputs.enumerated().dropFirst() {
            let first = zip(outputs[0], other).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            XCTAssertNil(first, "block size \([1, 64, 333][k]) differs first at sample \(first ?? -1)")
        }
        XCTAssertGreaterThan(outputs[0].map(abs).max() ?? 0, 0.01, "sound came through")
    }
}
