#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The filter shapes of the voice chain's EQ, from Robert Bristow-Johnson's
/// "Cookbook formulae for audio EQ biquad filter coefficients".
public enum BiquadKind: Sendable {
    /// Second-order high-pass; `q` 0.7071 is Butterworth (−3 dB at the corner).
    case highPass
    /// Low shelf; `frequency` is the shelf midpoint, where the gain is half the shelf's dB.
    case lowShelf
    /// High shelf; `frequency` is the shelf midpoint, where the gain is half the shelf's dB.
    case highShelf
    /// Peaking (bell) filter; `gainDB` at `frequency`, width set by `q`.
    case peaking
}

/// The coefficients of one biquad section, normalized so that a0 = 1:
///
///     H(z) = (b0 + b1 z⁻¹ + b2 z⁻²) / (1 + a1 z⁻¹ + a2 z⁻²)
///
/// Kept in Double: the poles of an 80 Hz high-pass at 48 kHz sit within 1 % of
/// the unit circle, where Float coefficients would shift the response by more
/// than the 0.1 dB the EQ promises near 20 Hz.
public struct BiquadCoefficients: Sendable, Equatable {
    public var b0: Double
    public var b1: Double
    public var b2: Double
    public var a1: Double
    public var a2: Double

    @inlinable
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// The filter that passes its input unchanged.
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    /// The RBJ cookbook coefficients for `kind`.
    ///
    /// Shelves use the cookbook's Q form of alpha, `sin(w0) / (2 Q)`; Q = 1/√2
    /// (0.7071) is the same as shelf slope S = 1, the steepest shelf without a
    /// bump. `gainDB` is ignored by the high-pass. `frequency` is kept inside
    /// (0, 0.499 × sampleRate), where the cookbook's bilinear design is defined,
    /// and `q` is kept positive.
    ///
    /// - Realtime: safe. Pure arithmetic and libm (`sin`, `cos`, `pow`), which
    ///   neither allocate nor lock; the smoothing nodes call it every 16 samples.
    @_noLocks
    public static func make(kind: BiquadKind, sampleRate: Double, frequency: Double, gainDB: Double, q: Double) -> BiquadCoefficients {
        let f = min(max(frequency, 1e-3), 0.499 * sampleRate)
        let w0 = 2 * Double.pi * f / sampleRate
        // libm is plain arithmetic; the checker cannot see into C, so vouch for it.
        let (cosW, sinW, a, sqrtA) = _unsafePerformance { (cos(w0), sin(w0), pow(10, gainDB / 40), pow(10, gainDB / 80)) }
        let alpha = sinW / (2 * max(q, 1e-4))
        let b0, b1, b2, a0, a1, a2: Double
        switch kind {
        case .highPass:
            b0 = (1 + cosW) / 2
            b1 = -(1 + cosW)
            b2 = (1 + cosW) / 2
            a0 = 1 + alpha
            a1 = -2 * cosW
            a2 = 1 - alpha
        case .peaking:
            b0 = 1 + alpha * a
            b1 = -2 * cosW
            b2 = 1 - alpha * a
            a0 = 1 + alpha / a
            a1 = -2 * cosW
            a2 = 1 - alpha / a
        case .lowShelf:
            let twoSqrtAAlpha = 2 * sqrtA * alpha
            b0 = a * ((a + 1) - (a - 1) * cosW + twoSqrtAAlpha)
            b1 = 2 * a * ((a - 1) - (a + 1) * cosW)
            b2 = a * ((a + 1) - (a - 1) * cosW - twoSqrtAAlpha)
            a0 = (a + 1) + (a - 1) * cosW + twoSqrtAAlpha
            a1 = -2 * ((a - 1) + (a + 1) * cosW)
            a2 = (a + 1) + (a - 1) * cosW - twoSqrtAAlpha
        case .highShelf:
            let twoSqrtAAlpha = 2 * sqrtA * alpha
            b0 = a * ((a + 1) + (a - 1) * cosW + twoSqrtAAlpha)
            b1 = -2 * a * ((a - 1) + (a + 1) * cosW)
            b2 = a * ((a + 1) + (a - 1) * cosW - twoSqrtAAlpha)
            a0 = (a + 1) - (a - 1) * cosW + twoSqrtAAlpha
            a1 = 2 * ((a - 1) - (a + 1) * cosW)
            a2 = (a + 1) - (a - 1) * cosW - twoSqrtAAlpha
        }
        let inverse = 1 / a0
        return BiquadCoefficients(b0: b0 * inverse, b1: b1 * inverse, b2: b2 * inverse, a1: a1 * inverse, a2: a2 * inverse)
    }

    /// The analytic magnitude |H(e^jw)| in dB at `frequency`, computed in Double
    /// (JUCE's `IIR::Coefficients::getMagnitudeForFrequency`). The tests hold
    /// measured impulse responses against it.
    /// - Realtime: safe (arithmetic and libm only), though nothing on the audio thread needs it.
    public func magnitudeDB(atFrequency frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * Double.pi * frequency / sampleRate
        let c1 = cos(w), s1 = sin(w)
        let c2 = cos(2 * w), s2 = sin(2 * w)
        // e^{-jw} = c1 − j s1, e^{-2jw} = c2 − j s2.
        let numRe = b0 + b1 * c1 + b2 * c2
        let numIm = -(b1 * s1 + b2 * s2)
        let denRe = 1 + a1 * c1 + a2 * c2
        let denIm = -(a1 * s1 + a2 * s2)
        let power = (numRe * numRe + numIm * numIm) / (denRe * denRe + denIm * denIm)
        return 10 * log10(power)
    }
}

/// The two delay registers of one channel of a transposed direct form II biquad.
///
/// Double, like the coefficients: with poles this close to the unit circle the
/// recursion amplifies its own round-off, and Float state would leave a noise
/// floor and response error the 0.1 dB promise cannot afford; Double costs
/// nothing noticeable for three biquads per channel.
public struct BiquadState: Sendable, Equatable {
    public var z1: Double = 0
    public var z2: Double = 0

    @inlinable
    public init() {}
}

/// A biquad kernel: coefficients and the transposed direct form II recursion,
///
///     y  = b0·x + z1
///     z1 = b1·x − a1·y + z2
///     z2 = b2·x − a2·y
///
/// The state lives outside, one `BiquadState` per channel, owned by the node,
/// so one kernel serves every channel.
public struct Biquad: Sendable {
    public var coefficients: BiquadCoefficients

    @inlinable
    public init(coefficients: BiquadCoefficients = .identity) {
        self.coefficients = coefficients
    }

    /// Filters `count` samples from `input` into `output`, advancing `state`.
    /// `input` and `output` may be the same pointer (in place) but must not
    /// otherwise overlap.
    ///
    /// The state is flushed to zero once it falls below 1e-30 at the end of a
    /// call, so a decaying tail never lingers in denormals (even on a thread
    /// without flush-to-zero); at 1e-30 that changes nothing audible or measurable.
    ///
    /// - Realtime: safe. Arithmetic on caller-owned memory only; checked by the
    ///   compiler with `@_noLocks`.
    @_noLocks
    @inlinable
    public func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int, state: inout BiquadState) {
        let c = coefficients
        var z1 = state.z1
        var z2 = state.z2
        for i in 0..<count {
            let x = Double(input[i])
            let y = c.b0 * x + z1
            z1 = c.b1 * x - c.a1 * y + z2
            z2 = c.b2 * x - c.a2 * y
            output[i] = Float(y)
        }
        if abs(z1) < 1e-30 { z1 = 0 }
        if abs(z2) < 1e-30 { z2 = 0 }
        state.z1 = z1
        state.z2 = z2
    }

    /// Filters `count` samples of `samples` in place, advancing `state`.
    /// - Realtime: safe (see `process(_:_:count:state:)`).
    @_noLocks
    @inlinable
    public func process(_ samples: UnsafeMutablePointer<Float>, count: Int, state: inout BiquadState) {
        process(UnsafePointer(samples), samples, count: count, state: &state)
    }
}
