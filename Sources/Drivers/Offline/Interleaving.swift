import Engine

/// Interleaved ↔ planar copies for the offline drivers' render threads, with
/// a vector path for stereo (the common case: four frames per step instead of
/// one strided scalar per sample, as every sample of an offline render passes
/// through these copies on its render thread).
/// Pure copies: the samples come out bit for bit.
enum Interleaving {
    // MARK: Audio thread

    /// Splits `frames` interleaved frames of `channels` channels from `source`
    /// into the first `channels` channels of `destination`, from frame 0.
    /// - Thread: audio
    /// - Realtime: safe
    static func deinterleave(_ source: UnsafePointer<Float>, channels: Int, frames: Int, into destination: AudioBuffer) {
        if channels == 2 {
            let left = destination[0], right = destination[1]
            var i = 0
            while i + 4 <= frames {
                let v = UnsafeRawPointer(source + 2 * i).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(left + i).storeBytes(of: SIMD4(v[0], v[2], v[4], v[6]), as: SIMD4<Float>.self)
                UnsafeMutableRawPointer(right + i).storeBytes(of: SIMD4(v[1], v[3], v[5], v[7]), as: SIMD4<Float>.self)
                i += 4
            }
            while i < frames {
                left[i] = source[2 * i]
                right[i] = source[2 * i + 1]
                i += 1
            }
            return
        }
        for c in 0..<channels {
            let d = destination[c]
            for i in 0..<frames { d[i] = source[i * channels + c] }
        }
    }

    /// Weaves `frames` frames of the first `channels` channels of `source`,
    /// from frame `offset`, into `destination`.
    /// - Thread: audio
    /// - Realtime: safe
    static func interleave(_ source: AudioBuffer, offset: Int, channels: Int, frames: Int, into destination: UnsafeMutablePointer<Float>) {
        if channels == 2 {
            let left = source[0] + offset, right = source[1] + offset
            var i = 0
            while i + 4 <= frames {
                let l = UnsafeRawPointer(left + i).loadUnaligned(as: SIMD4<Float>.self)
                let r = UnsafeRawPointer(right + i).loadUnaligned(as: SIMD4<Float>.self)
                UnsafeMutableRawPointer(destination + 2 * i).storeBytes(
                    of: SIMD8(l[0], r[0], l[1], r[1], l[2], r[2], l[3], r[3]), as: SIMD8<Float>.self)
                i += 4
            }
            while i < frames {
                destination[2 * i] = left[i]
                destination[2 * i + 1] = right[i]
                i += 1
            }
            return
        }
        for c in 0..<channels {
            let s = source[c] + offset
            for i in 0..<frames { destination[i * channels + c] = s[i] }
        }
    }
}
