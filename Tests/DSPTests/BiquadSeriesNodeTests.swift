import DSP
import Engine
import RenderTestSupport
import XCTest

/// The fused shelves against the two biquad nodes they stand for.
final class BiquadSeriesNodeTests: XCTestCase {
    /// Bass then treble as one node gives the very samples of the two nodes one
    /// after the other, settled and through parameter ramps (a ramp starting
    /// mid-block, both filters moving, one moving while the other holds), at
    /// block sizes of 1, 64, 333 and 1024 frames, mono and stereo.
    func testSameSamplesAsTheTwoNodesInSeries() {
        var noise = SeededUniformNoise(state: 21)
        let frames = 12_000
        for channels in [1, 2] {
            let signal = (0..<channels).map { _ in (0..<frames).map { _ in 0.5 * noise.next() } }
            // The control changes, each before its segment of the signal.
            let changes: [(start: Int, change: (BiquadNode, BiquadNode) -> Void)] = [
                (0, { bass, treble in bass.gainDB.value = 6; treble.gainDB.value = 3 }),
                (3_000, { bass, treble in bass.gainDB.value = -9; treble.frequency.value = 4_000 }),
                (4_500, { _, treble in treble.gainDB.value = 12 }),
                (7_000, { bass, _ in bass.q.value = 2 }),
            ]
            for blockSize in [1, 64, 333, 1024] {
                let bass = BiquadNode(name: "bass", kind: .lowShelf, frequency: 150)
                let treble = BiquadNode(name: "treble", kind: .highShelf, frequency: 6000)
                let series = BiquadSeriesNode(name: "shelves", first: BiquadNode(name: "bass", kind: .lowShelf, frequency: 150),
                                              second: BiquadNode(name: "treble", kind: .highShelf, frequency: 6000))
                let bassAlone = BlockRenderHarness(bass, inputChannelCounts: [channels], maximumBlockSize: 1024)
                let trebleAlone = BlockRenderHarness(treble, inputChannelCounts: [channels], maximumBlockSize: 1024)
                let fused = BlockRenderHarness(series, inputChannelCounts: [channels], maximumBlockSize: 1024)
                var expected = [[Float]](repeating: [], count: channels), got = expected
                for (k, step) in changes.enumerated() {
                    step.change(bass, treble)
                    step.change(series.first, series.second)
                    let end = k + 1 < changes.count ? changes[k + 1].start : frames
                    let part = signal.map { Array($0[step.start..<end]) }
                    let twoNodes = trebleAlone.run([bassAlone.run([part], blockSize: blockSize)], blockSize: blockSize)
                    let oneNode = fused.run([part], blockSize: blockSize)
                    for c in 0..<channels { expected[c] += twoNodes[c]; got[c] += oneNode[c] }
                }
                for c in 0..<channels {
                    assertSameSamples(got[c], expected[c], "\(channels) channel(s), channel \(c), \(blockSize)-frame blocks")
                }
                // The ramps ran: the last segment's output is not the input.
                XCTAssertNotEqual(got[0].suffix(100), signal[0].suffix(100))
            }
        }
    }
}
