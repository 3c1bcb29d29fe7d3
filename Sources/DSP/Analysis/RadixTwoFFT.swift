#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-place complex FFT of a power-of-two size: iterative radix-2
/// decimation in time (Cooley–Tukey), with the twiddle factors and the
/// bit-reversal permutation computed once at init, so a transform touches
/// only preallocated memory. The howl detector runs one every hop on the
/// audio thread, and `RealFFT` (voice processing) two.
///
/// - Realtime: `init` allocates (control thread); everything else is safe.
public final class RadixTwoFFT {
    public let size: Int
    private let log2Size: Int
    /// The forward twiddles stage by stage: for the stage that joins halves of
    /// length h, entries h..<2h hold cos and −sin of πk/h, k in 0..<h, so the
    /// butterfly loop reads them contiguously (and the compiler vectorizes it).
    private let cosines: UnsafeMutablePointer<Float>
    private let negativeSines: UnsafeMutablePointer<Float>
    /// Where index i goes in the bit-reversed order.
    private let reversed: UnsafeMutablePointer<Int32>

    /// - Parameter size: a power of two, at least 2.
    /// - Realtime: unsafe (allocates). Control thread only.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        log2Size = size.trailingZeroBitCount
        cosines = .allocate(capacity: size)
        negativeSines = .allocate(capacity: size)
        reversed = .allocate(capacity: size)
        cosines.initialize(to: 1)
        negativeSines.initialize(to: 0)
        var h = 1
        while h < size {
            for k in 0..<h {
                let angle = Double.pi * Double(k) / Double(h)
                (cosines + h + k).initialize(to: Float(cos(angle)))
                (negativeSines + h + k).initialize(to: Float(-sin(angle)))
            }
            h *= 2
        }
        for i in 0..<size {
            var r = 0, x = i
            for _ in 0..<log2Size { r = (r << 1) | (x & 1); x >>= 1 }
            (reversed + i).initialize(to: Int32(r))
        }
    }

    deinit {
        cosines.deallocate()
        negativeSines.deallocate()
        reversed.deallocate()
    }

    /// The forward transform X[k] = Σ x[n] e^(−2πikn/N) of `real` + i·`imaginary`,
    /// in place; both hold `size` values.
    /// - Thread: any
    /// - Realtime: safe. Arithmetic on caller-owned and preallocated memory only.
    @_noLocks
    public func transform(real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        let n = size
        for i in 0..<n {
            let j = Int(reversed[i])
            if j > i {
                let tr = real[i]; real[i] = real[j]; real[j] = tr
                let ti = imaginary[i]; imaginary[i] = imaginary[j]; imaginary[j] = ti
            }
        }
        transformBitReversed(real: real, imaginary: imaginary)
    }

    /// The same transform for input already stored in bit-reversed order
    /// (sample `i` at `bitReversedIndex(i)`), so a caller that fills the
    /// buffers anyway (the howl detector, windowing its frame) saves the
    /// permutation pass. The output is in natural order.
    ///
    /// The first two stages run as one radix-4 pass (their twiddles are 1 and
    /// −i: no multiplications); the later ones run four butterflies at a time
    /// with SIMD4 (the same arithmetic per lane as one at a time).
    /// - Thread: any
    /// - Realtime: safe. Arithmetic on caller-owned and preallocated memory only.
    @_noLocks
    public func transformBitReversed(real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        let n = size
        if n >= 4 {
            var s = 0
            while s < n {
                let r0 = real[s], r1 = real[s + 1], r2 = real[s + 2], r3 = real[s + 3]
                let i0 = imaginary[s], i1 = imaginary[s + 1], i2 = imaginary[s + 2], i3 = imaginary[s + 3]
                let a0r = r0 + r1, a0i = i0 + i1, a1r = r0 - r1, a1i = i0 - i1
                let a2r = r2 + r3, a2i = i2 + i3, a3r = r2 - r3, a3i = i2 - i3
                real[s] = a0r + a2r; imaginary[s] = a0i + a2i
                real[s + 2] = a0r - a2r; imaginary[s + 2] = a0i - a2i
                // The second butterfly's twiddle is −i: −i·(a3r + i·a3i) = a3i − i·a3r.
                real[s + 1] = a1r + a3i; imaginary[s + 1] = a1i - a3r
                real[s + 3] = a1r - a3i; imaginary[s + 3] = a1i + a3r
                s += 4
            }
        } else {
            // Size 2: one butterfly.
            let r0 = real[0], i0 = imaginary[0]
            real[0] = r0 + real[1]; imaginary[0] = i0 + imaginary[1]
            real[1] = r0 - real[1]; imaginary[1] = i0 - imaginary[1]
            return
        }
        finishTransform(real: real, imaginary: imaginary)
    }

    // MARK: Audio thread

    /// Where sample `i` goes before `transformBitReversed` (the bit-reversed index of `i`).
    /// - Thread: audio, control
    /// - Realtime: safe
    @inline(__always)
    public func bitReversedIndex(_ i: Int) -> Int { Int(reversed[i]) }

    /// The stages after the first two: for a caller that did the radix-4 pass
    /// of `transformBitReversed` itself (the howl detector does it while it
    /// windows its frame, four groups at a time). Size at least 4.
    /// - Thread: audio, control
    /// - Realtime: safe. Arithmetic on caller-owned and preallocated memory only.
    @_noLocks
    public func finishTransform(real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        let n = size
        var half = 4
        typealias Lanes = SIMD4<Float>
        let stride = MemoryLayout<Float>.stride
        // Two stages at a time (halves h and 2h) while two remain: the four quarters of each
        // span of 4h go through both stages in registers, the same butterflies in the same
        // order per value as one stage at a time, with half the loads and stores.
        while half * 4 <= n {
            let h = half, span = 4 * h
            let w1r = UnsafeRawPointer(cosines + h), w1i = UnsafeRawPointer(negativeSines + h)
            let w2r = UnsafeRawPointer(cosines + 2 * h), w2i = UnsafeRawPointer(negativeSines + 2 * h)
            let w3r = UnsafeRawPointer(cosines + 3 * h), w3i = UnsafeRawPointer(negativeSines + 3 * h)
            let quarter = h * stride
            var start = 0
            while start < n {
                let r = UnsafeMutableRawPointer(real + start), i = UnsafeMutableRawPointer(imaginary + start)
                var offset = 0
                while offset < quarter {
                    let r0 = r.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let i0 = i.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let r1 = r.loadUnaligned(fromByteOffset: offset + quarter, as: Lanes.self)
                    let i1 = i.loadUnaligned(fromByteOffset: offset + quarter, as: Lanes.self)
                    let r2 = r.loadUnaligned(fromByteOffset: offset + 2 * quarter, as: Lanes.self)
                    let i2 = i.loadUnaligned(fromByteOffset: offset + 2 * quarter, as: Lanes.self)
                    let r3 = r.loadUnaligned(fromByteOffset: offset + 3 * quarter, as: Lanes.self)
                    let i3 = i.loadUnaligned(fromByteOffset: offset + 3 * quarter, as: Lanes.self)
                    // Stage h: (0, 1) and (2, 3), twiddle πk/h.
                    let c1 = w1r.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let s1 = w1i.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let x1r = r1 * c1 - i1 * s1, x1i = r1 * s1 + i1 * c1
                    let x3r = r3 * c1 - i3 * s1, x3i = r3 * s1 + i3 * c1
                    let a0r = r0 + x1r, a0i = i0 + x1i, a1r = r0 - x1r, a1i = i0 - x1i
                    let a2r = r2 + x3r, a2i = i2 + x3i, a3r = r2 - x3r, a3i = i2 - x3i
                    // Stage 2h: (0, 2) with twiddle πk/2h, (1, 3) with π(k + h)/2h.
                    let c2 = w2r.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let s2 = w2i.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let c3 = w3r.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let s3 = w3i.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let y2r = a2r * c2 - a2i * s2, y2i = a2r * s2 + a2i * c2
                    let y3r = a3r * c3 - a3i * s3, y3i = a3r * s3 + a3i * c3
                    r.storeBytes(of: a0r + y2r, toByteOffset: offset, as: Lanes.self)
                    i.storeBytes(of: a0i + y2i, toByteOffset: offset, as: Lanes.self)
                    r.storeBytes(of: a1r + y3r, toByteOffset: offset + quarter, as: Lanes.self)
                    i.storeBytes(of: a1i + y3i, toByteOffset: offset + quarter, as: Lanes.self)
                    r.storeBytes(of: a0r - y2r, toByteOffset: offset + 2 * quarter, as: Lanes.self)
                    i.storeBytes(of: a0i - y2i, toByteOffset: offset + 2 * quarter, as: Lanes.self)
                    r.storeBytes(of: a1r - y3r, toByteOffset: offset + 3 * quarter, as: Lanes.self)
                    i.storeBytes(of: a1i - y3i, toByteOffset: offset + 3 * quarter, as: Lanes.self)
                    offset += 4 * stride
                }
                start += span
            }
            half = span
        }
        while half < n {
            let span = half * 2
            let wr = UnsafeRawPointer(cosines + half), wi = UnsafeRawPointer(negativeSines + half)
            var start = 0
            while start < n {
                let ar = UnsafeMutableRawPointer(real + start), ai = UnsafeMutableRawPointer(imaginary + start)
                let br = UnsafeMutableRawPointer(real + start + half), bi = UnsafeMutableRawPointer(imaginary + start + half)
                var offset = 0
                let end = half * MemoryLayout<Float>.stride
                while offset < end {
                    let c = wr.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let s = wi.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let pr = br.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let pi = bi.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let qr = ar.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let qi = ai.loadUnaligned(fromByteOffset: offset, as: Lanes.self)
                    let xr = pr * c - pi * s
                    let xi = pr * s + pi * c
                    br.storeBytes(of: qr - xr, toByteOffset: offset, as: Lanes.self)
                    bi.storeBytes(of: qi - xi, toByteOffset: offset, as: Lanes.self)
                    ar.storeBytes(of: qr + xr, toByteOffset: offset, as: Lanes.self)
                    ai.storeBytes(of: qi + xi, toByteOffset: offset, as: Lanes.self)
                    offset += 4 * MemoryLayout<Float>.stride
                }
                start += span
            }
            half = span
        }
    }
}
