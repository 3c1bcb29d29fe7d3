#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One channel's spectral noise suppression, spectrum by spectrum: it learns
/// the noise in every bin and gives each bin a gain that lets the voice
/// through and holds the noise down to a floor.
///
/// - Noise: minima-controlled recursive averaging (MCRA; I. Cohen and B.
///   Berdugo, "Noise estimation by minima controlled recursive averaging for
///   robust speech enhancement", IEEE SP Letters, 2002). The power of each bin,
///   smoothed over three bins and over time, is compared with its minimum over
///   the last 0.8–1.6 s; where it stands more than `presenceRatio` above that
///   minimum the voice is taken to be present, and the noise estimate follows
///   the bin's power only as far as the voice is absent.
/// - Gain: the Wiener gain ξ/(1+ξ) of the a priori SNR ξ, estimated by the
///   decision-directed rule (Y. Ephraim and D. Malah, "Speech enhancement
///   using a minimum mean-square error short-time spectral amplitude
///   estimator", IEEE Trans. ASSP, 1984), which keeps the residual noise from
///   turning into "musical" tones; never below `floorGain`.
///
/// Time constants are given in seconds and turned into per-spectrum factors
/// for the caller's hop, so the behaviour is the same at any rate or hop.
///
/// - Realtime: `init` allocates (control thread); `process` is safe.
public final class SpectralNoiseSuppressor {
    /// Bins per spectrum.
    public let binCount: Int
    /// The lowest gain, linear (−25 dB is 0.056).
    public let floorGain: Float
    /// Smoothed power over its recent minimum above which the voice is taken to be present.
    public static let presenceRatio: Float = 5

    private let smoothing: Float       // the time smoothing of the power, per spectrum
    private let presenceSmoothing: Float
    private let noiseSmoothing: Float  // the noise average's factor where no voice is
    private let priorSmoothing: Float  // the decision-directed weight of the last spectrum
    private let minimumWindow: Int     // spectra per minimum-tracking window

    private let smoothed: UnsafeMutablePointer<Float>
    private let minimum: UnsafeMutablePointer<Float>
    private let runningMinimum: UnsafeMutablePointer<Float>
    private let presence: UnsafeMutablePointer<Float>
    private let noise: UnsafeMutablePointer<Float>
    /// The last spectrum's cleaned power, |G·X|², for the decision-directed rule.
    private let cleanedPower: UnsafeMutablePointer<Float>
    /// Scratch: the power smoothed over three bins.
    private let localPower: UnsafeMutablePointer<Float>
    private var spectraInWindow = 0
    private var started = false

    /// - Parameters:
    ///   - binCount: bins per spectrum (N/2 + 1).
    ///   - hopSeconds: the time between spectra.
    ///   - floorDB: the most it attenuates, dB (negative).
    /// - Realtime: unsafe (allocates). Control thread only.
    public init(binCount: Int, hopSeconds: Double, floorDB: Float) {
        precondition(binCount >= 3 && hopSeconds > 0)
        self.binCount = binCount
        floorGain = powf(10, min(0, floorDB) / 20)
        func factor(_ seconds: Double) -> Float { Float(exp(-hopSeconds / seconds)) }
        // Cohen and Berdugo's constants (αs 0.8, αp 0.2, αd 0.95 per 16 ms frame) as time
        // constants; the decision-directed 0.98 per 16 ms likewise.
        smoothing = factor(0.072)
        presenceSmoothing = factor(0.010)
        noiseSmoothing = factor(0.31)
        priorSmoothing = factor(0.79)
        minimumWindow = max(1, Int((0.8 / hopSeconds).rounded()))
        func buffer() -> UnsafeMutablePointer<Float> {
            let b = UnsafeMutablePointer<Float>.allocate(capacity: binCount)
            b.initialize(repeating: 0, count: binCount)
            return b
        }
        smoothed = buffer(); minimum = buffer(); runningMinimum = buffer()
        presence = buffer(); noise = buffer(); cleanedPower = buffer(); localPower = buffer()
    }

    deinit {
        for b in [smoothed, minimum, runningMinimum, presence, noise, cleanedPower, localPower] { b.deallocate() }
    }

    /// Learns from one spectrum's power and writes each bin's gain.
    /// - Parameters:
    ///   - power: |X[k]|² of each bin; read only.
    ///   - gains: written, one per bin, in floorGain...1; all 1 when `suppress` is false.
    ///   - suppress: whether to compute gains (off, it still learns the noise).
    /// - Thread: audio (one at a time)
    /// - Realtime: safe. Arithmetic on preallocated memory only.
    @_noLocks
    public func process(power: UnsafePointer<Float>, gains: UnsafeMutablePointer<Float>, suppress: Bool) {
        let count = binCount
        let tiny: Float = 1e-20
        if !started {
            started = true
            for k in 0..<count {
                let p = power[k] + tiny
                smoothed[k] = p; minimum[k] = p; runningMinimum[k] = p; noise[k] = p; cleanedPower[k] = p
                presence[k] = 0
            }
        }
        let a = smoothing, ap = presenceSmoothing, ad = noiseSmoothing
        spectraInWindow += 1
        let newWindow = spectraInWindow >= minimumWindow
        if newWindow { spectraInWindow = 0 }
        // Power smoothed over three bins (¼ ½ ¼, the edges mirrored): into `local`, the edges
        // apart so the loops below have no branches and vectorize.
        let local = localPower
        local[0] = 0.5 * power[0] + 0.5 * power[1]
        local[count - 1] = 0.5 * power[count - 1] + 0.5 * power[count - 2]
        for k in 1..<(count - 1) { local[k] = 0.25 * power[k - 1] + 0.5 * power[k] + 0.25 * power[k + 1] }
        let ratio = Self.presenceRatio
        for k in 0..<count {
            // Smoothed over time, and its minimum over the last one to two windows.
            let s = a * smoothed[k] + (1 - a) * local[k]
            smoothed[k] = s
            let m = min(minimum[k], s), r = min(runningMinimum[k], s)
            minimum[k] = newWindow ? r : m
            runningMinimum[k] = newWindow ? s : r
            let present: Float = s > ratio * minimum[k] ? 1 : 0
            let p = ap * presence[k] + (1 - ap) * present
            presence[k] = p
            // The noise follows the bin's power as far as the voice is absent.
            let follow = ad + (1 - ad) * p
            noise[k] = max(tiny, follow * noise[k] + (1 - follow) * power[k])
        }
        guard suppress else {
            for k in 0..<count { gains[k] = 1; cleanedPower[k] = power[k] }
            return
        }
        let dd = priorSmoothing, floor = floorGain, floorSquared = floor * floor
        for k in 0..<count {
            let inverseNoise = 1 / noise[k]
            let posterior = power[k] * inverseNoise
            let prior = max(floorSquared, dd * cleanedPower[k] * inverseNoise + (1 - dd) * max(posterior - 1, 0))
            let g = max(floor, prior / (1 + prior))
            gains[k] = g
            cleanedPower[k] = g * g * power[k]
        }
    }

    /// The noise estimate's power summed over bins `range` (the same scale as the spectra given).
    /// - Thread: audio (one at a time)
    /// - Realtime: safe
    @_noLocks
    public func noisePower(bins range: Range<Int>) -> Float {
        var sum: Float = 0
        for k in range { sum += noise[k] }
        return sum
    }
}
