#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The FFT of a real frame of a power-of-two size N through one complex FFT
/// of size N/2: the even samples go in as the real part and the odd ones as
/// the imaginary part, and one O(N) pass splits the result into the N/2 + 1
/// bins of the real frame's spectrum (the standard packing; see e.g. Sorensen
/// et al., "Real-valued fast Fourier transform algorithms", 1987). The inverse
/// undoes the split and runs the complex FFT with real and imaginary parts
/// swapped, which is the inverse transform scaled by N/2.
///
/// Bins run from 0 (DC) to N/2 (Nyquist); DC's and Nyquist's imaginary parts are 0.
/// The transforms use the object's scratch buffers, so one object serves one
/// thread at a time.
///
/// - Realtime: `init` allocates (control thread); the transforms are safe.
public final class RealFFT {
    /// Samples per frame, N.
    public let size: Int
    /// Bins in the spectrum, N/2 + 1.
    public var binCount: Int { size / 2 + 1 }
    private let half: RadixTwoFFT
    /// `half` unretained, for the transforms (no reference counting on the audio thread).
    private let halfReference: Unmanaged<RadixTwoFFT>
    /// cos and sin of 2πk/N, k in 0...N/2.
    private let cosines: UnsafeMutablePointer<Float>
    private let sines: UnsafeMutablePointer<Float>
    private let scratchReal: UnsafeMutablePointer<Float>
    private let scratchImaginary: UnsafeMutablePointer<Float>

    /// - Parameter size: a power of two, at least 4.
    /// - Realtime: unsafe (allocates). Control thread only.
    public init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "real FFT size must be a power of two, at least 4")
        self.size = size
        let m = size / 2
        half = RadixTwoFFT(size: m)
        halfReference = Unmanaged.passUnretained(half)
        cosines = .allocate(capacity: m + 1)
        sines = .allocate(capacity: m + 1)
        for k in 0...m {
            let angle = 2 * Double.pi * Double(k) / Double(size)
            (cosines + k).initialize(to: Float(cos(angle)))
            (sines + k).initialize(to: Float(sin(angle)))
        }
        scratchReal = .allocate(capacity: m)
        scratchImaginary = .allocate(capacity: m)
        scratchReal.initialize(repeating: 0, count: m)
        scratchImaginary.initialize(repeating: 0, count: m)
    }

    deinit {
        cosines.deallocate()
        sines.deallocate()
        scratchReal.deallocate()
        scratchImaginary.deallocate()
    }

    /// X[k] = Σ x[n]·w[n] e^(−2πikn/N) for k in 0...N/2, unscaled.
    /// - Parameters:
    ///   - frame: N samples x[n]; read only.
    ///   - window: N values w[n] the frame is multiplied by on the way in (nil: all 1).
    ///   - real, imaginary: N/2 + 1 values each, written.
    /// - Thread: one at a time (the object's scratch)
    /// - Realtime: safe. Arithmetic on preallocated memory only.
    @_noLocks
    public func forward(_ frame: UnsafePointer<Float>, window: UnsafePointer<Float>? = nil,
                        real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        let m = size / 2
        let zr = scratchReal, zi = scratchImaginary
        halfReference._withUnsafeGuaranteedRef { half in
            // Packed straight into bit-reversed order, which saves the transform's permutation pass.
            if let w = window {
                for n in 0..<m {
                    let r = half.bitReversedIndex(n)
                    zr[r] = frame[2 * n] * w[2 * n]
                    zi[r] = frame[2 * n + 1] * w[2 * n + 1]
                }
            } else {
                for n in 0..<m {
                    let r = half.bitReversedIndex(n)
                    zr[r] = frame[2 * n]
                    zi[r] = frame[2 * n + 1]
                }
            }
            half.transformBitReversed(real: zr, imaginary: zi)
        }
        // DC and Nyquist: Z[0] = E[0] + i·O[0], with E and O real there.
        real[0] = zr[0] + zi[0]; imaginary[0] = 0
        real[m] = zr[0] - zi[0]; imaginary[m] = 0
        for k in 1..<m {
            let ar = zr[k], ai = zi[k], br = zr[m - k], bi = -zi[m - k]
            // E = (Z[k] + conj Z[m−k]) / 2, O = (Z[k] − conj Z[m−k]) / 2i.
            let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
            let or = 0.5 * (ai - bi), oi = -0.5 * (ar - br)
            // X = E + e^(−2πik/N)·O.
            let c = cosines[k], s = sines[k]
            real[k] = er + c * or + s * oi
            imaginary[k] = ei + c * oi - s * or
        }
    }

    /// The inverse: N samples x[n]·w[n], x[n] = (1/N) Σ X[k] e^(2πikn/N), from
    /// the N/2 + 1 bins of a real frame's spectrum (the other half taken as
    /// their conjugates).
    /// - Parameters:
    ///   - real, imaginary: N/2 + 1 values each; read only.
    ///   - frame: N samples, written.
    ///   - window: N values w[n] the result is multiplied by (nil: all 1).
    /// - Thread: one at a time (the object's scratch)
    /// - Realtime: safe. Arithmetic on preallocated memory only.
    @_noLocks
    public func inverse(real: UnsafePointer<Float>, imaginary: UnsafePointer<Float>,
                        into frame: UnsafeMutablePointer<Float>, window: UnsafePointer<Float>? = nil) {
        let m = size / 2
        let zr = scratchReal, zi = scratchImaginary, cosines = cosines, sines = sines
        halfReference._withUnsafeGuaranteedRef { half in
            for k in 0..<m {
                let ar = real[k], ai = imaginary[k], br = real[m - k], bi = -imaginary[m - k]
                // E = (X[k] + conj X[m−k]) / 2; D = (X[k] − conj X[m−k]) / 2 = e^(−2πik/N)·O.
                let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
                let dr = 0.5 * (ar - br), di = 0.5 * (ai - bi)
                let c = cosines[k], s = sines[k]
                let or = dr * c - di * s, oi = dr * s + di * c
                // Z = E + i·O, stored in bit-reversed order for the transform.
                let r = half.bitReversedIndex(k)
                zr[r] = er - oi
                zi[r] = ei + or
            }
            // The forward transform with the parts swapped is the inverse, times m.
            half.transformBitReversed(real: zi, imaginary: zr)
        }
        let scale = 1 / Float(m)
        if let w = window {
            for n in 0..<m {
                frame[2 * n] = zr[n] * scale * w[2 * n]
                frame[2 * n + 1] = zi[n] * scale * w[2 * n + 1]
            }
        } else {
            for n in 0..<m {
                frame[2 * n] = zr[n] * scale
                frame[2 * n + 1] = zi[n] * scale
            }
        }
    }
}
