#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-place complex FFT of a power-of-two size: iterative radix-2
/// decimation in time (Cooley–Tukey), with the twiddle factors and the
/// bit-reversal permutation computed once at init, so a transform touches
/// only preallocated memory. The howl detector runs one every hop on the
/// audio thread.
///
/// - Realtime: `init` allocates (control thread); `transform` is safe.
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
        var half = 1
        while half < n {
            let span = half * 2
            let wr = cosines + half, wi = negativeSines + half
            var start = 0
            while start < n {
                let ar = real + start, ai = imaginary + start
                let br = ar + half, bi = ai + half
                for k in 0..<half {
                    let xr = br[k] * wr[k] - bi[k] * wi[k]
                    let xi = br[k] * wi[k] + bi[k] * wr[k]
                    br[k] = ar[k] - xr
                    bi[k] = ai[k] - xi
                    ar[k] += xr
                    ai[k] += xi
                }
                start += span
            }
            half = span
        }
    }
}
