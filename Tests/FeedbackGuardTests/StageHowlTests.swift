import Benchmarks
import Chains
import DSP
import Engine
import FeedbackGuard
import InstrumentTestSupport
import Instruments
import MIDI
import RenderTestSupport
import XCTest

/// The stage in the feedback simulator: a held pad and piano chord on the
/// keys' part play through the speaker (and so, through the path, into the
/// mic) while the loop gain rises. The guard, on the mic's bus only, must
/// neither notch the chord before the howl nor be slower to catch the howl.
final class StageHowlTests: XCTestCase {
    private let rate = 48_000.0

    /// Plays a rendered stereo buffer as a part's source, then silence.
    private final class BufferPlaybackNode: AudioNode {
        private let left: [Float], right: [Float]
        private var position = 0

        init(left: [Float], right: [Float]) {
            self.left = left
            self.right = right
            super.init(name: "chord")
        }

        override var inputBusCount: Int { 0 }
        override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
        override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
            for i in 0..<output.frameCount {
                let p = position + i
                output[0][i] = p < left.count ? left[p] : 0
                output[1][i] = p < right.count ? right[p] : 0
            }
            position += output.frameCount
        }
    }

    /// A pad (GM 89) and a piano (GM 1) holding C major for `seconds`, from FluidR3_GM.
    private func heldChord(seconds: Double) throws -> (left: [Float], right: [Float]) {
        let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, instrument: .piano, preloading: [89])
        rig.send(.programChange(channel: 1, program: 89), at: 0)
        rig.send(.controlChange(channel: 0, controller: 64, value: 127), at: 0)
        for note: UInt8 in [48, 55, 60, 64, 67] { rig.send(.noteOn(channel: 0, note: note, velocity: 90), at: 0) }
        for note: UInt8 in [60, 67] { rig.send(.noteOn(channel: 1, note: note, velocity: 90), at: 0) }
        return rig.render(frames: Int(seconds * rate))
    }

    private func rmsDB(_ x: ArraySlice<Float>) -> Float {
        10 * log10f(x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count)) + 1e-24)
    }

    /// The same loop and onset as `HowlFeedbackTests`' quarter-second test
    /// (its requirement: a howl caught within 250 ms of the loop gain going
    /// 3 dB over the bare chain's limit), with the chord playing from the
    /// start at about −20 dBFS: the first notch comes after the onset (the
    /// chord alone, a second of it through the loop's path, places none) and
    /// within 250 ms of it, and the output comes back to the chord's level.
    func testAHowlThroughTheMicIsCaughtWithinAQuarterSecondWhileAChordAndAPadPlay() throws {
        let chord = try heldChord(seconds: 4)
        let chordPeak = 20 * log10f(chord.left.map(abs).max() ?? 0)
        XCTAssertGreaterThan(chordPeak, -30, "the chord is loud enough to matter")
        var settings = LiveSettings()
        settings.volume = 1
        let chain = try LiveChain(inputChannelCount: 1, settings: settings,
                                  parts: [StagePart(name: "keys", source: BufferPlaybackNode(left: chord.left, right: chord.right))])
        let chainLatency = 48 + LimiterNode.truePeakDelayFrames
        let path = FeedbackPath.resonant(sampleRate: rate, delayMilliseconds: Double(288 - chainLatency) * 1000 / rate)
        let simulator = FeedbackSimulator(plan: try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)), path: path)
        var noise = SeededUniformNoise(state: 11)
        let source = (0..<Int(4 * rate)).map { _ in 0.01 * noise.next() }
        let onset = Int(rate)
        var firstSeen: Int?
        let run = simulator.run(source: source, loopGainDB: { $0 < onset ? -10 : 3 }) { frames in
            if firstSeen == nil && !chain.howlGuard.status().notches.isEmpty { firstSeen = frames }
        }
        let seen = try XCTUnwrap(firstSeen, "the guard never placed a notch")
        let delay = Double(seen - onset) / rate
        XCTAssertGreaterThan(delay, 0, "a notch before the howl: the chord was taken for one")
        XCTAssertLessThanOrEqual(delay, 0.25, "detected \(Int(delay * 1000)) ms after the onset")
        // Held: in the last second the output is what plays (the chord over the quiet source), not a howl.
        XCTAssertLessThan(rmsDB(run.output[(3 * onset)...]), rmsDB(chord.left[(3 * onset)...]) + 3, "guarded: back to the chord's level")
        print("stage: howl caught \(Int(delay * 1000)) ms after onset with the chord at \(String(format: "%.1f", chordPeak)) dBFS peak;"
              + " notches \(chain.howlGuard.status().notches)")
    }
}
