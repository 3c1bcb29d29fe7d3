import DSP
import RenderTestSupport
import XCTest

/// The howl detector's decimator: its measured response (flat in the passband, the stopband
/// folded back far down), its delay, and the same output however the input is cut up.
final class HalfBandDecimatorTests: XCTestCase {
    /// Decimates `input` in chunks of `chunk` samples.
    private func decimate(_ input: [Float], chunk: Int) -> [Float] {
        let decimator = HalfBandDecimator(maximumChunk: 256)
        var output: [Float] = []
        var scratch = [Float](repeating: 0, count: 256)
        var start = 0
        while start < input.count {
            let n = min(chunk, input.count - start)
            let produced = input.withUnsafeBufferPointer { source in
                scratch.withUnsafeMutableBufferPointer { decimator.process(source.baseAddress! + start, count: n, into: $0.baseAddress!) }
            }
            output += scratch[0..<produced]
            start += n
        }
        return output
    }

    /// The amplitude of a sine at `frequency` (fraction of the input rate) after decimation, from its
    /// output's RMS once the filter has filled, in dB.
    private func gainDB(at frequency: Double) -> Double {
        let input = (0..<8192).map { Float(sin(2 * Double.pi * frequency * Double($0))) }
        let output = decimate(input, chunk: 256)
        let settled = output[64...]
        let rms = (settled.reduce(0) { $0 + Double($1) * Double($1) } / Double(settled.count)).squareRoot()
        return 20 * log10(rms * 2.0.squareRoot())
    }

    func testPassbandIsFlatAndTheStopbandFoldsBackFarDown() {
        let edge = HalfBandDecimator.passbandEdge
        XCTAssertGreaterThan(edge, 0.2, "passband to at least a fifth of the input rate (9.6 kHz at 48 kHz)")
        var worstPass = 0.0, worstStop = -200.0
        for f in stride(from: 0.005, through: edge, by: 0.005) { worstPass = max(worstPass, abs(gainDB(at: f))) }
        for f in stride(from: 0.5 - edge, through: 0.495, by: 0.005) { worstStop = max(worstStop, gainDB(at: f)) }
        print(String(format: "half-band decimator: passband (to %.3f fs) within %.4f dB, stopband (from %.3f fs) at most %.1f dB",
                     edge, worstPass, 0.5 - edge, worstStop))
        XCTAssertLessThan(worstPass, 0.02, "flat passband")
        XCTAssertLessThan(worstStop, -50, "what folds back under the passband is at least 50 dB down")
    }

    func testAnImpulseComesOutAfterHalfTheFilterAndChunkingDoesNotMatter() {
        var noise = SeededUniformNoise(state: 11)
        let input = (0..<5000).map { _ in noise.next() }
        let whole = decimate(input, chunk: 256)
        XCTAssertEqual(whole.count, 2500)
        for chunk in [1, 3, 64, 255] {
            XCTAssertEqual(decimate(input, chunk: chunk), whole, "chunks of \(chunk)")
        }
        // An impulse at input sample 2k lands, scaled by the centre tap (one half), on output sample
        // k + (tapCount − 1) / 4: the filter delays by (tapCount − 1) / 2 input samples.
        var impulse = [Float](repeating: 0, count: 400)
        impulse[101] = 1  // an odd sample meets the centre tap
        let response = decimate(impulse, chunk: 256)
        let delay = (HalfBandDecimator.tapCount - 1) / 2
        let peak = response.indices.max { abs(response[$0]) < abs(response[$1]) }!
        XCTAssertEqual(peak * 2, 101 + delay, "the centre tap is half the filter's length behind")
        XCTAssertEqual(response[peak], 0.5, accuracy: 1e-3, "the centre tap of a half-band filter is one half")
    }
}
