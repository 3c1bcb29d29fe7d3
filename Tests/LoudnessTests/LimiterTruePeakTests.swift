import DSP
import Engine
import Foundation
import Loudness
import RenderTestSupport
import XCTest

/// The output limiter holds true peak: what libebur128's true-peak meter
/// (the one every take's summary uses) reads of its output never exceeds the
/// −1 dBFS ceiling, on the signals whose peaks fall between samples.
///
/// "Never exceeds" is within 0.001 dB: the limiter computes in Float and the
/// meter in double, and the gain still releases (80 ms) across the twelve
/// samples that make up a peak; both lift a peak by far less than that, which
/// is itself a hundredth of the tenth of a dB the summary prints.
final class LimiterTruePeakTests: XCTestCase {
    private let rate = 48_000
    private let ceilingDB = -1.0 + 0.001

    /// The limiter's output of `channels` (planar), read by the meter, dBTP.
    private func truePeakDB(through limiter: LimiterNode, _ channels: [[Float]], blockSize: Int = 64) throws -> Double {
        let harness = BlockRenderHarness(limiter, inputChannelCounts: [channels.count])
        let output = harness.run([channels], blockSize: blockSize)
        let meter = try LoudnessMeter(channelCount: channels.count, sampleRate: rate, measures: .truePeak)
        var interleaved = [Float](repeating: 0, count: output[0].count * channels.count)
        for c in 0..<channels.count { for i in 0..<output[c].count { interleaved[i * channels.count + c] = output[c][i] } }
        interleaved.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: output[0].count) }
        return meter.truePeakDBTP
    }

    /// Signals with inter-sample peaks above their samples, at +6 to +20 dBFS.
    private func hardSignals() -> [(String, [Float])] {
        let n = rate
        // A tone at a quarter of the rate, 45° off the samples: its peaks lie 3 dB above every sample.
        let quarter = (0..<n).map { Float(2 * sin(Double.pi / 2 * Double($0) + Double.pi / 4)) }
        // A tone near the top of the band, where 4× oversampling reads least.
        let high = (0..<n).map { Float(4 * sin(2 * Double.pi * 19_000 * Double($0) / Double(rate) + 0.3)) }
        // Alternating full-scale pairs: the classic worst case of a sample-peak limiter.
        let pairs = (0..<n).map { i -> Float in (i / 2) % 2 == 0 ? 10 : -10 }
        var noise = SeededUniformNoise(state: 11)
        let loudNoise = (0..<n).map { _ in noise.next() * 10 }
        let k = log(1000.0)
        let sweep = (0..<n).map { i -> Float in
            Float(4 * sin(2 * Double.pi * 20 * (exp(k * Double(i) / Double(n)) - 1) / k * Double(n) / Double(rate)))
        }
        return [("quarter-rate tone", quarter), ("19 kHz tone", high), ("alternating pairs", pairs),
                ("loud noise", loudNoise), ("sweep", sweep)]
    }

    func testTruePeakStaysAtTheCeilingWithAndWithoutLookahead() throws {
        for lookahead: Float in [1, 0] {
            for (name, signal) in hardSignals() {
                let peak = try truePeakDB(through: LimiterNode(ceilingDB: -1, lookaheadMilliseconds: lookahead), [signal, signal.map { -$0 * 0.7 }])
                XCTAssertLessThanOrEqual(peak, ceilingDB, "\(name), look-ahead \(lookahead) ms: \(peak) dBTP")
                // Held, not silenced: the peaks come out close to the ceiling.
                XCTAssertGreaterThan(peak, -3, "\(name), look-ahead \(lookahead) ms")
            }
        }
    }

    /// The negative control: the same quarter-rate tone with its samples just
    /// under the ceiling passes a sample-peak limiter untouched, and the meter
    /// reads its true peak 3 dB above them. The limiter must hold it.
    func testATonesPeaksBetweenSamplesAreLimited() throws {
        let samplesAt = Float(pow(10, -1.2 / 20))  // every sample at −1.2 dBFS
        let tone = (0..<rate).map { i -> Float in [1, 1, -1, -1][i % 4] * samplesAt }  // a quarter-rate tone at 45°
        let unlimited = try LoudnessMeter(channelCount: 1, sampleRate: rate, measures: .truePeak)
        tone.withUnsafeBufferPointer { unlimited.add($0.baseAddress!, frames: rate) }
        XCTAssertGreaterThan(unlimited.truePeakDBTP, 1.5, "the meter sees the peaks between the samples")
        let limited = try truePeakDB(through: LimiterNode(ceilingDB: -1, lookaheadMilliseconds: 0), [tone])
        XCTAssertLessThanOrEqual(limited, ceilingDB)
    }
}
