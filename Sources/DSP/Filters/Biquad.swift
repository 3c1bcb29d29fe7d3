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

    /// The filter that passes its input unchanged.
    public static let identity = BiquadCoefficients(b0: 1, b1: 0, b2: 0, a1: 0, a2: 0)

    // MARK: Audio thread

    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public init(b0: Double, b1: Double, b2: Double, a1: Double, a2: Double) {
        self.b0 = b0
        self.b1 = b1
        self.b2 = b2
        self.a1 = a1
        self.a2 = a2
    }

    /// The RBJ cookbook coefficients for `kind`.
    ///
    /// Shelves use the cookbook's Q form of alpha, `sin(w0) / (2 Q)`; Q = 1/√2
    /// (0.7071) is the same as shelf slope S = 1, the steepest shelf without a
    /// bump. `gainDB` is ignored by the high-pass. `frequency` is kept inside
    /// (0, 0.499 × sampleRate), where the cookbook's bilinear design is defined,
    /// and `q` is kept positive.
    ///
    /// - Thread: audio, control
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

    // MARK: Any thread

    /// The analytic magnitude |H(e^jw)| in dB at `frequency`, computed in Double
    /// (JUCE's `IIR::Coefficients::getMagnitudeForFrequency`). The tests hold
    /// measured impulse responses against it.
    /// - Thread: any (nothing on the audio thread needs it)
    /// - Realtime: safe (arithmetic and libm only)
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

    // MARK: Audio thread

    /// Zero state: silence in the registers.
    /// - Thread: audio, control
    /// - Realtime: safe
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
///
/// Inside a call the kernels evaluate the same recursion in its direct form I
/// arrangement, y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a2·y[n−2] − a1·y[n−1]
/// (the first two samples come from the registers, exactly as above, and the
/// registers are rebuilt from the last two samples at the end). It is the same
/// filter; only the order of the Double additions differs. The point is speed:
/// the recursion is latency-bound, and this order puts one multiply and one
/// subtraction between consecutive outputs instead of four dependent operations.
public struct Biquad: Sendable {
    public var coefficients: BiquadCoefficients

    // MARK: Audio thread

    /// - Thread: audio, control
    /// - Realtime: safe
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
    /// - Thread: audio, control
    /// - Realtime: safe. Arithmetic on caller-owned memory only; checked by the
    ///   compiler with `@_noLocks`.
    @_noLocks
    @inlinable
    public func process(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int, state: inout BiquadState) {
        let b0 = coefficients.b0, b1 = coefficients.b1, b2 = coefficients.b2
        let a1 = coefficients.a1, a2 = coefficients.a2
        var z1 = state.z1
        var z2 = state.z2
        if count >= 2 {
            // The first two samples straight from the registers (TDF2).
            let x0 = Double(input[0])
            let y0 = b0 * x0 + z1
            z1 = b1 * x0 - a1 * y0 + z2
            let x1 = Double(input[1])
            let y1 = b0 * x1 + z1
            output[0] = Float(y0)
            output[1] = Float(y1)
            var xm2 = x0, xm1 = x1, ym2 = y0, ym1 = y1
            var i = 2
            while i < count {
                let x = Double(input[i])
                let feedForward = (b0 * x + b1 * xm1) + b2 * xm2
                let y = (feedForward - a2 * ym2) - a1 * ym1
                output[i] = Float(y)
                xm2 = xm1; xm1 = x
                ym2 = ym1; ym1 = y
                i += 1
            }
            // Rebuild the registers from the last two samples, as TDF2 would have them.
            z2 = b2 * xm1 - a2 * ym1
            z1 = b1 * xm1 - a1 * ym1 + (b2 * xm2 - a2 * ym2)
        } else if count == 1 {
            let x = Double(input[0])
            let y = b0 * x + z1
            z1 = b1 * x - a1 * y + z2
            z2 = b2 * x - a2 * y
            output[0] = Float(y)
        }
        if abs(z1) < 1e-30 { z1 = 0 }
        if abs(z2) < 1e-30 { z2 = 0 }
        state.z1 = z1
        state.z2 = z2
    }

    /// Filters two channels at once, each with its own state: the same
    /// arithmetic as `process(_:_:count:state:)` on each channel (so the
    /// results are identical to two mono calls), interleaved in one loop so the
    /// two independent recursions overlap (the compiler pairs them into SIMD
    /// lanes). Each output may be the same pointer as either input (in place,
    /// or one mono source feeding both outputs); the outputs must not overlap
    /// each other or otherwise overlap the inputs.
    ///
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on caller-owned memory only; checked by the
    ///   compiler with `@_noLocks`.
    @_noLocks
    @inlinable
    public func process(_ input0: UnsafePointer<Float>, _ input1: UnsafePointer<Float>,
                        _ output0: UnsafeMutablePointer<Float>, _ output1: UnsafeMutablePointer<Float>,
                        count: Int, state0: inout BiquadState, state1: inout BiquadState) {
        let b0 = coefficients.b0, b1 = coefficients.b1, b2 = coefficients.b2
        let a1 = coefficients.a1, a2 = coefficients.a2
        var z1L = state0.z1, z2L = state0.z2
        var z1R = state1.z1, z2R = state1.z2
        if count >= 2 {
            // The first two samples straight from the registers (TDF2).
            let x0L = Double(input0[0]), x0R = Double(input1[0])
            let y0L = b0 * x0L + z1L, y0R = b0 * x0R + z1R
            z1L = b1 * x0L - a1 * y0L + z2L
            z1R = b1 * x0R - a1 * y0R + z2R
            let x1L = Double(input0[1]), x1R = Double(input1[1])
            let y1L = b0 * x1L + z1L, y1R = b0 * x1R + z1R
            output0[0] = Float(y0L); output1[0] = Float(y0R)
            output0[1] = Float(y1L); output1[1] = Float(y1R)
            var xm2L = x0L, xm1L = x1L, ym2L = y0L, ym1L = y1L
            var xm2R = x0R, xm1R = x1R, ym2R = y0R, ym1R = y1R
            var i = 2
            while i < count {
                // Both loads before either store: an output may alias an input.
                let xL = Double(input0[i]), xR = Double(input1[i])
                let feedForwardL = (b0 * xL + b1 * xm1L) + b2 * xm2L
                let feedForwardR = (b0 * xR + b1 * xm1R) + b2 * xm2R
                let yL = (feedForwardL - a2 * ym2L) - a1 * ym1L
                let yR = (feedForwardR - a2 * ym2R) - a1 * ym1R
                output0[i] = Float(yL); output1[i] = Float(yR)
                xm2L = xm1L; xm1L = xL; ym2L = ym1L; ym1L = yL
                xm2R = xm1R; xm1R = xR; ym2R = ym1R; ym1R = yR
                i += 1
            }
            z2L = b2 * xm1L - a2 * ym1L
            z1L = b1 * xm1L - a1 * ym1L + (b2 * xm2L - a2 * ym2L)
            z2R = b2 * xm1R - a2 * ym1R
            z1R = b1 * xm1R - a1 * ym1R + (b2 * xm2R - a2 * ym2R)
        } else if count == 1 {
            let xL = Double(input0[0]), xR = Double(input1[0])
            let yL = b0 * xL + z1L, yR = b0 * xR + z1R
            z1L = b1 * xL - a1 * yL + z2L
            z2L = b2 * xL - a2 * yL
            z1R = b1 * xR - a1 * yR + z2R
            z2R = b2 * xR - a2 * yR
            output0[0] = Float(yL); output1[0] = Float(yR)
        }
        if abs(z1L) < 1e-30 { z1L = 0 }
        if abs(z2L) < 1e-30 { z2L = 0 }
        if abs(z1R) < 1e-30 { z1R = 0 }
        if abs(z2R) < 1e-30 { z2R = 0 }
        state0.z1 = z1L; state0.z2 = z2L
        state1.z1 = z1R; state1.z2 = z2R
    }

    /// Filters `count` samples through this kernel and then `next`, in one pass:
    /// exactly what `process(_:_:count:state:)` with this kernel into `output`,
    /// then with `next` in place, gives (the intermediate is rounded to Float,
    /// as a block between two nodes is), with the two recursions interleaved so
    /// that the second's runs beside the first's instead of after it.
    /// `input` and `output` may be the same pointer but must not otherwise overlap.
    ///
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on caller-owned memory only; checked by the
    ///   compiler with `@_noLocks`.
    @_noLocks
    @inlinable
    public func process(_ input: UnsafePointer<Float>, then next: Biquad, into output: UnsafeMutablePointer<Float>,
                        count: Int, state: inout BiquadState, nextState: inout BiquadState) {
        guard count >= 2 else {
            process(input, output, count: count, state: &state)
            next.process(output, count: count, state: &nextState)
            return
        }
        let b0 = coefficients.b0, b1 = coefficients.b1, b2 = coefficients.b2
        let a1 = coefficients.a1, a2 = coefficients.a2
        let c0 = next.coefficients.b0, c1 = next.coefficients.b1, c2 = next.coefficients.b2
        let d1 = next.coefficients.a1, d2 = next.coefficients.a2
        var z1 = state.z1, z2 = state.z2
        var w1 = nextState.z1, w2 = nextState.z2
        // The first two samples of each straight from its registers (TDF2).
        let x0 = Double(input[0])
        let y0 = b0 * x0 + z1
        z1 = b1 * x0 - a1 * y0 + z2
        let x1 = Double(input[1])
        let y1 = b0 * x1 + z1
        let u0 = Double(Float(y0))
        let v0 = c0 * u0 + w1
        w1 = c1 * u0 - d1 * v0 + w2
        let u1 = Double(Float(y1))
        let v1 = c0 * u1 + w1
        output[0] = Float(v0)
        output[1] = Float(v1)
        var xm2 = x0, xm1 = x1, ym2 = y0, ym1 = y1
        var um2 = u0, um1 = u1, vm2 = v0, vm1 = v1
        var i = 2
        while i < count {
            let x = Double(input[i])
            let feedForward = (b0 * x + b1 * xm1) + b2 * xm2
            let y = (feedForward - a2 * ym2) - a1 * ym1
            let u = Double(Float(y))
            let nextFeedForward = (c0 * u + c1 * um1) + c2 * um2
            let v = (nextFeedForward - d2 * vm2) - d1 * vm1
            output[i] = Float(v)
            xm2 = xm1; xm1 = x; ym2 = ym1; ym1 = y
            um2 = um1; um1 = u; vm2 = vm1; vm1 = v
            i += 1
        }
        // Rebuild the registers from the last two samples, as TDF2 would have them.
        z2 = b2 * xm1 - a2 * ym1
        z1 = b1 * xm1 - a1 * ym1 + (b2 * xm2 - a2 * ym2)
        w2 = c2 * um1 - d2 * vm1
        w1 = c1 * um1 - d1 * vm1 + (c2 * um2 - d2 * vm2)
        if abs(z1) < 1e-30 { z1 = 0 }
        if abs(z2) < 1e-30 { z2 = 0 }
        if abs(w1) < 1e-30 { w1 = 0 }
        if abs(w2) < 1e-30 { w2 = 0 }
        state.z1 = z1; state.z2 = z2
        nextState.z1 = w1; nextState.z2 = w2
    }

    /// Filters `count` samples of `samples` in place, advancing `state`.
    /// - Thread: audio, control
    /// - Realtime: safe (see `process(_:_:count:state:)`)
    @_noLocks
    @inlinable
    public func process(_ samples: UnsafeMutablePointer<Float>, count: Int, state: inout BiquadState) {
        process(UnsafePointer(samples), samples, count: count, state: &state)
    }
}
