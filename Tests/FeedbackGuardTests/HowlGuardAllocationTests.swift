#if canImport(Glibc)
import Chains
import Glibc
#endif
import CAllocationCounter
import Engine
import RenderTestSupport
import Sessions
import Synchronization
import XCTest

/// The whole voice chain, howl guard at work, renders without allocating.
final class HowlGuardAllocationTests: XCTestCase {
    /// A feedback loop on a real `audio-render` thread: the chain's output,
    /// delayed 5 ms and 6 dB up, is its next input (plus a little noise), so
    /// the guard detects, places notches, runs out of them and pulls the
    /// emergency gain, all while the allocation counter counts.
    func testTheChainInAHowlingLoopDoesNotAllocate() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs glibc")
        var settings = LiveSettings()
        settings.volume = 1
        settings.strips[0].boostDB = 6
        settings.strips[0].reverbSendPercent = 20
        settings.strips[0].bassDB = 3
        let chain = try LiveChain(inputChannelCount: 1, settings: settings)
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        // A 6 ms loop in all, the chain's own latency included: a howl the guard notches.
        let delay = 288 - chain.latencyFrames, frames = 64, blocks = 3000
        let ring = AudioBuffer(channelCount: 1, capacity: 4096)
        let input = AudioBuffer(channelCount: 1, capacity: frames)
        let output = AudioBuffer(channelCount: 2, capacity: frames)
        let result = AllocationResult()
        let thread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            var write = 0
            var seed: UInt64 = 5
            func render(count: Int) {
                for _ in 0..<count {
                    for i in 0..<frames {
                        seed = seed &* 6364136223846793005 &+ 1442695040888963407
                        let noise = 0.001 * Float(Int32(truncatingIfNeeded: seed >> 32)) / Float(Int32.max)
                        input[0][i] = noise + ring[0][(write + i - delay + 4096) % 4096]
                    }
                    engine.render(input: input.block(frames: frames), output: output.block(frames: frames))
                    for i in 0..<frames { ring[0][(write + i) % 4096] = 0.5 * (output[0][i] + output[1][i]) }
                    write = (write + frames) % 4096
                }
            }
            render(count: 16)
            busker_allocation_counts_reset()
            busker_allocation_counting_begin()
            render(count: blocks)
            busker_allocation_counting_end()
            result.count.store(Int(busker_allocation_count()), ordering: .releasing)
        }
        var statuses = 0
        while result.count.load(ordering: .acquiring) < 0 {
            // The control thread reads the guard's status as the screen does.
            _ = chain.howlGuard.status().summary
            statuses += 1
            usleep(2000)
        }
        thread.join()
        let status = chain.howlGuard.status()
        XCTAssertEqual(result.count.load(ordering: .acquiring), 0, "allocations on the render thread with the guard working")
        XCTAssertGreaterThanOrEqual(status.detectionCount, 2, "the guard was working: \(status)")
        XCTAssertGreaterThan(status.gainReductionDB, 0, "the emergency gain acted: \(status)")
        XCTAssertFalse(status.notches.isEmpty)
        XCTAssertGreaterThan(statuses, 0)
        engine.releaseAll()
    }
}

/// The render thread's allocation count, published once counting ends (−1 before).
private final class AllocationResult: Sendable {
    let count = Atomic<Int>(-1)
}
