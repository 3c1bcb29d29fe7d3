/// The colours of test noise.
enum NoiseColour: String, CaseIterable {
    case white, pink
}

/// Reproducible test noise for the voice processing tests.
enum VoiceTestSignals {
    /// `frames` samples of white noise in −1…1 (a 64-bit LCG), or pink noise
    /// from it through Paul Kellet's "economy" filter (three one-pole
    /// sections, within ±0.5 dB of −3 dB/octave above 40 Hz at 44.1–48 kHz).
    static func noise(_ colour: NoiseColour, frames: Int, seed: UInt64) -> [Float] {
        var state = seed
        var b0: Float = 0, b1: Float = 0, b2: Float = 0
        return (0..<frames).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let white = Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
            switch colour {
            case .white:
                return white
            case .pink:
                b0 = 0.99765 * b0 + white * 0.0990460
                b1 = 0.96300 * b1 + white * 0.2965164
                b2 = 0.57000 * b2 + white * 1.0526913
                return (b0 + b1 + b2 + white * 0.1848) * 0.2
            }
        }
    }
}
