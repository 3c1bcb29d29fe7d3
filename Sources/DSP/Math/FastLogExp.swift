import Engine

// Base-2 logarithm and exponential for per-sample gain computers (the
// compressor's level detector and gain, the gate's gain), inlined arithmetic
// instead of libm calls.
//
// Accuracy, and why it is enough: `fastLog2` is within 4e-6 of log2 plus the
// Float result's own rounding (at most 1e-5 in all: a level error under
// 0.00003 dB) and `fastExp2` within 3e-7 relative of 2^x (a gain
// error under 0.000003 dB), both checked over their whole ranges by
// `FastLogExpTests`. The requirement they meet is 0.0001 dB on every level
// and gain: a thousandth of the smallest level step a listener hears
// (about 0.1 dB), and far inside the compressor detector's own ripple
// (±0.35 dB on a 100 Hz tone). libm's `log10f` and `exp2f` are calls the
// compiler cannot inline or schedule across; these are a dozen multiply-adds.

/// log2(x) for a positive, finite, normal `x` (|error| < 4e-6 plus half an ulp of the result).
///
/// The exponent comes from the bits; the mantissa is taken into
/// [√½, √2) and log2(1 + t) = t·p(t) with a degree-5 polynomial fitted on
/// that interval (Chebyshev nodes, least squares), so log2(1) is exactly 0.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastLog2(_ x: Float) -> Float {
    let bits = x.bitPattern
    // Exponent relative to √½ (0x3f3504f3), so the mantissa lands in [√½, √2).
    let e = Int32(bitPattern: bits &- 0x3f35_04f3) >> 23
    let m = Float(bitPattern: bits &- (UInt32(bitPattern: e) << 23))
    let t = m - 1
    var p: Float = -0.206_858_13
    p = p * t + 0.318_407_12
    p = p * t - 0.366_413_27
    p = p * t + 0.479_793_88
    p = p * t - 0.721_208_45
    p = p * t + 1.442_701_8
    return Float(e) + t * p
}

/// 2^x for x in [−126, 127] (clamped outside; relative error < 3e-7), and
/// exactly 1 for x = 0.
///
/// x = n + f with n the nearest integer (the 1.5·2²³ rounding trick, no libm
/// call) and f in [−½, ½]; 2^f = 1 + f·q(f) with a degree-4 q fitted like
/// `fastLog2`'s, and 2^n built in the exponent bits.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastExp2(_ x: Float) -> Float {
    let c = min(max(x, -126), 127)
    let shifter: Float = 12_582_912  // 1.5·2²³: adding it rounds to an integer
    let n = (c + shifter) - shifter
    let f = c - n
    var q: Float = 0.001_339_086_7
    q = q * f + 0.009_666_374
    q = q * f + 0.055_503_57
    q = q * f + 0.240_223_48
    q = q * f + 0.693_147_2
    let scale = Float(bitPattern: UInt32(Int32(n) &+ 127) << 23)
    return (1 + f * q) * scale
}

/// `sampleGain(decibels:)` through `fastExp2`: 10^(db/20), exactly 1 at 0 dB.
/// - Thread: audio
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastSampleGain(decibels db: Float) -> Float {
    db == 0 ? 1 : fastExp2(db * 0.166_096_4)  // log2(10) / 20
}

/// 10·log10(p) for a power (mean square) p > 1e-20, through `fastLog2`; −200 below.
/// - Thread: audio
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastPowerDecibels(_ p: Float) -> Float {
    p > 1e-20 ? 3.010_299_956_6 * fastLog2(p) : -200  // 10·log10(2)
}

/// `fastLog2` on four values at once: the same operations lane by lane, so
/// each lane is bit for bit what `fastLog2` gives.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastLog2(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let bits = unsafeBitCast(x, to: SIMD4<UInt32>.self)
    let e = unsafeBitCast(bits &- 0x3f35_04f3, to: SIMD4<Int32>.self) &>> 23
    let m = unsafeBitCast(bits &- (unsafeBitCast(e, to: SIMD4<UInt32>.self) &<< 23), to: SIMD4<Float>.self)
    let t = m - 1
    var p = SIMD4<Float>(repeating: -0.206_858_13)
    p = p * t + 0.318_407_12
    p = p * t - 0.366_413_27
    p = p * t + 0.479_793_88
    p = p * t - 0.721_208_45
    p = p * t + 1.442_701_8
    return SIMD4<Float>(e) + t * p
}

/// `fastExp2` on four values at once, lane for lane bit-identical to it.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic only)
@inlinable @inline(__always)
public func fastExp2(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let low = SIMD4<Float>(repeating: -126), high = SIMD4<Float>(repeating: 127)
    var c = x.replacing(with: low, where: x .< low)
    c = c.replacing(with: high, where: c .> high)
    let shifted = c + SIMD4<Float>(repeating: 12_582_912)
    let n = shifted - SIMD4<Float>(repeating: 12_582_912)
    let f = c - n
    var q = SIMD4<Float>(repeating: 0.001_339_086_7)
    q = q * f + 0.009_666_374
    q = q * f + 0.055_503_57
    q = q * f + 0.240_223_48
    q = q * f + 0.693_147_2
    // n sits in the low mantissa bits of `shifted` (whose exponent is 2²³'s).
    let exponent = unsafeBitCast(shifted, to: SIMD4<UInt32>.self) &- (0x4b40_0000 &- 127)
    let scale = unsafeBitCast(exponent &<< 23, to: SIMD4<Float>.self)
    return (1 + f * q) * scale
}

/// The last pass of a gain computer (the compressor's, the gate's): turns the
/// `count` gains at `gains`, in dB, into factors (exactly 1 at 0 dB), four at
/// a time (the buffer holds `count` rounded up to four), then writes
/// `output = input × gain` for frames `offset..<offset + count` of each of
/// `channels` output channels, reading input channel `min(c, last)`.
/// - Thread: audio
/// - Realtime: safe. Arithmetic on the caller's buffers.
@inline(__always)
func applyDecibelGains(_ gains: UnsafeMutablePointer<Float>, count: Int, from input: AudioBlock, to output: AudioBlock,
                       channels: Int, offset: Int) {
    for k in 0..<(count + 3) / 4 {
        let p = gains + 4 * k
        let decibels = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
        let gain = fastExp2(decibels * 0.166_096_4).replacing(with: 1, where: decibels .== 0)  // log2(10) / 20
        UnsafeMutableRawPointer(p).storeBytes(of: gain, as: SIMD4<Float>.self)
    }
    let lastInput = input.channelCount - 1
    for c in 0..<channels {
        let source = input.channels[min(c, lastInput)] + offset, destination = output.channels[c] + offset
        for i in 0..<count { destination[i] = source[i] * gains[i] }
    }
}
