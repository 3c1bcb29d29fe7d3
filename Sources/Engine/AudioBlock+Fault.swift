/// What a block must never carry past the node that made it: a NaN, an
/// infinity, or a sample so large no stage can have meant it.
///
/// The bound is 2^16 (+96 dBFS). No stage's legitimate output comes within
/// 50 dB of it (the largest gain anywhere in Busker is +40 dB on a full-scale
/// input), and below it the squares a detector sums over any analysis window
/// stay finite in Float, so one absurd sample cannot leave an envelope or an
/// energy estimate stuck at infinity.
extension AudioBlock {
    /// Magnitudes at or above this are faults (2^16, +96 dBFS).
    public static var faultMagnitude: Float { 65536 }

    /// Whether any sample is NaN, ±Inf or of magnitude ≥ `faultMagnitude`.
    ///
    /// One pass over the bits: a float's magnitude bits order like its value,
    /// and every NaN and infinity has larger magnitude bits than any finite
    /// float, so the test is one integer maximum per lane and one comparison.
    /// - Thread: audio, control
    /// - Realtime: safe. Reads the block only.
    public var holdsFault: Bool {
        let limit: Int32 = 0x4780_0000  // the bits of 65536.0
        var largest: Int32 = 0
        for c in 0..<channelCount {
            largest = Swift.max(largest, largestMagnitudeBits(UnsafePointer(channels[c]), count: frameCount))
        }
        return largest >= limit
    }
}

/// The largest of `bits & 0x7FFF_FFFF` over `count` samples: the magnitude
/// bits of the largest sample, NaN and infinities above every finite value.
/// - Thread: audio, control
/// - Realtime: safe. Reads caller-owned memory.
@_noLocks @inline(__always)
private func largestMagnitudeBits(_ samples: UnsafePointer<Float>, count: Int) -> Int32 {
    typealias Bits = SIMD8<Int32>
    var lanes = Bits()
    var i = 0
    while i + 8 <= count {
        let magnitude = UnsafeRawPointer(samples + i).loadUnaligned(as: Bits.self) & 0x7FFF_FFFF
        // The larger lane of each pair, without comparisons: a ^ ((a ^ b) & m), m all ones where a < b.
        lanes = lanes ^ ((lanes ^ magnitude) & ((lanes &- magnitude) &>> 31))
        i += 8
    }
    var largest: Int32 = 0
    for k in 0..<8 { largest = max(largest, lanes[k]) }
    while i < count {
        largest = max(largest, Int32(bitPattern: samples[i].bitPattern) & 0x7FFF_FFFF)
        i += 1
    }
    return largest
}
