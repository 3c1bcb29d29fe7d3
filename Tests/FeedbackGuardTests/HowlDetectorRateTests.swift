import FeedbackGuard
import RenderTestSupport
import XCTest

/// The howl detector at 44.1, 48 and 96 kHz: its band reaches down to the bass
/// (where the bass shelf boosts most) and its windows last the same time at every rate.
final class HowlDetectorRateTests: XCTestCase {
    /// The first detection (sample index and what was found) for `signal` at `rate`.
    private func firstDetection(_ signal: [Float], rate: Double) -> (Int, HowlDetection)? {
        let detector = HowlDetector(sampleRate: rate)
        for (t, x) in signal.enumerated() {
            detector.push(x)
            if detector.analyzeIfDue() && detector.detectionCount > 0 { return (t, detector.detections[0]) }
        }
        return nil
    }

    /// A sine at `frequency` growing at `dBPerSecond` from `startDB`, capped at −6 dB, over a noise floor at −80 dB.
    private func growingSine(seconds: Double, frequency: Double, startDB: Double, dBPerSecond: Double, rate: Double) -> [Float] {
        var noise = SeededUniformNoise(state: 5)
        var phase = 0.0
        return (0..<Int(seconds * rate)).map { i in
            let level = min(-6, startDB + dBPerSecond * Double(i) / rate)
            phase += 2 * Double.pi * frequency / rate
            return Float(pow(10, level / 20) * sin(phase)) + 0.0001 * noise.next()
        }
    }

    func testAGrowingHowlIsFoundFromTheBassUpAtTheSameTimeAtEveryRate() {
        let frequencies: [Double] = [60, 80, 100, 120, 150, 1000]
        let rates: [Double] = [44_100, 48_000, 96_000]
        var lines: [String] = []
        for frequency in frequencies {
            var times: [Double] = []
            for rate in rates {
                // From −60 dB (the PTPR threshold) at 80 dB/s: a loop 0.4 dB over unity with a 5 ms round trip.
                let signal = growingSine(seconds: 0.6, frequency: frequency, startDB: -60, dBPerSecond: 80, rate: rate)
                guard let (t, found) = firstDetection(signal, rate: rate) else {
                    XCTFail("\(Int(frequency)) Hz at \(Int(rate)) Hz: not found")
                    continue
                }
                let ms = Double(t) / rate * 1000
                times.append(ms)
                lines.append("\(Int(frequency)) Hz at \(Int(rate)) Hz: \(String(format: "%.1f", ms)) ms, \(String(format: "%.1f", found.frequency)) Hz")
                XCTAssertEqual(found.reason, .growing, "\(Int(frequency)) Hz at \(Int(rate)) Hz")
                // Within a tenth of a bin's width (21–23 Hz at every rate) plus the interpolation's bias.
                XCTAssertEqual(Double(found.frequency), frequency, accuracy: 0.03 * frequency + 1, "\(Int(frequency)) Hz at \(Int(rate)) Hz")
                // The growth window (64 ms at every rate) after the peak clears the threshold in the frame (~20 ms).
                XCTAssertGreaterThan(ms, 64, "\(Int(frequency)) Hz at \(Int(rate)) Hz")
                XCTAssertLessThan(ms, 130, "\(Int(frequency)) Hz at \(Int(rate)) Hz")
            }
            if let low = times.min(), let high = times.max() {
                // The same growth found at the same moment at every rate (within about two hops of 48 kHz).
                let twoHops = 2 * Double(HowlCriteria().hopSize) / 48
                XCTAssertLessThan(high - low, twoHops + 1, "\(Int(frequency)) Hz: \(times) ms across rates")
            }
        }
        print("Howl detection across rates:\n  " + lines.joined(separator: "\n  "))
    }
}
