import CAllocationCounter
import Engine
import Foundation
import Loudness
import RenderTestSupport
import XCTest

/// The live path: a loudness tap on the "audio-render" thread hands the output
/// through its ring, and the control thread measures short-term loudness from
/// it while rendering goes on. The render thread allocates nothing; the
/// figures are the ones the meter gives the same signal directly.
final class LoudnessTapTests: XCTestCase {
    /// A −23 dBFS stereo 1 kHz sine (EBU Tech 3341 test 1) into a tap.
    private func makeEngine(tap: LoudnessTap) throws -> RenderEngine {
        let graph = AudioGraph(inputChannelCount: 0)
        let source = graph.add(SineSourceNode(frequency: 1000, amplitude: amplitude(dBFS: -23)))
        graph.output = try graph.chain(source, graph.add(tap))
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
        return engine
    }

    /// 5 s of the reference signal through the tap, with the control thread
    /// draining it into the short-term meter as it renders: no allocation or
    /// free on the render thread, and the short-term loudness reads −23.0 ± 0.1 LUFS.
    /// The harness renders faster than real time, so the ring holds all 5 s.
    func testShortTermLoudnessOffTheRenderThreadAllocatesNothingThere() throws {
        let tap = LoudnessTap(ringSamples: 48000 * 2 * 6)
        let engine = try makeEngine(tap: tap)
        let loudness = ShortTermLoudness(tap: tap)
        loudness.update()
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 48000 * 5 / 64, frames: 64, inputChannels: 0, outputChannels: 2) { _ in
            loudness.update()
            usleep(1000)
        }
        loudness.update()
        let lufs = try XCTUnwrap(loudness.shortTermLUFS)
        print("short-term loudness through the tap: \(lufs) LUFS; \(tap.droppedFrames) frames dropped")
        XCTAssertEqual(tap.droppedFrames, 0, "the control thread kept up")
        XCTAssertEqual(lufs, -23, accuracy: 0.1)
        engine.releaseAll()
    }

    /// The harness sees an allocation made next to the tap inside the counted loop.
    func testNegativeControlAnAllocationNextToTheTapIsCaught() throws {
        let tap = LoudnessTap()
        let engine = try makeEngine(tap: tap)
        let loudness = ShortTermLoudness(tap: tap)
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 100, frames: 64, inputChannels: 0, outputChannels: 2,
                                                    afterEachBlock: { block, _ in if block == 0 { loudnessAllocationSink = malloc(16) } },
                                                    control: { _ in loudness.update() })
        free(loudnessAllocationSink)
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting unavailable")
        XCTAssertGreaterThanOrEqual(counts.allocations, 1, "\(counts)")
        engine.releaseAll()
    }

    /// Nobody reading: the ring fills, later blocks are dropped and counted,
    /// and the output is still the input, sample for sample.
    func testAFullRingDropsBlocksAndPassesTheAudioThrough() throws {
        let tap = LoudnessTap(ringSamples: 64 * 2 * 10)
        let engine = try makeEngine(tap: tap)
        let output = AudioBuffer(channelCount: 2, capacity: 64)
        let expected = sine(frequency: 1000, amplitude: amplitude(dBFS: -23), seconds: 64.0 * 15 / 48000)
        var worst: Float = 0
        for block in 0..<15 {
            engine.render(input: nil, output: output.block(frames: 64))
            for i in 0..<64 {
                for c in 0..<2 { worst = max(worst, abs(output[c][i] - expected[(block * 64 + i) * 2 + c])) }
            }
        }
        XCTAssertLessThan(worst, 1e-5, "the tap passes its input through")
        XCTAssertEqual(tap.droppedFrames, 5 * 64, "ten blocks filled the ring, five were dropped")
        XCTAssertEqual(tap.ring.availableToRead, 64 * 2 * 10)
        engine.releaseAll()
    }
}

/// Where the negative control's allocation goes, so the optimizer cannot remove it.
nonisolated(unsafe) private var loudnessAllocationSink: UnsafeMutableRawPointer?
