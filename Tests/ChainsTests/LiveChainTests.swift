import CAllocationCounter
import Chains
import DSP
import Engine
import RenderTestSupport
import Synchronization
import XCTest

/// The whole live chain, as the drivers run it.
final class LiveChainTests: XCTestCase {
    private let rate = 48000.0

    /// Deterministic noise with a slow envelope, loud enough to drive the limiter when boosted.
    private func voiceLikeSignal(frames: Int) -> [Float] {
        var seed: UInt32 = 12345
        return (0..<frames).map { i in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Float(Int32(bitPattern: seed)) / Float(Int32.max)
            let envelope = Float(0.5 + 0.5 * sin(2 * Double.pi * 3 * Double(i) / 48000))
            return 0.6 * envelope * noise
        }
    }

    /// Two strips on a two-channel input, every stage on (voice processing,
    /// gate, compressor, EQ, boost, reverb send), driving the limiter.
    private func busySettings() -> LiveSettings {
        var s = LiveSettings()
        var strip = StripSettings()
        strip.gainDB = 3
        strip.bassDB = 6
        strip.trebleDB = 4
        strip.boostDB = 12             // drives the limiter
        strip.reverbSendPercent = 40   // the tank runs
        strip.noiseGate = true
        strip.compressor = true
        strip.voiceProcessing = true
        s.strips = [strip, strip]
        s.strips[1].channels = [2]
        s.strips[0].pan = -0.4
        s.strips[1].pan = 0.6
        s.room = .hall
        s.volume = 1
        return s
    }

    func testTwoStripsWithEveryStageOnRenderWithoutAllocatingWhileEveryControlMoves() throws {
        let chain = try LiveChain(inputChannelCount: 2, settings: busySettings())
        XCTAssertEqual(chain.strips.count, 2)
        XCTAssertTrue(chain.strips.allSatisfy { $0.voiceProcessor != nil })
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        // Seen on the render thread after each block: the control thread may rarely get the CPU.
        let sawLimiting = Atomic<Bool>(false)
        let limiter = chain.limiter
        assertNoAllocationsOnRenderThread(
            engine: engine, blocks: 4000, frames: 64, inputChannels: 2, outputChannels: 2,
            control: { i in
                // The control thread turns every knob while the audio thread renders.
                var s = self.busySettings()
                for k in 0..<2 {
                    s.strips[k].gainDB = Float((i + k) % 13) - 6
                    s.strips[k].bassDB = Float((i + 3 * k) % 25) - 12
                    s.strips[k].trebleDB = Float((i * 7 + k) % 25) - 12
                    s.strips[k].boostDB = 6 + Float((i + k) % 13)
                    s.strips[k].reverbSendPercent = Float((20 + i + 30 * k) % 100)
                    s.strips[k].highPassHz = 60 + Float((i + k) % 40)
                    s.strips[k].pan = Float((i + 7 * k) % 21) / 10 - 1
                    s.strips[k].mute = (i / (10 + k)) % 5 == 4
                    s.strips[k].noiseGate = (i / (30 + k)) % 4 != 3
                    s.strips[k].compressor = (i / (50 + k)) % 4 != 3
                    s.strips[k].voiceProcessing = (i / (70 + k)) % 4 != 3
                }
                s.room = RoomPreset.allCases[(i / 50) % 4]
                s.volume = 0.5 + Float(i % 10) / 20
                s.howlGuard = (i / 90) % 3 != 2
                chain.apply(s)
                chain.micOn = (i / 40) % 6 != 5
                _ = chain.outputMeter.reading(channel: 0)
                _ = chain.strips[1].meter.reading(channel: 0)
                engine.collectRetiredPlans()
            },
            afterEachBlock: { _, _ in if limiter.gainReductionDB > 0 { sawLimiting.store(true, ordering: .relaxed) } }
        )
        XCTAssertTrue(sawLimiting.load(ordering: .relaxed), "the limiter should have been working during the run")
        XCTAssertGreaterThan(chain.outputMeter.reading(channel: 0).maxPeak, 0.1, "sound came through")
        XCTAssertLessThanOrEqual(chain.outputMeter.reading(channel: 0).maxPeak, powf(10, -1 / 20) + 1e-6)
        engine.releaseAll()
    }

    func testOutputDoesNotDependOnBlockSize() throws {
        let input = voiceLikeSignal(frames: 48000)
        var outputs: [[[Float]]] = []
        for block in [1, 64, 333] {
            let chain = try LiveChain(inputChannelCount: 2, settings: busySettings())
            let engine = RenderEngine()
            engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 512)))
            let inBuffer = AudioBuffer(channelCount: 2, capacity: block)
            let outBuffer = AudioBuffer(channelCount: 2, capacity: block)
            var out: [[Float]] = [[], []]
            var offset = 0
            while offset < input.count {
                let n = min(block, input.count - offset)
                for i in 0..<n {
                    inBuffer[0][i] = input[offset + i]
                    inBuffer[1][i] = input[(offset + i + 12_345) % input.count] * 0.7
                }
                engine.render(input: inBuffer.block(frames: n), output: outBuffer.block(frames: n))
                for c in 0..<2 { out[c].append(contentsOf: UnsafeBufferPointer(start: outBuffer[c], count: n)) }
                offset += n
            }
            engine.releaseAll()
            outputs.append(out)
        }
        for other in outputs.dropFirst() {
            for c in 0..<2 {
                let worst = zip(outputs[0][c], other[c]).map { abs($0 - $1) }.max() ?? 0
                XCTAssertLessThanOrEqual(worst, 1e-6, "channel \(c)")
            }
        }
        // And it is not silence: the comparison means something.
        XCTAssertGreaterThan(outputs[0][0].map(abs).max() ?? 0, 0.3)
    }

    func testOutOfRangeSettingsAreRefusedWithTheirRange() {
        var s = LiveSettings()
        s.strips[0].bassDB = 99
        XCTAssertThrowsError(try LiveChain(inputChannelCount: 1, settings: s)) { error in
            XCTAssertEqual("\(error)", "bass 99 dB is out of range -12…12 dB")
        }
        s.strips[0].bassDB = 0
        s.strips.append(StripSettings(channels: [2]))
        s.strips[1].pan = 2
        XCTAssertThrowsError(try LiveChain(inputChannelCount: 2, settings: s)) { error in
            XCTAssertEqual("\(error)", "strip 2 pan 2 is out of range -1…1")
        }
    }
}
