#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Conversions between decibels and linear gain, for the nodes and their meters.

/// Decibels to a linear gain factor.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic and `powf`)
@inlinable
public func decibelsToGain(_ db: Float) -> Float { db <= -144 ? 0 : powf(10, db / 20) }

/// `decibelsToGain` for per-sample use in DSP kernels: 10^(db/20) as one `exp2f`
/// (no `powf`), and exactly 1 at 0 dB so a unity stage multiplies by 1.
/// - Thread: audio
/// - Realtime: safe (arithmetic only)
@inline(__always)
public func sampleGain(decibels db: Float) -> Float {
    db == 0 ? 1 : _unsafePerformance { exp2f(db * 0.166_096_4) }  // log2(10) / 20
}

/// A linear gain factor to decibels (−inf for 0).
@inlinable
public func gainToDecibels(_ gain: Float) -> Float { gain > 0 ? 20 * log10f(gain) : -.infinity }
