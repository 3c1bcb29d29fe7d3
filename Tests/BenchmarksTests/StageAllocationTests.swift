#if canImport(Glibc)
import Glibc
#endif
import Benchmarks
import CAllocationCounter
import Chains
import Engine
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// The whole stage `busker bench --stage` measures (`BenchStage`: two mic
/// strips with every stage on, the keys' sampler with a 16-note chord and a
/// running part, Busker's kit in 16ths, a 16-channel General MIDI song on its
/// own sampler, both reverbs, the chorus, howl guard and limiter) renders on
/// `audio-render` without one allocation or free, while the control thread
/// moves the song's transport, mutes and solos parts through
/// `LiveChain.apply` and switches the mic, as the live screen and the
/// controls do.
final class StageAllocationTests: XCTestCase {
    /// 64-frame blocks at 48 kHz: 3000 blocks are 4 s of the stage, half of
    /// its 8 s loops (the song is stopped and played from the top on the way).
    static let blocks = 3000
    /// The control thread acts once every this many blocks (0.2 s): 20 actions in the run.
    static let blocksPerAction = 150

    override func setUpWithError() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
    }

    func testTheWholeStageRendersWithoutAllocatingWhileTheTransportMovesAndPartsChange() throws {
        let stage = try BenchStage()
        let engine = RenderEngine()
        try stage.install(in: engine, period: 64)
        let live = stage.chain.live
        let parts = try XCTUnwrap(live.stage).parts
        XCTAssertEqual(parts.map(\.name), ["keys", "drums", "song"])
        let most = MostSeen()
        var statesSeen: Set<MIDIFilePlayer.State> = []
        var actionsTaken = 0

        assertNoAllocationsOnRenderThread(
            engine: engine, blocks: Self.blocks, frames: 64, inputChannels: stage.inputChannelCount, outputChannels: 2,
            control: { _ in
                statesSeen.insert(stage.song.state)
                let due = engine.renderedBlockCount / Self.blocksPerAction
                while actionsTaken < due {
                    Self.act(actionsTaken, on: stage)
                    actionsTaken += 1
                }
                _ = parts.map { $0.meter.reading(channel: 0) }
                engine.collectRetiredPlans()
                stage.chain.collectRetired()
            },
            afterEachBlock: { _, _ in
                let voices = stage.samplerVoices
                most.keys.max(voices.keys)
                most.song.max(voices.song)
                most.drums.max(stage.drumVoices)
            })
        engine.releaseAll()

        // Every part played, and the transport and the mixer did move while it rendered.
        XCTAssertGreaterThanOrEqual(actionsTaken, 10, "the control thread acted during the run")
        XCTAssertTrue(statesSeen.isSuperset(of: [.playing, .paused, .stopped]), "song states seen: \(statesSeen)")
        // The chord alone sounds 16 notes; the song's 15 channels hold at least a voice each.
        XCTAssertGreaterThanOrEqual(most.keys.value, 16, "keys voices")
        XCTAssertGreaterThanOrEqual(most.song.value, 15, "song voices")
        XCTAssertGreaterThan(most.drums.value, 0, "kit hits")
        for part in parts {
            // −40 dBFS: far above the silence a part that never played would show.
            XCTAssertGreaterThan(part.meter.reading(channel: 0).maxPeak, 0.01, "\(part.name) sounded")
        }
        XCTAssertGreaterThan(live.outputMeter.reading(channel: 0).maxPeak, 0.01, "the mix sounded")
    }

    /// The negative control: the same harness on the same stage catches one
    /// deliberate allocation on the render thread.
    func testTheHarnessCatchesAnAllocationOnTheStagesRenderThread() throws {
        let stage = try BenchStage()
        let engine = RenderEngine()
        try stage.install(in: engine, period: 64)
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: 200, frames: 64, inputChannels: stage.inputChannelCount, outputChannels: 2,
            // Freed after the run: a malloc and a free side by side may be removed by the optimizer.
            afterEachBlock: { block, _ in if block == 100 { stageAllocationSink = malloc(16) } })
        free(stageAllocationSink)
        engine.releaseAll()
        XCTAssertEqual(counts.blocks, 200)
        XCTAssertEqual(counts.allocations, 1, "\(counts)")
    }

    /// Action `n` of a cycle of ten a player takes on stage.
    /// - Thread: control
    static func act(_ n: Int, on stage: BenchStage) {
        let live = stage.chain.live
        var settings = stage.settings
        switch n % 10 {
        case 0: stage.song.pause()
        case 1: stage.song.resume()
        case 2: settings.parts["keys"]?.solo = true
        case 3: settings.parts["drums"]?.mute = true
        case 4: live.micOn = false
        case 5: live.micOn = true; stage.song.stop()
        case 6: stage.song.play()
        case 7: settings.parts["song"]?.levelDB = -20; settings.parts["song"]?.reverbSendPercent = 60
        case 8: settings.parts["song"]?.solo = true; settings.parts["drums"]?.solo = true
        default: stage.performance.pause(); stage.performance.resume()
        }
        live.apply(settings)
    }
}

/// The most of each count the render thread saw.
private final class MostSeen: Sendable {
    let keys = Most(), song = Most(), drums = Most()

    final class Most: Sendable {
        private let atomic = Atomic<Int>(0)
        var value: Int { atomic.load(ordering: .relaxed) }
        /// - Thread: audio
        /// - Realtime: safe (an atomic max)
        func max(_ seen: Int) { _ = atomic.max(seen, ordering: .relaxed) }
    }
}

/// Where the negative control's allocation goes, so the optimizer cannot remove it.
nonisolated(unsafe) private var stageAllocationSink: UnsafeMutableRawPointer?
