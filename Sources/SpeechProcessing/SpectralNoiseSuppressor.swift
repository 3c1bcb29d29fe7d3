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
///   the last 3–3.75 s (four windows of 0.75 s, as in minimum statistics:
///   R. Martin, "Noise power spectral density estimation based on optimal
///   smoothing and minimum statistics", IEEE Trans. SAP, 2001); where it
///   stands more than `presenceRatio` above that minimum the voice is taken to
///   be present, and the noise estimate follows the bin's power only as far as
///   the voice is absent. Spectra of digital silence (under −140 dBFS) are not
///   learnt from. The first 0.25 s of sound are taken as noise (their mean
///   power is the first estimate), as is usual, since a minimum needs a history.
///   The minimum's memory is what lets a held note stay a
///   note: a steady sound becomes noise only once it has lasted longer than
///   it (3 s at least; with Cohen and Berdugo's 0.8–1.6 s, the sung note of
///   `VoiceProcessingNodeTests` fell from −20 to −45 dBFS by the end of its
///   3 s), at the price of learning a louder noise 3–3.75 s late.
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
    /// Minimum-tracking windows remembered.
    public static let minimumWindows = 4

    private let smoothed: UnsafeMutablePointer<Float>
    /// Per window remembered, each bin's minimum (`minimumWindows` × bins).
    private let windowMinima: UnsafeMutablePointer<Float>
    /// The least of `windowMinima`, per bin.
    private let storedMinimum: UnsafeMutablePointer<Float>
    /// The minimum of the window under way, per bin.
    private let runningMinimum: UnsafeMutablePointer<Float>
    private let presence: UnsafeMutablePointer<Float>
    private let noise: UnsafeMutablePointer<Float>
    /// The last spectrum's cleaned power, |G·X|², for the decision-directed rule.
    private let cleanedPower: UnsafeMutablePointer<Float>
    /// Scratch: the power smoothed over three bins.
    private let localPower: UnsafeMutablePointer<Float>
    private var spectraInWindow = 0
    private var windowSlot = 0
    /// Spectra taken as noise at the start, and how many have been.
    private let startupSpectra: Int
    /// A spectrum's total power below which it is digital silence: a frame
    /// whose mean square is under −140 dBFS (the half spectrum of N samples
    /// holds about N²/2 times the frame's mean square).
    private let silentSpectrumPower: Float
    private var spectraSeen = 0

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
        minimumWindow = max(1, Int((0.75 / hopSeconds).rounded()))
        startupSpectra = max(1, Int((0.25 / hopSeconds).rounded()))
        let n = Float(2 * (binCount - 1))
        silentSpectrumPower = 0.5 * n * n * 1e-14
        func buffer() -> UnsafeMutablePointer<Float> {
            let b = UnsafeMutablePointer<Float>.allocate(capacity: binCount)
            b.initialize(repeating: 0, count: binCount)
            return b
        }
        smoothed = buffer(); storedMinimum = buffer(); runningMinimum = buffer()
        windowMinima = .allocate(capacity: Self.minimumWindows * binCount)
        windowMinima.initialize(repeating: 0, count: Self.minimumWindows * binCount)
        presence = buffer(); noise = buffer(); cleanedPower = buffer(); localPower = buffer()
    }

    deinit {
        for b in [smoothed, windowMinima, storedMinimum, runningMinimum, presence, noise, cleanedPower, localPower] {
            b.deallocate()
        }
    }

    /// Learns from one spectrum's power and writes each bin's gain.
    /// - Parameters:
    ///   - power: |X[k]|² of each bin; read only.
    ///   - gains: written, one per bin, in floor...1; all 1 when `suppress` is false.
    ///   - suppress: whether to compute gains (off, it still learns the noise).
    /// - Thread: audio (one at a time)
    /// - Realtime: safe. Arithmetic on preallocated memory only.
    @_noLocks
    public func process(power: UnsafePointer<Float>, gains: UnsafeMutablePointer<Float>, suppress: Bool) {
        let count = binCount
        let tiny: Float = 1e-20
        // Digital silence (a muted mic, a port not yet connected, a file's silent start) holds
        // nothing to learn; learning from it would pull every estimate down to `tiny`, and the
        // first noise after it would pass as voice for as long as the minimum remembers.
        var total: Float = 0
        for k in 0..<count { total += power[k] }
        if total < silentSpectrumPower {
            for k in 0..<count { gains[k] = 1 }
            return
        }
        if spectraSeen < startupSpectra {
            startUp(power: power, gains: gains, suppress: suppress)
            return
        }
        let a = smoothing, ap = presenceSmoothing, ad = noiseSmoothing
        spectraInWindow += 1
        // Power smoothed over three bins (¼ ½ ¼, the edges mirrored): into `local`, the edges
        // apart so the loops below have no branches.
        let local = localPower
        local[0] = 0.5 * power[0] + 0.5 * power[1]
        local[count - 1] = 0.5 * power[count - 1] + 0.5 * power[count - 2]
        for k in 1..<(count - 1) { local[k] = 0.25 * power[k - 1] + 0.5 * power[k] + 0.25 * power[k + 1] }
        let ratio = Self.presenceRatio
        for k in 0..<count {
            // Smoothed over time (never below `tiny`, so silence decays to no subnormal), and
            // its minimum over the windows remembered and the one under way.
            let s = max(tiny, a * smoothed[k] + (1 - a) * local[k])
            smoothed[k] = s
            let r = min(runningMinimum[k], s)
            runningMinimum[k] = r
            let present: Float = s > ratio * min(storedMinimum[k], r) ? 1 : 0
            let p = ap * presence[k] + (1 - ap) * present
            presence[k] = p < tiny ? 0 : p
            // The noise follows the bin's power as far as the voice is absent.
            let follow = ad + (1 - ad) * p
            noise[k] = max(tiny, follow * noise[k] + (1 - follow) * power[k])
        }
        if spectraInWindow >= minimumWindow {
            // A window ends: it replaces the oldest remembered, and a new one starts.
            spectraInWindow = 0
            let slot = windowMinima + windowSlot * count
            for k in 0..<count { slot[k] = runningMinimum[k]; runningMinimum[k] = smoothed[k] }
            windowSlot = (windowSlot + 1) % Self.minimumWindows
            for k in 0..<count { storedMinimum[k] = slot[k] }
            for w in 0..<Self.minimumWindows {
                let minima = windowMinima + w * count
                for k in 0..<count { storedMinimum[k] = min(storedMinimum[k], minima[k]) }
            }
        }
        guard suppress else {
            // The decision-directed rule's memory, for when gains are asked for again: the
            // power less the noise (the plain estimate of the clean power).
            for k in 0..<count { gains[k] = 1; cleanedPower[k] = max(0, power[k] - noise[k]) }
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

    /// One of the first spectra: the noise is their mean power so far; when the
    /// last of them is in, every smoothed value and minimum starts from it.
    /// - Thread: audio (one at a time)
    /// - Realtime: safe. Arithmetic on preallocated memory only.
    @_noLocks
    private func startUp(power: UnsafePointer<Float>, gains: UnsafeMutablePointer<Float>, suppress: Bool) {
        let count = binCount, tiny: Float = 1e-20
        spectraSeen += 1
        let weight = 1 / Float(spectraSeen)
        for k in 0..<count { noise[k] = max(tiny, noise[k] + weight * (power[k] - noise[k])) }
        for k in 0..<count {
            let inverseNoise = 1 / noise[k]
            let clean = max(0, power[k] * inverseNoise - 1)
            let g = suppress ? max(floorGain, clean / (1 + clean)) : 1
            gains[k] = g
            cleanedPower[k] = suppress ? g * g * power[k] : max(0, power[k] - noise[k])
        }
        if spectraSeen == startupSpectra {
            for k in 0..<count {
                let m = noise[k]
                smoothed[k] = m; storedMinimum[k] = m; runningMinimum[k] = m; presence[k] = 0
                for w in 0..<Self.minimumWindows { windowMinima[w * count + k] = m }
            }
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
