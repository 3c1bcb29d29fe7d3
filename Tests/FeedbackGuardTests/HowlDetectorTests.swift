import DSP
import FeedbackGuard
import RenderTestSupport
import XCTest

/// The howl detector on signals whose answer is known: growing sinusoids are
/// howls, steady, decaying, harmonic and wavering ones are not.
final class HowlDetectorTests: XCTestCase {
    private let rate = 48_000.0

    /// Pushes `signal` and collects every detection with the sample time it came at.
    private func detect(_ signal: [Float], criteria: HowlCriteria = HowlCriteria()) -> [(Int, HowlDetection)] {
        let detector = HowlDetector(sampleRate: rate, criteria: criteria)
        var found: [(Int, HowlDetection)] = []
        for (t, x) in signal.enumerated() {
            detector.push(x)
            if detector.analyzeIfDue() {
                for d in 0..<detector.detectionCount { found.append((t, detector.detections[d])) }
            }
        }
        return found
    }

    private func noise(_ frames: Int, level: Float, seed: UInt64 = 3) -> [Float] {
        var n = SeededUniformNoise(state: seed)
        return (0..<frames).map { _ in level * n.next() }
    }

    /// A sine at `frequency` whose level moves linearly in dB from `startDB` at `dBPerSecond`, capped at `capDB`.
    private func sine(_ frames: Int, frequency: Double, startDB: Double, dBPerSecond: Double = 0, capDB: Double = 0,
                      vibratoCents: Double = 0, vibratoHz: Double = 5.5) -> [Float] {
        var phase = 0.0
        return (0..<frames).map { i in
            let t = Double(i) / rate
            let level = min(capDB, startDB + dBPerSecond * t)
            let f = frequency * pow(2, vibratoCents / 1200 * sin(2 * Double.pi * vibratoHz * t))
            phase += 2 * Double.pi * f / rate
            return Float(pow(10, level / 20) * sin(phase))
        }
    }

    func testFFTMatchesTheDirectTransform() {
        // Every size the stage pairing treats differently: one butterfly, the radix-4 pass alone,
        // then an odd and an even number of stages after it; a complex input.
        for n in [2, 4, 8, 16, 32, 64, 1024] {
            let fft = RadixTwoFFT(size: n)
            let x = noise(n, level: 1), y = noise(n, level: 1, seed: 11)
            var re = x, im = y
            re.withUnsafeMutableBufferPointer { r in im.withUnsafeMutableBufferPointer { fft.transform(real: r.baseAddress!, imaginary: $0.baseAddress!) } }
            for k in 0..<n {
                var sr = 0.0, si = 0.0
                for t in 0..<n {
                    let c = cos(2 * Double.pi * Double(k * t) / Double(n)), s = sin(2 * Double.pi * Double(k * t) / Double(n))
                    sr += Double(x[t]) * c + Double(y[t]) * s
                    si += Double(y[t]) * c - Double(x[t]) * s
                }
                let tolerance = 1e-5 * Double(n)
                XCTAssertEqual(Double(re[k]), sr, accuracy: tolerance, "size \(n) bin \(k) real")
                XCTAssertEqual(Double(im[k]), si, accuracy: tolerance, "size \(n) bin \(k) imaginary")
            }
        }
    }

    func testAGrowingSineInNoiseIsFoundAtItsFrequencyWithinAQuarterSecond() {
        let frames = Int(rate)
        // From −70 dB at 60 dB/s: the kind of growth a loop 0.3 dB over unity with a 5 ms round trip makes.
        let howl = sine(frames, frequency: 1234.5, startDB: -70, dBPerSecond: 60, capDB: -6)
        let signal = zip(howl, noise(frames, level: 0.001)).map { $0 + $1 }
        let found = detect(signal)
        let first = try? XCTUnwrap(found.first)
        XCTAssertNotNil(first, "the growing sine was not reported")
        guard let (time, detection) = first else { return }
        XCTAssertEqual(detection.frequency, 1234.5, accuracy: 2, "frequency within 2 Hz")
        XCTAssertEqual(detection.reason, .growing)
        // It crosses the −60 dB threshold at 1/6 s; reported within a quarter second of that.
        XCTAssertLessThan(Double(time) / rate, 1.0 / 6 + 0.25, "reported at \(Double(time) / rate) s")
        // The slope is per analysis frame: 60 dB/s over one hop.
        let perFrame = 60 * Double(HowlCriteria().hopSize) / rate
        XCTAssertEqual(Double(detection.slopeDB), perFrame, accuracy: perFrame / 2, "slope in dB per frame")
    }

    func testSteadyDecayingAndHarmonicTonesAreNotHowls() {
        let frames = 2 * Int(rate)
        let steady = sine(frames, frequency: 880, startDB: -30)
        XCTAssertTrue(detect(steady).isEmpty, "a steady quiet sine is not a howl")
        let decaying = sine(frames, frequency: 440, startDB: -6, dBPerSecond: -20, capDB: 0)
        XCTAssertTrue(detect(decaying).isEmpty, "a decaying note is not a howl")
        // A growing note with overtones (a swell on a bowed or blown note): PHPR rejects it.
        let fundamental = sine(frames, frequency: 220, startDB: -70, dBPerSecond: 40, capDB: -12)
        let harmonic: [Float] = (2...6).map { h in sine(frames, frequency: 220 * Double(h), startDB: -70 - 3 * Double(h), dBPerSecond: 40, capDB: -12 - 3 * Double(h)) }
            .reduce(fundamental) { zip($0, $1).map { $0 + $1 } }
        let found = detect(harmonic)
        XCTAssertTrue(found.isEmpty, "a swelling harmonic tone is not a howl: \(found.map { $0.1 })")
    }

    func testASungNoteAndATestToneAreNotHowlsButAStillSineAtTheCeilingIs() {
        let frames = 2 * Int(rate)
        // Sung: ±30 cents at 5.5 Hz, loud and held.
        let sung = sine(frames, frequency: 660, startDB: -3, vibratoCents: 30)
        XCTAssertTrue(detect(sung).isEmpty, "a held note with vibrato is not a howl")
        // A test tone at −20 dB: still, but quieter than a howl the limiter holds can be.
        XCTAssertTrue(detect(sine(frames, frequency: 1000, startDB: -20)).isEmpty, "a −20 dB test tone is not a howl")
        // A howl the limiter holds: loud and perfectly still.
        let held = sine(frames, frequency: 660, startDB: -3)
        let found = detect(held)
        XCTAssertFalse(found.isEmpty, "a loud perfectly still sine is reported as a held howl")
        if let (time, d) = found.first {
            XCTAssertEqual(d.reason, .sustained)
            XCTAssertEqual(d.frequency, 660, accuracy: 2)
            // Needs `saturatedFrames` (16) analyses of it, one every hop (512 samples).
            XCTAssertGreaterThanOrEqual(time, HowlCriteria().saturatedFrames * HowlCriteria().hopSize - 1)
        }
    }

    /// The tonal share the guard's pinned-peak rule reads: a howl on a whole harmonic series (a flat loop's
    /// comb, 385 Hz apart, as on the virtual sound card), even clipped, is tonal; full-scale noise is not.
    func testAHarmonicSeriesIsTonalAndNoiseIsNot() {
        func tonal(_ signal: [Float]) -> Float {
            let detector = HowlDetector(sampleRate: rate)
            var last: Float = -1
            for x in signal {
                detector.push(x)
                if detector.analyzeIfDue() { last = detector.tonalFraction() }
            }
            return last
        }
        let frames = Int(rate / 4)
        let series = (0..<frames).map { i in
            (1...12).reduce(Float(0)) { sum, h in sum + 0.15 * Float(sin(2 * Double.pi * 385 * Double(h) * Double(i) / rate)) }
        }
        let clipped = series.map { max(-0.9, min(0.9, $0 * 2)) }
        let values = (series: tonal(series), clipped: tonal(clipped), noise: tonal(noise(frames, level: 0.9)),
                      quiet: tonal(noise(frames, level: 1e-6)))
        print("tonal share: harmonic series \(values.series), clipped \(values.clipped), full-scale noise \(values.noise), quiet \(values.quiet)")
        XCTAssertGreaterThan(values.series, 0.8)
        XCTAssertGreaterThan(values.clipped, 0.5)
        XCTAssertLessThan(values.noise, 0.1)
        XCTAssertEqual(values.quiet, 0)
    }
}
