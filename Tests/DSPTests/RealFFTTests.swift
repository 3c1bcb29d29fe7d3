import DSP
import Foundation
import XCTest

/// The real FFT against the DFT's definition, computed directly in Double.
final class RealFFTTests: XCTestCase {
    /// For random frames of 4 to 1024 samples, every bin is within 1e-5 of
    /// the direct DFT relative to the spectrum's largest bin (Float's
    /// rounding through log2 N stages, not an error of the packing), and
    /// the inverse gives the frame back within 1e-6 of its peak.
    func testForwardIsTheDFTAndInverseUndoesIt() {
        var generator = SystemRandomNumberGenerator()
        for size in [4, 8, 64, 512, 1024] {
            let fft = RealFFT(size: size)
            let x = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
            var re = [Float](repeating: 0, count: fft.binCount), im = re
            x.withUnsafeBufferPointer { frame in fft.forward(frame.baseAddress!, real: &re, imaginary: &im) }
            var largest = 0.0, worst = 0.0
            var direct: [(Double, Double)] = []
            for k in 0...size / 2 {
                var sr = 0.0, si = 0.0
                for n in 0..<size {
                    let angle = -2 * Double.pi * Double(k * n % size) / Double(size)
                    sr += Double(x[n]) * cos(angle)
                    si += Double(x[n]) * sin(angle)
                }
                direct.append((sr, si))
                largest = max(largest, hypot(sr, si))
            }
            for k in 0...size / 2 {
                worst = max(worst, hypot(Double(re[k]) - direct[k].0, Double(im[k]) - direct[k].1))
            }
            XCTAssertLessThan(worst / largest, 1e-5, "size \(size)")
            XCTAssertEqual(im[0], 0)
            XCTAssertEqual(im[size / 2], 0)
            var back = [Float](repeating: 0, count: size)
            fft.inverse(real: re, imaginary: im, into: &back)
            let peak = x.map { abs($0) }.max()!
            let error = zip(x, back).map { abs($0 - $1) }.max()!
            XCTAssertLessThan(error / peak, 1e-6, "size \(size)")
        }
    }

    /// The windows go on sample for sample: with a random (asymmetric) window
    /// w, `forward(x, window: w)` is `forward(x·w)` and `inverse(X, window: w)`
    /// is `inverse(X)·w`, to the last bit (the same products in the same order).
    func testWindowsApplySampleForSample() {
        var generator = SystemRandomNumberGenerator()
        for size in [8, 256] {
            let fft = RealFFT(size: size)
            let x = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
            let w = (0..<size).map { _ in Float.random(in: 0...1, using: &generator) }
            var re = [Float](repeating: 0, count: fft.binCount), im = re, re2 = re, im2 = re
            fft.forward(x, window: w, real: &re, imaginary: &im)
            fft.forward(zip(x, w).map { $0 * $1 }, real: &re2, imaginary: &im2)
            XCTAssertEqual(re, re2, "size \(size)")
            XCTAssertEqual(im, im2, "size \(size)")
            var windowed = [Float](repeating: 0, count: size), plain = windowed
            fft.inverse(real: re, imaginary: im, into: &windowed, window: w)
            fft.inverse(real: re, imaginary: im, into: &plain)
            XCTAssertEqual(windowed, zip(plain, w).map { $0 * $1 }, "size \(size)")
        }
    }

    /// A cosine on bin 5 of 64 lands in bin 5 alone, with half the frame's length as its height.
    func testACosineOnABinLandsInThatBin() {
        let size = 64
        let fft = RealFFT(size: size)
        let x = (0..<size).map { Float(cos(2 * Double.pi * 5 * Double($0) / Double(size))) }
        var re = [Float](repeating: 0, count: fft.binCount), im = re
        fft.forward(x, real: &re, imaginary: &im)
        for k in 0...size / 2 {
            XCTAssertEqual(hypot(re[k], im[k]), k == 5 ? 32 : 0, accuracy: 1e-4, "bin \(k)")
        }
    }
}
