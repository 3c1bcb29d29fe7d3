/// Eight lowpass-feedback combs (Freeverb's `comb`) of one reverb channel:
/// each comb's delayed output is low-passed by a one-pole filter and fed back.
///
/// A comb alone is a chain of dependent multiply-adds, one sample after the
/// other; the eight combs are independent, so they run side by side in the
/// lanes of two 4-wide vectors. To make that cheap the eight delay lines
/// share one ring, frame-major: position `p` holds the eight combs' samples
/// written at the same moment, so a frame is written with one vector store.
/// The combs differ only in how far back they read (their delay). Positions
/// below `maximumFrames` are mirrored past the ring's end, so a block never
/// wraps while reading.
///
/// Every delay is longer than a block (the tank cuts blocks to its shortest
/// line), so a block's reads never see its own writes.
struct ReverbCombBank {
    static let width = 8

    /// `(ringLength + maximumFrames) × 8` samples.
    let ring: UnsafeMutablePointer<Float>
    let ringLength: Int
    let maximumFrames: Int
    /// The eight delays in samples.
    let delays: UnsafeMutablePointer<Int>
    /// Where the next frame is written.
    var position = 0
    /// The one-pole lowpass states, comb 0…3 and 4…7.
    var lowpassLow = SIMD4<Float>(repeating: 0)
    var lowpassHigh = SIMD4<Float>(repeating: 0)

    /// - Realtime: unsafe (allocates). Control thread only.
    init(delays: [Int], maximumFrames: Int) {
        precondition(delays.count == Self.width && delays.allSatisfy { $0 >= maximumFrames })
        self.maximumFrames = maximumFrames
        ringLength = delays.max()! + 1
        ring = .allocate(capacity: (ringLength + maximumFrames) * Self.width)
        ring.initialize(repeating: 0, count: (ringLength + maximumFrames) * Self.width)
        self.delays = .allocate(capacity: Self.width)
        self.delays.initialize(from: delays, count: Self.width)
    }

    /// - Realtime: unsafe (frees). Control thread only.
    func deallocate() {
        ring.deallocate()
        delays.deallocate()
    }

    /// Silences every comb.
    /// - Realtime: safe.
    @_noLocks
    mutating func clear() {
        ring.update(repeating: 0, count: (ringLength + maximumFrames) * Self.width)
        position = 0
        lowpassLow = SIMD4(repeating: 0)
        lowpassHigh = SIMD4(repeating: 0)
    }

    /// Adds the eight combs' outputs for `frames` (≤ `maximumFrames`) samples
    /// of `input` into `sum`, with per-sample `feedback` and `damp` coefficients.
    /// - Realtime: safe.
    @_noLocks
    mutating func accumulate(
        input: UnsafePointer<Float>, feedback: UnsafePointer<Float>, damp: UnsafePointer<Float>,
        into sum: UnsafeMutablePointer<Float>, frames: Int
    ) {
        let ring = self.ring
        let length = ringLength
        let mirrored = maximumFrames
        let p = position
        // Comb k reads what it wrote `delays[k]` frames ago; with the mirror
        // its reads for the whole block are at consecutive positions.
        @inline(__always) func reader(_ k: Int) -> UnsafeMutablePointer<Float> {
            var start = p - delays[k]
            if start < 0 { start += length }
            return ring + start * 8 + k
        }
        let r0 = reader(0), r1 = reader(1), r2 = reader(2), r3 = reader(3)
        let r4 = reader(4), r5 = reader(5), r6 = reader(6), r7 = reader(7)
        var lpLow = lowpassLow, lpHigh = lowpassHigh
        var q = p
        // Wrapping arithmetic: every index is bounded by the ring, and
        // overflow checks would only cost time here.
        for f in 0..<frames {
            let fb = feedback[f], d = damp[f]
            let o = f &* 8
            let low = SIMD4<Float>(r0[o], r1[o], r2[o], r3[o])
            let high = SIMD4<Float>(r4[o], r5[o], r6[o], r7[o])
            // Only the stored samples are flushed per sample: that keeps the
            // loop-carried chain to one multiply-add. The lowpass state alone
            // could only pass through the subnormal range within a block
            // (harmless: render threads flush to zero) and is cleaned below.
            lpLow = low * (1 - d) + lpLow * d
            lpHigh = high * (1 - d) + lpHigh * d
            let x = input[f]
            let wLow = flushTiny(x + lpLow * fb)
            let wHigh = flushTiny(x + lpHigh * fb)
            let w = UnsafeMutableRawPointer(ring + q &* 8)
            w.storeBytes(of: wLow, as: SIMD4<Float>.self)
            w.storeBytes(of: wHigh, toByteOffset: 16, as: SIMD4<Float>.self)
            if q < mirrored {
                let m = UnsafeMutableRawPointer(ring + (q &+ length) &* 8)
                m.storeBytes(of: wLow, as: SIMD4<Float>.self)
                m.storeBytes(of: wHigh, toByteOffset: 16, as: SIMD4<Float>.self)
            }
            q &+= 1
            if q == length { q = 0 }
            let both = low + high
            sum[f] += (both[0] + both[1]) + (both[2] + both[3])
        }
        position = q
        lowpassLow = flushTiny(lpLow)
        lowpassHigh = flushTiny(lpHigh)
    }
}
