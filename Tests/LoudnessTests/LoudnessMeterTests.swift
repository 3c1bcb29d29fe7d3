import Foundation
import Loudness
import XCTest

/// The meter against the signals EBU Tech 3341 (loudness) and Tech 3342
/// (loudness range) define, generated here, and a true peak between samples.
/// Tolerances are the ones those documents give a compliant meter.
final class LoudnessMeterTests: XCTestCase {
    private func measure(_ samples: [Float], rate: Int = 48000, channels: Int = 2) throws -> LoudnessMeter {
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate, measures: [.report, .shortTerm])
        samples.withUnsafeBufferPointer { meter.add($0.baseAddress!, frames: $0.count / channels) }
        return meter
    }

    /// Tech 3341 test 1: a stereo 1 kHz sine at −23 dBFS (peak, each channel) for
    /// 20 s reads −23.0 ± 0.1 LUFS, momentary, short-term and integrated.
    func testTheEBUReferenceSineReadsMinus23LUFS() throws {
        let meter = try measure(sine(frequency: 1000, amplitude: amplitude(dBFS: -23), seconds: 20))
        print("Tech 3341 case 1: I \(meter.integratedLUFS) S \(meter.shortTermLUFS) M \(meter.momentaryLUFS) LUFS")
        XCTAssertEqual(meter.integratedLUFS, -23, accuracy: 0.1)
        XCTAssertEqual(meter.shortTermLUFS, -23, accuracy: 0.1)
        XCTAssertEqual(meter.momentaryLUFS, -23, accuracy: 0.1)
        XCTAssertEqual(meter.report.seconds, 20, accuracy: 1e-9)
        XCTAssertTrue(meter.report.description.hasPrefix("-23.0 LUFS integrated"), meter.report.description)
    }

    /// Tech 3341 test 2: the same at −33 dBFS reads −33.0 ± 0.1 LUFS; at 44.1 kHz too.
    func testTenDecibelsDownReadsMinus33LUFSAtBothRates() throws {
        for rate in [48000, 44100] {
            let meter = try measure(sine(frequency: 1000, amplitude: amplitude(dBFS: -33), seconds: 20, rate: rate), rate: rate)
            XCTAssertEqual(meter.integratedLUFS, -33, accuracy: 0.1, "\(rate) Hz")
        }
    }

    /// Tech 3342 test 1: 20 s of a stereo 1 kHz sine at −20 dBFS, then 20 s at
    /// −30 dBFS: a loudness range of 10 ± 1 LU.
    func testTheEBURangeSignalReadsTenLU() throws {
        let meter = try measure(sine(frequency: 1000, amplitude: amplitude(dBFS: -20), seconds: 20)
                                + sine(frequency: 1000, amplitude: amplitude(dBFS: -30), seconds: 20))
        print("Tech 3342 case 1: LRA \(meter.loudnessRangeLU) LU")
        XCTAssertEqual(meter.loudnessRangeLU, 10, accuracy: 1)
    }

    /// A full-scale 4 kHz sine (12 samples a cycle at 48 kHz) starting at 15°:
    /// the samples fall at 15° + k·30°, never on the crest, the highest at 75°
    /// (sin 75° = 0.966, −0.30 dBFS); the wave between them reaches ±1. Its
    /// true peak is 0 dBTP, read within 0.1 dB: three times closer than the
    /// sample peak, which the test also checks.
    func testAFullScaleSinesTruePeakIsFoundBetweenItsSamples() throws {
        let meter = try measure(sine(frequency: 4000, amplitude: 1, seconds: 1, phase: Double.pi / 12))
        print("4 kHz full-scale sine at 15°: true peak \(meter.truePeakDBTP) dBTP, sample peak \(meter.samplePeakDBFS) dBFS")
        XCTAssertEqual(meter.truePeakDBTP, 0, accuracy: 0.1)
        XCTAssertEqual(meter.samplePeakDBFS, 20 * log10(sin(75 * Double.pi / 180)), accuracy: 0.01)
    }

    /// Silence passes no gate: integrated loudness and peaks are −∞, printed `-inf`.
    func testSilenceIsMinusInfinity() throws {
        let meter = try measure([Float](repeating: 0, count: 48000 * 2 * 5))
        XCTAssertEqual(meter.integratedLUFS, -.infinity)
        XCTAssertEqual(meter.truePeakDBTP, -.infinity)
        XCTAssertEqual(meter.report.description, "-inf LUFS integrated, range 0.0 LU, true peak -inf dBTP")
    }

    func testALayoutLibebur128RefusesIsAnError() {
        XCTAssertThrowsError(try LoudnessMeter(channelCount: 0, sampleRate: 48000)) { error in
            XCTAssertEqual(error as? LoudnessError, .unsupported(channels: 0, sampleRate: 48000))
        }
        XCTAssertThrowsError(try LoudnessMeter(channelCount: 2, sampleRate: 0))
    }
}
