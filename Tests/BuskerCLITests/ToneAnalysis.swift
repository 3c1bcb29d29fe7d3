import Foundation

/// Single-frequency measurements of a played signal, for checking the pitch
/// of what busker played.
enum ToneAnalysis {
    /// The magnitude of `samples`' discrete Fourier transform at `frequency`
    /// (the window's sum, not normalised: for comparing frequencies).
    static func magnitude(of samples: some Sequence<Float>, at frequency: Double, sampleRate: Double) -> Double {
        var re = 0.0, im = 0.0
        for (n, v) in samples.enumerated() {
            re += Double(v) * cos(2 * .pi * frequency * Double(n) / sampleRate)
            im -= Double(v) * sin(2 * .pi * frequency * Double(n) / sampleRate)
        }
        return (re * re + im * im).squareRoot()
    }

    /// Which of `candidates` (Hz) is strongest in `samples`.
    static func strongestFrequency(in samples: some Sequence<Float>, among candidates: StrideThrough<Double>,
                                   sampleRate: Double) -> Double? {
        candidates.max { magnitude(of: samples, at: $0, sampleRate: sampleRate) < magnitude(of: samples, at: $1, sampleRate: sampleRate) }
    }
}
