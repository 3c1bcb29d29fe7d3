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
    /// cos and −sin of 2πk/size for k in 0..<size/2 (the forward twiddles).
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
        cosines = .allocate(capacity: size / 2)
        negativeSines = .allocate(capacity: size / 2)
        reversed = .allocate(capacity: size)
        for k in 0..<size / 2 {
            let angle = 2 * Double.pi * Double(k) / Double(size)
            (cosines + k).initialize(to: Float(cos(angle)))
            (negativeSines + k).initialize(to: Float(-sin(angle)))
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
            let stride = n / span
            var start = 0
            while start < n {
                for k in 0..<half {
                    let wr = cosines[k * stride], wi = negativeSines[k * stride]
                    let a = start + k, b = a + half
                    let xr = real[b] * wr - imaginary[b] * wi
                    let xi = real[b] * wi + imaginary[b] * wr
                    real[b] = real[a] - xr
                    imaginary[b] = imaginary[a] - xi
                    real[a] += xr
                    imaginary[a] += xi
                }
                start += span
            }
            half = span
        }
    }
}
