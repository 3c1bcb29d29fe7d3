import CAllocationCounter
import Chains
import DSP
import Engine
import RenderTestSupport
import XCTest

/// `--direct-outs` in the chain: after the main pair, one channel per strip,
/// pre-fader (the master volume leaves it alone), in time with the main pair
/// to the frame, silent while its strip is muted or the mic is off, without
/// allocating on the render thread.
final class DirectOutsTests: XCTestCase {
    private let rate = 48_000.0

    /// Two strips (inputs 1 and 2), the guard off (it would only notch),
    /// quiet enough that the limiter never acts.
    private func settings(volume: Float) -> LiveSettings {
        var s = LiveSettings()
        s.strips = [StripSettings(), StripSettings()]
        s.strips[1].channels = [2]
        s.howlGuard = false
        s.volume = volume
        return s
    }

    /// Renders `frames` frames of seeded noise at 0.3 on input 1 and silence
    /// on input 2 through a chain with direct outs, in 64-frame blocks;
    /// `control(block)` runs before each block. The four output channels.
    private func render(volume: Float, frames: Int = 24_000, control: (LiveChain, Int) -> Void = { _, _ in }) throws -> [[Float]] {
        let chain = try LiveChain(inputChannelCount: 2, settings: settings(volume: volume))
        XCTAssertEqual(try chain.addDirectOuts(), ["strip1", "strip2"])
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        defer { engine.releaseAll() }
        var noise = SeededUniformNoise(state: 25)
        let input = AudioBuffer(channelCount: 2, capacity: 64), output = AudioBuffer(channelCount: 4, capacity: 64)
        var result = [[Float]](repeating: [], count: 4)
        for block in 0..<(frames / 64) {
            control(chain, block)
            for i in 0..<64 {
                input[0][i] = 0.3 * noise.next()
                input[1][i] = 0
            }
            engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
            for c in 0..<4 { result[c] += UnsafeBufferPointer(start: output[c], count: 64) }
        }
        return result
    }

    func testEachStripsOutIsPreFaderAndInTimeWithTheMainPair() throws {
        let half = try render(volume: 0.5), full = try render(volume: 1)
        XCTAssertGreaterThan(half[2].map(abs).max() ?? 0, 0.1, "strip 1's out carries its input")
        XCTAssertEqual(half[3].map(abs).max() ?? 1, 0, "strip 2's out carries nothing of input 1")
        XCTAssertEqual(half[2], full[2], "the master volume does not touch a direct out")
        XCTAssertNotEqual(half[0], full[0])
        // Past the parameters' 20 ms ramps, the main left is the direct out times the volume,
        // frame for frame (a centred strip is unity on each side, the limiter below its ceiling):
        // float rounding only, where a frame's misalignment of noise at 0.3 would be ~0.3.
        let worst = (2_000..<24_000).map { abs(half[0][$0] - 0.5 * half[2][$0]) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-4, "out_L = volume × strip1, in time")
    }

    func testAMutedStripOrTheMicOffSilencesItsOut() throws {
        // Blocks 0–99 open, 100–199 strip 1 muted, 200–299 open, 300–374 the mic off.
        let out = try render(volume: 1) { chain, block in
            var s = chain.settings
            s.strips[0].mute = (100..<200).contains(block)
            if block == 100 || block == 200 { chain.apply(s) }
            if block == 300 { chain.micOn = false }
        }[2]
        func peak(_ blocks: Range<Int>) -> Float { out[(blocks.lowerBound * 64)..<(blocks.upperBound * 64)].map(abs).max() ?? 0 }
        // Each change ramps over 20 ms (15 blocks); then silence, or the strip again.
        XCTAssertGreaterThan(peak(50..<100), 0.1)
        XCTAssertEqual(peak(120..<200), 0, "muted")
        XCTAssertGreaterThan(peak(220..<300), 0.1, "unmuted")
        XCTAssertEqual(peak(320..<375), 0, "the mic off")
    }

    func testDirectOutsRenderWithoutAllocatingWhileMutesAndTheMicMove() throws {
        let chain = try LiveChain(inputChannelCount: 2, settings: settings(volume: 1))
        _ = try chain.addDirectOuts()
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        assertNoAllocationsOnRenderThread(
            engine: engine, blocks: 2000, frames: 64, inputChannels: 2, outputChannels: 4,
            control: { i in
                var s = self.settings(volume: 0.5 + Float(i % 10) / 20)
                s.strips[0].mute = (i / 10) % 4 == 3
                s.strips[1].mute = (i / 15) % 4 == 3
                chain.apply(s)
                chain.micOn = (i / 40) % 6 != 5
                engine.collectRetiredPlans()
            })
        engine.releaseAll()
    }
    func testAPartsPairIsPreFaderInTimeAndSilentWhenThePartIsMuted() throws {
        var s = settings(volume: 1)
        s.parts["keys"] = PartSettings(levelDB: -20)
        let chain = try LiveChain(inputChannelCount: 2, settings: s, parts: [StagePart(name: "keys", source: NoiseSource())])
        XCTAssertEqual(try chain.addDirectOuts(), ["strip1", "strip2", "keys_L", "keys_R"])
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        defer { engine.releaseAll() }
        let input = AudioBuffer(channelCount: 2, capacity: 64), output = AudioBuffer(channelCount: 6, capacity: 64)
        for c in 0..<2 { input[c].update(repeating: 0, count: 64) }
        var out = [[Float]](repeating: [], count: 6)
        // Blocks 0–199 open, then the part muted.
        for block in 0..<300 {
            if block == 200 {
                s.parts["keys"]?.mute = true
                chain.apply(s)
            }
            engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
            for c in 0..<6 { out[c] += UnsafeBufferPointer(start: output[c], count: 64) }
        }
        XCTAssertGreaterThan(out[4][0..<12_800].map(abs).max() ?? 0, 0.1, "keys_L carries the part")
        // Past the 20 ms ramps: out_L is keys_L at the fader's −20 dB, frame for frame (float rounding only;
        // a frame's misalignment of noise at 0.3 would be ~0.3).
        let worst = (2_000..<12_800).map { abs(out[0][$0] - 0.1 * out[4][$0]) }.max() ?? 1
        XCTAssertLessThan(worst, 1e-4, "out_L = fader × keys_L, in time")
        XCTAssertEqual(out[4][14_000..<19_200].map(abs).max() ?? 1, 0, "the part muted, its pair is silent")
        XCTAssertEqual(out[5][14_000..<19_200].map(abs).max() ?? 1, 0)
    }
}

/// Seeded noise at 0.3 on two channels: a part's source with no input.
private final class NoiseSource: AudioNode {
    private var noise = SeededUniformNoise(state: 91)
    init() { super.init(name: "noise") }
    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for i in 0..<output.frameCount {
            let x = 0.3 * noise.next()
            output.channels[0][i] = x
            output.channels[1][i] = -x
        }
    }
}
