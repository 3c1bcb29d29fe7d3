import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import Rig
import XCTest

/// The whole live voice chain, as the drivers run it.
final class VoiceChainTests: XCTestCase {
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

    private func busySettings() -> VoiceSettings {
        var s = VoiceSettings()
        s.bassDB = 6
        s.trebleDB = 4
        s.boostDB = 12        // drives the limiter
        s.reverbPercent = 40  // the tank runs
        s.room = .hall
        s.volume = 1
        return s
    }

    func testSteadyStateRendersWithoutAllocatingWhileEveryControlMoves() throws {
        let chain = try VoiceChain(inputChannelCount: 1, settings: busySettings())
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        var sawLimiting = false
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 4000, frames: 64, inputChannels: 1, outputChannels: 2) { i in
            // The control thread turns every knob while the audio thread renders.
            var s = self.busySettings()
            s.bassDB = Float(i % 25) - 12
            s.trebleDB = Float((i * 7) % 25) - 12
            s.boostDB = 6 + Float(i % 13)
            s.reverbPercent = Float(20 + (i % 60))
            s.room = RoomPreset.allCases[(i / 50) % 4]
            s.volume = 0.5 + Float(i % 10) / 20
            s.highPassHz = 60 + Float(i % 40)
            chain.apply(s)
            chain.mixer.inputs[chain.voiceBus].pan.value = Float(i % 21) / 10 - 1
            if chain.limiter.gainReductionDB > 0 { sawLimiting = true }
            _ = chain.outputMeter.reading(channel: 0)
            engine.collectRetiredPlans()
        }
        XCTAssertTrue(sawLimiting, "the limiter should have been working during the run")
        XCTAssertGreaterThan(chain.outputMeter.reading(channel: 0).maxPeak, 0.1, "sound came through")
        XCTAssertLessThanOrEqual(chain.outputMeter.reading(channel: 0).maxPeak, powf(10, -1 / 20) + 1e-6)
        engine.releaseAll()
    }

    func testOutputDoesNotDependOnBlockSize() throws {
        let input = voiceLikeSignal(frames: 48000)
        var outputs: [[[Float]]] = []
        for block in [1, 64, 333] {
            let chain = try VoiceChain(inputChannelCount: 1, settings: busySettings())
            let engine = RenderEngine()
            engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 512)))
            let inBuffer = AudioBuffer(channelCount: 1, capacity: block)
            let outBuffer = AudioBuffer(channelCount: 2, capacity: block)
            var out: [[Float]] = [[], []]
            var offset = 0
            while offset < input.count {
                let n = min(block, input.count - offset)
                for i in 0..<n { inBuffer[0][i] = input[offset + i] }
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
        var s = VoiceSettings()
        s.bassDB = 99
        XCTAssertThrowsError(try VoiceChain(inputChannelCount: 1, settings: s)) { error in
            XCTAssertEqual("\(error)", "bass 99 dB is out of range -12…12 dB")
        }
    }
}
