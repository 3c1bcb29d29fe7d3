import DSP
import Engine
import RenderTestSupport
import XCTest

/// The stems' alignment delay: every channel exactly `delay` frames late,
/// silence before, whatever the block size (a delay longer than a block
/// included); and the limiter's latency known before it is prepared, which
/// is what the delay is set to.
final class FixedDelayNodeTests: XCTestCase {
    func testEveryChannelIsTheInputExactlyDelayFramesLateInAnyBlockSize() {
        var noise = SeededUniformNoise(state: 27)
        let input = (0..<2).map { _ in (0..<5_000).map { _ in noise.next() } }
        for delay in [0, 1, 12, 60, 700] {
            for block in [1, 64, 333] {
                let node = FixedDelayNode(delayFrames: { _ in delay })
                let output = BlockRenderHarness(node, inputChannelCounts: [2]).run([input], blockSize: block)
                XCTAssertEqual(node.delay, delay)
                XCTAssertEqual(output.count, 2)
                for c in 0..<2 {
                    XCTAssertEqual(output[c].count, 5_000)
                    XCTAssertTrue(output[c].prefix(delay).allSatisfy { $0 == 0 }, "delay \(delay), block \(block): silence first")
                    let late = Array(output[c][delay...]), early = Array(input[c].prefix(5_000 - delay))
                    XCTAssertEqual(late, early, "delay \(delay), block \(block), channel \(c)")
                }
            }
        }
    }

    func testTheDelayIsAskedForTheFormatAndResetSilencesTheLine() {
        let node = FixedDelayNode(delayFrames: { spec in Int(spec.sampleRate / 1000) })
        let harness = BlockRenderHarness(node, inputChannelCounts: [1], sampleRate: 44_100)
        XCTAssertEqual(node.delay, 44)
        _ = harness.run([[[Float](repeating: 1, count: 100)]], blockSize: 64)
        node.reset()
        let after = harness.run([[[Float](repeating: 0, count: 100)]], blockSize: 64)
        XCTAssertEqual(after[0], [Float](repeating: 0, count: 100), "nothing of before the reset comes out")
    }

    func testTheLimitersLatencyIsKnownBeforeItIsPrepared() {
        for (lookahead, rate) in [(Float(0), 48_000.0), (1, 48_000), (1, 44_100), (5, 96_000), (0.5, 22_050)] {
            let limiter = LimiterNode(lookaheadMilliseconds: lookahead)
            _ = BlockRenderHarness(limiter, inputChannelCounts: [2], sampleRate: rate)
            XCTAssertEqual(LimiterNode.latencyFrames(lookaheadMilliseconds: lookahead, sampleRate: rate), limiter.latencyFrames,
                           "\(lookahead) ms at \(rate) Hz")
        }
    }
}
