#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Halves a signal's sample rate: a linear-phase half-band FIR low-pass
/// (Kaiser-windowed sinc, cutoff at a quarter of the input rate) evaluated
/// only at the samples it keeps.
///
/// The howl detector analyses the signal at about 24 kHz instead of 48:
/// the same bin width from a frame half as long, so an FFT half the size
/// (the analysis was most of the voice chain's cost). Every other tap of a
/// half-band filter is zero, so an output sample is the centre tap times one
/// odd-indexed input plus a symmetric sum over `tapCount / 2 + 1` even-indexed
/// ones; the even samples are kept in their own line, so four consecutive
/// outputs read four consecutive samples per tap (one SIMD4 load).
///
/// The output is the same whatever the input's chunking (the phase is
/// counted in samples), and the decimated sample `m` depends on input
/// samples up to `2m`, so it is ready as soon as that sample arrives.
///
/// - Realtime: `init` allocates (control thread); `process` and `reset` are safe.
public final class HalfBandDecimator {
    /// Taps of the full filter (odd, 4k + 3: the centre tap and the taps two apart from it are zero but the centre).
    public static var tapCount: Int { 35 }
    /// Stopband attenuation the Kaiser window is chosen for, in dB.
    public static var stopbandDB: Double { 55 }
    /// Where the passband ends, as a fraction of the input rate: a quarter less half the Kaiser
    /// transition width for `tapCount` and `stopbandDB` (Kaiser's estimate). Measured with the Float
    /// taps (`HalfBandDecimatorTests`): flat within 0.02 dB up to here, and what lies above
    /// `0.5 − passbandEdge` folds back at least 53 dB down.
    public static var passbandEdge: Double {
        let transition = (stopbandDB - 7.95) / (14.36 * Double(tapCount - 1))
        return 0.25 - transition / 2
    }

    /// The largest `count` that `process` takes at once.
    public let maximumChunk: Int
    /// The even-tap coefficients, symmetric: `evenTaps` of them, outer first.
    private let coefficients: UnsafeMutablePointer<Float>
    private let evenTaps: Int
    private let centre: Float
    /// Even-indexed input samples (with `evenTaps − 1` of history in front) and odd-indexed ones
    /// (with `oddHistory` of history), each a line that is shifted down after each call.
    private let evens: UnsafeMutablePointer<Float>
    private let odds: UnsafeMutablePointer<Float>
    private var evenCount: Int
    private var oddCount: Int
    /// How far the centre tap's odd sample lies behind the newest even sample.
    private let oddHistory: Int
    /// Input samples seen, modulo 2: whether the next one is odd.
    private var nextIsOdd = false

    /// - Realtime: unsafe (allocates). Control thread only.
    public init(maximumChunk: Int) {
        self.maximumChunk = max(1, maximumChunk)
        let taps = Self.tapCount
        let middle = taps / 2  // odd: the centre sits on an odd offset from either end
        precondition(taps % 4 == 3, "half-band length must be 4k + 3")
        // Kaiser window β for the attenuation (Kaiser's formula for 21 dB < A ≤ 50 dB, and above).
        let a = Self.stopbandDB
        let beta = a > 50 ? 0.1102 * (a - 8.7) : 0.5842 * pow(a - 21, 0.4) + 0.07886 * (a - 21)
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0, k = 1.0
            while term > 1e-12 * sum {
                term *= (x / (2 * k)) * (x / (2 * k))
                sum += term
                k += 1
            }
            return sum
        }
        var h = [Double](repeating: 0, count: taps)
        for n in 0..<taps {
            let t = Double(n - middle)
            let sinc = t == 0 ? 0.5 : sin(Double.pi * t / 2) / (Double.pi * t)
            let r = t / Double(middle)
            h[n] = sinc * besselI0(beta * (1 - r * r).squareRoot()) / besselI0(beta)
        }
        let sum = h.reduce(0, +)
        // The taps at even distance from the centre (other than the centre) are zero: the nonzero
        // ones sit at n = 0, 2, …, taps − 1 (odd distance, as the middle is odd). DC gain exactly 1.
        let nonzero = stride(from: 0, to: taps, by: 2).map { h[$0] / sum }
        evenTaps = nonzero.count
        coefficients = .allocate(capacity: evenTaps)
        coefficients.initialize(from: nonzero.map { Float($0) }, count: evenTaps)
        centre = Float(h[middle] / sum)
        // Output m (taken when input 2m + taps − 1 arrives, the newest even sample) is
        // Σ c[j]·x[2m + 2j] + centre·x[2m + middle]: evens e[m…m + evenTaps − 1] and odd
        // sample o[m + (middle − 1) / 2].
        oddHistory = evenTaps - 1 - (middle - 1) / 2
        evens = .allocate(capacity: evenTaps + maximumChunk + 4)
        evens.initialize(repeating: 0, count: evenTaps + maximumChunk + 4)
        odds = .allocate(capacity: oddHistory + maximumChunk + 4)
        odds.initialize(repeating: 0, count: oddHistory + maximumChunk + 4)
        evenCount = evenTaps - 1
        oddCount = oddHistory
    }

    deinit {
        coefficients.deallocate()
        evens.deallocate()
        odds.deallocate()
    }

    // MARK: Audio thread

    /// Silence in the history and the phase back at an even sample.
    /// - Thread: audio, control
    /// - Realtime: safe
    public func reset() {
        evens.update(repeating: 0, count: evenTaps + maximumChunk + 4)
        odds.update(repeating: 0, count: oddHistory + maximumChunk + 4)
        evenCount = evenTaps - 1
        oddCount = oddHistory
        nextIsOdd = false
    }

    /// Filters `count` (≤ `maximumChunk`) input samples and writes the decimated samples they
    /// complete to `output` (⌈count / 2⌉ or ⌊count / 2⌋ of them, by the phase).
    /// - Returns: how many were written.
    /// - Thread: audio, control (the howl guard runs it once on silence while it prepares)
    /// - Realtime: safe. Arithmetic on preallocated memory.
    public func process(_ input: UnsafePointer<Float>, count: Int, into output: UnsafeMutablePointer<Float>) -> Int {
        precondition(count <= maximumChunk)
        // Split into the two phases: two strided copies (a branch per sample cost more than the filter).
        let first = nextIsOdd ? 1 : 0  // where the first even-indexed sample of this chunk is
        let evenIn = (count - first + 1) / 2, oddIn = count - evenIn
        let evenLine = evens + evenCount, oddLine = odds + oddCount
        for j in 0..<evenIn { evenLine[j] = input[first + 2 * j] }
        for j in 0..<oddIn { oddLine[j] = input[1 - first + 2 * j] }
        evenCount += evenIn
        oddCount += oddIn
        nextIsOdd = nextIsOdd != (count % 2 == 1)
        // Every even sample past the history completes one output (its odd partner lies `oddHistory` back).
        let produced = evenCount - (evenTaps - 1)
        guard produced > 0 else { return 0 }
        typealias Lanes = SIMD4<Float>
        let taps = evenTaps, half = taps / 2
        var m = 0
        while m + 4 <= produced {
            var acc = Lanes(repeating: 0)
            for j in 0..<half {
                let a = UnsafeRawPointer(evens + m + j).loadUnaligned(as: Lanes.self)
                let b = UnsafeRawPointer(evens + m + taps - 1 - j).loadUnaligned(as: Lanes.self)
                acc += (a + b) * coefficients[j]
            }
            if taps % 2 == 1 { acc += UnsafeRawPointer(evens + m + half).loadUnaligned(as: Lanes.self) * coefficients[half] }
            acc += UnsafeRawPointer(odds + m).loadUnaligned(as: Lanes.self) * centre
            UnsafeMutableRawPointer(output + m).storeBytes(of: acc, as: Lanes.self)
            m += 4
        }
        while m < produced {
            var acc: Float = 0
            for j in 0..<half { acc += (evens[m + j] + evens[m + taps - 1 - j]) * coefficients[j] }
            if taps % 2 == 1 { acc += evens[m + half] * coefficients[half] }
            output[m] = acc + odds[m] * centre
            m += 1
        }
        // Keep the history: the last evenTaps − 1 evens, and the odds from the first one not yet used.
        evens.update(from: evens + produced, count: evenTaps - 1)
        evenCount = evenTaps - 1
        let oddsLeft = oddCount - produced
        odds.update(from: odds + produced, count: oddsLeft)
        oddCount = oddsLeft
        return produced
    }
}
