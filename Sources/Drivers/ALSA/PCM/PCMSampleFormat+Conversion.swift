import Engine
#if canImport(Glibc)
import Glibc
#endif

#if _endian(big)
#error("PCMSampleFormat's conversions assume a little-endian host, as every *_LE format does")
#endif

/// Conversion between a device's raw buffer and planar Float32 blocks.
///
/// A raw buffer is described by two strides, which covers both ALSA layouts
/// with one code path: sample (channel c, frame i) lives at
/// `raw + c * channelStride + i * frameStride`.
/// - interleaved (`RW_INTERLEAVED`): `channelStride = bytesPerSample`,
///   `frameStride = channels * bytesPerSample`;
/// - non-interleaved (`RW_NONINTERLEAVED`, one plane per channel, planes
///   `capacity` frames apart): `channelStride = capacity * bytesPerSample`,
///   `frameStride = bytesPerSample`.
///
/// Integers map to floats by dividing by 2^(bits-1), so full scale negative is
/// exactly -1 and a float round-trips within half a quantization step. On the
/// way out, samples are rounded to nearest and clipped to the integer range;
/// NaN becomes silence (a NaN from a misbehaving node must not become a
/// full-scale click). No dither: the live path is monitoring, not mastering.
extension PCMSampleFormat {
    // MARK: Audio thread

    /// Reads `frames` frames of `block.channelCount` channels from `source` into `block`.
    /// - Thread: audio
    /// - Realtime: safe
    public func decode(_ source: UnsafeRawPointer, channelStride: Int, frameStride: Int,
                       into block: AudioBlock, frames: Int) {
        for c in 0..<block.channelCount {
            let from = source + c * channelStride
            let to = block[c]
            switch self {
            case .float32:
                for i in 0..<frames { to[i] = from.loadUnaligned(fromByteOffset: i * frameStride, as: Float.self) }
            case .s32:
                let scale: Float = 1.0 / 2_147_483_648.0
                for i in 0..<frames {
                    to[i] = Float(from.loadUnaligned(fromByteOffset: i * frameStride, as: Int32.self)) * scale
                }
            case .s24:
                let scale: Float = 1.0 / 8_388_608.0
                for i in 0..<frames {
                    // The top byte is padding: shift it out and back to sign-extend bit 23.
                    let word = from.loadUnaligned(fromByteOffset: i * frameStride, as: Int32.self)
                    to[i] = Float((word << 8) >> 8) * scale
                }
            case .s24Packed:
                let scale: Float = 1.0 / 8_388_608.0
                for i in 0..<frames {
                    let p = from + i * frameStride
                    let b0 = Int32(p.load(fromByteOffset: 0, as: UInt8.self))
                    let b1 = Int32(p.load(fromByteOffset: 1, as: UInt8.self))
                    let b2 = Int32(p.load(fromByteOffset: 2, as: UInt8.self))
                    let word = b0 | (b1 << 8) | (b2 << 16)
                    to[i] = Float((word << 8) >> 8) * scale
                }
            case .s16:
                let scale: Float = 1.0 / 32_768.0
                for i in 0..<frames {
                    to[i] = Float(from.loadUnaligned(fromByteOffset: i * frameStride, as: Int16.self)) * scale
                }
            }
        }
    }

    /// Writes `frames` frames of `block` into `destination` in this format.
    /// - Thread: audio
    /// - Realtime: safe
    public func encode(_ block: AudioBlock, into destination: UnsafeMutableRawPointer,
                       channelStride: Int, frameStride: Int, frames: Int) {
        for c in 0..<block.channelCount {
            let to = destination + c * channelStride
            let from = block[c]
            switch self {
            case .float32:
                for i in 0..<frames { to.storeBytes(of: from[i], toByteOffset: i * frameStride, as: Float.self) }
            case .s32:
                // 2^31 - 128: the largest Float below 2^31 (Float cannot hold 2^31 - 1).
                for i in 0..<frames {
                    let q = Self.quantize(from[i], scale: 2_147_483_648.0, low: -2_147_483_648.0, high: 2_147_483_520.0)
                    to.storeBytes(of: Int32(truncatingIfNeeded: q), toByteOffset: i * frameStride, as: Int32.self)
                }
            case .s24:
                for i in 0..<frames {
                    let q = Self.quantize(from[i], scale: 8_388_608.0, low: -8_388_608.0, high: 8_388_607.0)
                    to.storeBytes(of: Int32(truncatingIfNeeded: q), toByteOffset: i * frameStride, as: Int32.self)
                }
            case .s24Packed:
                for i in 0..<frames {
                    let q = Int32(truncatingIfNeeded: Self.quantize(from[i], scale: 8_388_608.0, low: -8_388_608.0, high: 8_388_607.0))
                    let p = to + i * frameStride
                    p.storeBytes(of: UInt8(truncatingIfNeeded: q), toByteOffset: 0, as: UInt8.self)
                    p.storeBytes(of: UInt8(truncatingIfNeeded: q >> 8), toByteOffset: 1, as: UInt8.self)
                    p.storeBytes(of: UInt8(truncatingIfNeeded: q >> 16), toByteOffset: 2, as: UInt8.self)
                }
            case .s16:
                for i in 0..<frames {
                    let q = Self.quantize(from[i], scale: 32_768.0, low: -32_768.0, high: 32_767.0)
                    to.storeBytes(of: Int16(truncatingIfNeeded: q), toByteOffset: i * frameStride, as: Int16.self)
                }
            }
        }
    }

    /// Scales, clips (NaN to 0) and rounds to nearest.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    static func quantize(_ sample: Float, scale: Float, low: Float, high: Float) -> Int {
        var v = sample * scale
        if !(v >= low) { v = v.isNaN ? 0 : low }
        if v > high { v = high }
        return lrintf(v)
    }
}
