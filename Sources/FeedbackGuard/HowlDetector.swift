import DSP
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds howling in a signal: every `hopSize` samples it takes the spectrum
/// of the last `frameSize` samples (Hann window, `RadixTwoFFT`) of the signal
/// decimated to 22–32 kHz (`HalfBandDecimator`, 2× at 44.1 and 48 kHz), picks the
/// narrow peaks that pass PTPR, PAPR, PNPR and PHPR (see `HowlCriteria`),
/// follows them from frame to frame, and reports those that grow steadily,
/// or that sit loud and perfectly still, as howls.
///
/// Everything is sized at init; `push` and `analyzeIfDue` touch only preallocated
/// memory. The results of an analysis are in `detections[0..<detectionCount]`
/// until the next one.
///
/// - Thread: `init` on the control thread; everything else on the audio thread (the guard's
///   `allocate` also runs `push`, `analyzeIfDue` and `reset` once on the control thread, before
///   rendering, to warm them up).
/// - Realtime: `init` allocates; the rest is safe (checked by the allocation tests: the
///   compiler's `@_noLocks` check counts the reference counting of a class's own members as
///   possible locking).
public final class HowlDetector {
    public let criteria: HowlCriteria
    public let sampleRate: Double
    /// How many input samples make one analysed sample: the largest power of two that keeps the
    /// analysis rate at 22.05 kHz or more (2 at 44.1 and 48 kHz, 4 at 88.2 and 96 kHz, 1 up to 32 kHz).
    /// Howls sit where loudspeakers and microphones are efficient, well under 10 kHz; above the
    /// decimator's passband the detector is blind, and the guard's level tests (which read the
    /// whole band) are the last resort there.
    public let decimation: Int
    /// The rate the spectrum is taken at: `sampleRate / decimation`.
    public let analysisRate: Double
    /// Hz per FFT bin.
    public let binWidth: Float
    /// The top of the band searched, in Hz: `criteria.highestFrequency`, or lower where the
    /// decimator's passband ends (9.7 kHz at 48 kHz, 8.9 kHz at 44.1 kHz).
    public let highestFrequency: Float
    /// The analysis frame in analysed samples: `criteria.frameSize` scaled from 48 kHz to the analysis
    /// rate, to the next power of two (1024 at 44.1, 48 and 96 kHz), so the bins stay 21–23 Hz wide and a
    /// howl at 60 Hz stays several bins clear of DC. The hop stays `criteria.hopSize` input samples (the
    /// guard's buffers are sized by it).
    public let frameSize: Int
    /// `criteria`'s windows in frames and slopes in dB per frame, which are given for 48 kHz (a hop
    /// of `hopSize` samples then), converted to this rate's hop so each lasts the same time.
    private let growthFrames: Int
    private let creepFrames: Int
    private let saturatedFrames: Int
    private let fastSlopeDB: Float
    private let minimumSlopeDB: Float
    private let minimumCreepSlopeDB: Float

    // MARK: Audio thread only
    /// The half-band stages (log2 `decimation` of them) and their output buffers.
    private let decimators: [HalfBandDecimator]
    private let decimated: UnsafeMutablePointer<Float>
    private let decimatedScratch: UnsafeMutablePointer<Float>
    /// The last `frameSize` analysed samples, circular, stored twice (at i and i + frameSize),
    /// so the frame in time order is always the contiguous run from `writeIndex`.
    private let history: UnsafeMutablePointer<Float>
    private var writeIndex = 0
    /// Samples pushed since the last analysis.
    public private(set) var samplesSinceAnalysis = 0
    private let window: UnsafeMutablePointer<Float>
    private let real: UnsafeMutablePointer<Float>
    private let imaginary: UnsafeMutablePointer<Float>
    /// Power per bin (linear), bins 0…frameSize/2.
    private let power: UnsafeMutablePointer<Float>
    /// The criteria as power ratios (PTPR as an absolute power).
    private let thresholdPower: Float
    private let paprRatio: Float
    private let pnprRatio: Float
    private let phprRatio: Float
    /// A complex FFT of half the frame, and cos/sin of 2πk/frameSize for the split into the real spectrum.
    private let fft: RadixTwoFFT
    private let splitCosines: UnsafeMutablePointer<Float>
    private let splitSines: UnsafeMutablePointer<Float>
    private let lowBin: Int
    private let highBin: Int
    /// The lowest bin of the spectrum's mean for PAPR: bin 4 (86–94 Hz) or the band's bottom if higher.
    /// The bass shelf lifts the bins below; in the mean they would raise every peak's bar, so a
    /// howl would have to grow louder before it passes PAPR (`busker bench --howl` reports the
    /// stable gain the guard adds).
    private let averageLowBin: Int
    /// The bins `computeSpectrum` fills, 0…spectrumTop: the band and the neighbours PNPR reads
    /// (8 bins past it). The harmonics PHPR reads above it are computed only for the few peaks
    /// that get that far (`powerAt`).
    private let spectrumTop: Int
    /// dB offset that makes a full-scale sine read 0 dB at its peak.
    private let calibrationDB: Float

    /// This frame's candidates: fractional bin and level.
    private let candidateBins: UnsafeMutablePointer<Float>
    private let candidateLevels: UnsafeMutablePointer<Float>
    /// … and PHPR, as a power ratio.
    private let candidateRatios: UnsafeMutablePointer<Float>
    private var candidateCount = 0
    /// This frame's peaks that pass every test but PHPR, the loudest `candidatesPerFrame` of them, apart
    /// from the candidates so a note's overtones cannot crowd a howl out: they only carry on a track that
    /// is already followed (see `followCandidates`).
    private let harmonicBins: UnsafeMutablePointer<Float>
    private let harmonicLevels: UnsafeMutablePointer<Float>
    private let harmonicRatios: UnsafeMutablePointer<Float>
    private var harmonicCount = 0

    /// Followed peaks: per track its bin and level over the last `historyLength` frames.
    private static var trackCapacity: Int { 16 }
    private let historyLength: Int
    private let trackActive: UnsafeMutablePointer<Bool>
    private let trackMatched: UnsafeMutablePointer<Bool>
    private let trackFrames: UnsafeMutablePointer<Int>
    private let trackMissed: UnsafeMutablePointer<Int>
    private let trackBins: UnsafeMutablePointer<Float>
    /// The bin each track was last seen at (kept when its history starts over).
    private let trackLastBin: UnsafeMutablePointer<Float>
    private let trackLevels: UnsafeMutablePointer<Float>
    /// Per track and frame (alongside `trackLevels`): whether the peak passed PHPR in that frame.
    private let trackHarmonicFree: UnsafeMutablePointer<Bool>
    /// Per track: its peak's PHPR (power ratio) in the frame that started it, and in this frame.
    private let trackStartRatio: UnsafeMutablePointer<Float>
    private let trackRatio: UnsafeMutablePointer<Float>

    /// Howls found by the last analysis.
    public let detections: UnsafeMutablePointer<HowlDetection>
    public private(set) var detectionCount = 0
    /// The energy (Σx²) of the analysed samples of the last `hopEnergyCount` hops, a ring: enough hops
    /// to cover a frame whatever the decimators' phase, and two more, so their sum bounds the frame's energy from above.
    private let hopEnergies: UnsafeMutablePointer<Float>
    private let hopEnergyCount: Int
    private var hopEnergyIndex = 0
    /// Σw² over the window.
    private let windowEnergy: Float
    /// Whether `power` holds the last frame's spectrum (false when the frame was too quiet to take it).
    private var spectrumValid = false
    /// Analysis frames so far (since init or reset).
    public private(set) var framesAnalyzed = 0

    /// - Thread: control.
    /// - Realtime: unsafe (allocates).
    public init(sampleRate: Double, criteria: HowlCriteria = HowlCriteria()) {
        precondition(criteria.frameSize >= 64 && criteria.frameSize & (criteria.frameSize - 1) == 0)
        precondition(criteria.hopSize >= 1 && criteria.hopSize <= criteria.frameSize)
        self.criteria = criteria
        self.sampleRate = sampleRate
        let factor = HowlDetector.decimationFactor(sampleRate: sampleRate)
        decimation = factor
        analysisRate = sampleRate / Double(factor)
        decimators = (0..<factor.trailingZeroBitCount).map { _ in HalfBandDecimator(maximumChunk: criteria.hopSize) }
        decimated = HowlDetector.filled(criteria.hopSize + 4, with: 0)
        decimatedScratch = HowlDetector.filled(criteria.hopSize + 4, with: 0)
        let n = HowlDetector.analysisFrameSize(criteria: criteria, analysisRate: analysisRate, decimation: factor)
        frameSize = n
        highestFrequency = factor > 1 ? min(criteria.highestFrequency, Float(HalfBandDecimator.passbandEdge * 2 * analysisRate))
            : criteria.highestFrequency
        (growthFrames, creepFrames, saturatedFrames) = HowlDetector.windows(criteria, sampleRate: sampleRate)
        (fastSlopeDB, minimumSlopeDB, minimumCreepSlopeDB) = HowlDetector.slopes(criteria, sampleRate: sampleRate)
        binWidth = Float(analysisRate / Double(n))
        fft = RadixTwoFFT(size: n / 2)
        splitCosines = HowlDetector.turnTable(size: n, cos)
        splitSines = HowlDetector.turnTable(size: n, sin)
        history = HowlDetector.filled(2 * n, with: 0)
        window = HowlDetector.hannWindow(size: n)
        windowEnergy = HowlDetector.squaresInOrder(window, count: n)
        // Enough hops to hold a frame of analysed samples whatever the decimators' phase: a hop brings
        // hop / decimation of them on average (none at all when the hop is shorter than the factor),
        // so ⌈frame · factor / hop⌉ hops and two more for the phase.
        hopEnergyCount = (n * factor + criteria.hopSize - 1) / criteria.hopSize + 2
        hopEnergies = HowlDetector.filled(hopEnergyCount, with: 0)
        real = HowlDetector.filled(n, with: 0)
        imaginary = HowlDetector.filled(n, with: 0)
        power = HowlDetector.filled(n / 2 + 1, with: 0)
        // A peak needs the bin below it, and its main lobe (±2 bins) clear of its mirror image's at DC.
        lowBin = max(3, Int((criteria.lowestFrequency / binWidth).rounded(.up)))
        averageLowBin = max(4, lowBin)
        highBin = min(n / 2 - 10, Int((highestFrequency / binWidth).rounded(.down)))
        spectrumTop = min(n / 2, highBin + 9)
        // Hann: a sine of amplitude A peaks at A·N/4 in magnitude.
        calibrationDB = -Float(20 * log10(Double(n) / 4))
        thresholdPower = HowlDetector.powerRatio(criteria.thresholdDB - calibrationDB)
        paprRatio = HowlDetector.powerRatio(criteria.minimumPAPR)
        pnprRatio = HowlDetector.powerRatio(criteria.minimumPNPR)
        phprRatio = HowlDetector.powerRatio(criteria.minimumPHPR)
        let c = max(1, criteria.candidatesPerFrame)
        (candidateBins, candidateLevels, candidateRatios) = HowlDetector.peakLists(capacity: c)
        (harmonicBins, harmonicLevels, harmonicRatios) = HowlDetector.peakLists(capacity: c)
        let t = HowlDetector.trackCapacity
        historyLength = max(2 * growthFrames, saturatedFrames, creepFrames, 2)
        trackActive = HowlDetector.filled(t, with: false)
        trackMatched = HowlDetector.filled(t, with: false)
        trackFrames = HowlDetector.filled(t, with: 0)
        trackMissed = HowlDetector.filled(t, with: 0)
        trackLastBin = HowlDetector.filled(t, with: 0)
        trackBins = HowlDetector.filled(t * historyLength, with: 0)
        trackLevels = HowlDetector.filled(t * historyLength, with: 0)
        trackHarmonicFree = HowlDetector.filled(t * historyLength, with: false)
        trackStartRatio = HowlDetector.filled(t, with: 0)
        trackRatio = HowlDetector.filled(t, with: 0)
        detections = HowlDetector.filled(t, with: HowlDetection(frequency: 0, levelDB: 0, slopeDB: 0, reason: .growing))
    }

    /// The largest power of two that keeps the analysis rate at 22.05 kHz or more.
    private static func decimationFactor(sampleRate: Double) -> Int {
        var factor = 1
        while sampleRate / Double(factor * 2) >= 22_050 { factor *= 2 }
        return factor
    }

    /// `criteria.frameSize` scaled from 48 kHz to `analysisRate`, to the next power of two
    /// (at least 64), and long enough for a hop's analysed samples.
    private static func analysisFrameSize(criteria: HowlCriteria, analysisRate: Double, decimation: Int) -> Int {
        var n = 64
        while Double(n) < Double(criteria.frameSize) * analysisRate / 48_000 - 0.5 || n < criteria.hopSize / decimation { n *= 2 }
        return n
    }

    /// `criteria`'s growth, creep and saturation windows, given in frames at 48 kHz, as the same
    /// times in frames at `sampleRate` (the hop is the same number of samples), at least 2 each.
    private static func windows(_ criteria: HowlCriteria, sampleRate: Double) -> (growth: Int, creep: Int, saturated: Int) {
        let perReferenceFrame = sampleRate / 48_000
        func frames(_ count: Int) -> Int { max(2, Int((Double(count) * perReferenceFrame).rounded())) }
        return (frames(criteria.growthFrames), frames(criteria.creepFrames), frames(criteria.saturatedFrames))
    }

    /// `criteria`'s fast, least and creeping slopes, given in dB per frame at 48 kHz, per frame at `sampleRate`.
    private static func slopes(_ criteria: HowlCriteria, sampleRate: Double) -> (fast: Float, minimum: Float, creep: Float) {
        let perReferenceFrame = sampleRate / 48_000
        func perFrame(_ slope: Float) -> Float { Float(Double(slope) / perReferenceFrame) }
        return (perFrame(criteria.fastSlopeDB), perFrame(criteria.minimumSlopeDB), perFrame(criteria.minimumCreepSlopeDB))
    }

    /// A peak list's bins, levels and ratios, `capacity` each, zeroed.
    private static func peakLists(capacity: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        (filled(capacity, with: 0), filled(capacity, with: 0), filled(capacity, with: 0))
    }

    /// `dB` as a power ratio.
    private static func powerRatio(_ dB: Float) -> Float {
        Float(pow(10, Double(dB) / 10))
    }

    /// `count` elements, each `value`, to be deallocated by `deinit`.
    private static func filled<Element>(_ count: Int, with value: Element) -> UnsafeMutablePointer<Element> {
        let p = UnsafeMutablePointer<Element>.allocate(capacity: count)
        p.initialize(repeating: value, count: count)
        return p
    }

    /// `function`(2πk/size) for k in 0…size/2: the turns the split into the real spectrum needs.
    private static func turnTable(size n: Int, _ function: (Double) -> Double) -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: n / 2 + 1)
        for k in 0...n / 2 { (p + k).initialize(to: Float(function(2 * Double.pi * Double(k) / Double(n)))) }
        return p
    }

    /// The Hann window of `size` samples (periodic).
    private static func hannWindow(size n: Int) -> UnsafeMutablePointer<Float> {
        let p = UnsafeMutablePointer<Float>.allocate(capacity: n)
        for i in 0..<n { (p + i).initialize(to: Float(0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n)))) }
        return p
    }

    /// Σx² over `count` values, added one after the other (`sumOfSquares` adds in four partial sums).
    private static func squaresInOrder(_ x: UnsafeMutablePointer<Float>, count: Int) -> Float {
        var squares: Float = 0
        for i in 0..<count { squares += x[i] * x[i] }
        return squares
    }

    deinit {
        for p in [hopEnergies, decimated, decimatedScratch, history, window, real, imaginary, power, splitCosines, splitSines, candidateBins, candidateLevels, candidateRatios, harmonicBins, harmonicLevels, harmonicRatios, trackBins, trackLevels, trackStartRatio, trackRatio] {
            p.deallocate()
        }
        trackActive.deallocate()
        trackLastBin.deallocate()
        trackHarmonicFree.deallocate()
        trackMatched.deallocate()
        trackFrames.deallocate()
        trackMissed.deallocate()
        detections.deallocate()
    }

    // MARK: Audio thread

    /// Forgets the signal and every followed peak.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func reset() {
        history.update(repeating: 0, count: 2 * frameSize)
        hopEnergies.update(repeating: 0, count: hopEnergyCount)
        hopEnergyIndex = 0
        for stage in decimators { stage.reset() }
        writeIndex = 0
        samplesSinceAnalysis = 0
        trackActive.update(repeating: false, count: HowlDetector.trackCapacity)
        detectionCount = 0
        spectrumValid = false
        framesAnalyzed = 0
    }

    /// Samples still to push before the next analysis is due.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    public var samplesUntilAnalysis: Int { criteria.hopSize - samplesSinceAnalysis }

    /// Appends one sample.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    public func push(_ sample: Float) {
        var value = sample
        push(&value, count: 1)
    }

    /// Appends `count` samples (at most `samplesUntilAnalysis` of them, so no
    /// analysis is skipped): decimated, then copied in at most two contiguous runs.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func push(_ samples: UnsafePointer<Float>, count: Int) {
        samplesSinceAnalysis += count
        var source = samples, length = count
        var target = decimated, spare = decimatedScratch
        for stage in decimators {
            length = stage.process(source, count: length, into: target)
            source = UnsafePointer(target)
            swap(&target, &spare)
        }
        // This hop's energy so far, for the quiet-frame test.
        hopEnergies[hopEnergyIndex] += sumOfSquares(source, count: length)
        let n = frameSize
        var done = 0
        while done < length {
            let run = min(length - done, n - writeIndex)
            (history + writeIndex).update(from: source + done, count: run)
            (history + writeIndex + n).update(from: source + done, count: run)
            writeIndex += run
            if writeIndex == n { writeIndex = 0 }
            done += run
        }
    }

    /// Analyses the last frame when a hop is complete (else does nothing and
    /// returns false). Results in `detections[0..<detectionCount]`.
    /// - Thread: audio.
    /// - Realtime: safe. One FFT, a pass over the bins, some log10 calls.
    public func analyzeIfDue() -> Bool {
        guard samplesSinceAnalysis >= criteria.hopSize else { return false }
        samplesSinceAnalysis = 0
        defer {
            // The next hop's energy goes into the oldest slot (its hop has left the frame).
            hopEnergyIndex = (hopEnergyIndex + 1) % hopEnergyCount
            hopEnergies[hopEnergyIndex] = 0
        }
        framesAnalyzed += 1
        detectionCount = 0
        spectrumValid = computeSpectrum()
        if spectrumValid {
            findCandidates()
        } else {
            candidateCount = 0
            harmonicCount = 0
        }
        followCandidates()
        return true
    }

    /// The windowed spectrum of the last frame into `power`. Returns false,
    /// leaving `power` alone, when the frame is too quiet for any bin to pass
    /// PTPR: no bin's magnitude exceeds Σ|x[n]·w[n]| ≤ √(Σx[n]² · Σw[n]²)
    /// (the triangle and Cauchy–Schwarz inequalities), so when the frame's
    /// energy times Σw² is under the threshold (with a margin far above the
    /// rounding) there can be no candidate. The energy comes from the per-hop
    /// sums `push` keeps, so a quiet frame costs no pass over its samples.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func computeSpectrum() -> Bool {
        var energy: Float = 0
        for h in 0..<hopEnergyCount { energy += hopEnergies[h] }
        guard energy * windowEnergy * 1.01 >= thresholdPower else { return false }
        // The real frame as a complex one of half the length, z[m] = x[2m] + i·x[2m+1]
        // (one FFT of frameSize/2 points instead of frameSize), then split into the
        // real frame's spectrum: X[k] = E[k] + W^k·O[k], where E and O are the spectra
        // of the even and odd samples, E[k] = (Z[k] + Z*[M−k]) / 2, O[k] = (Z[k] − Z*[M−k]) / 2i.
        // The windowed samples go straight to their bit-reversed places, through the FFT's first
        // radix-4 pass on the way (the same arithmetic as `transformBitReversed`'s): the group of
        // four at bit-reversed place s = rev(p), p < M/4, holds z[p], z[p + M/2], z[p + M/4] and
        // z[p + 3M/4], so four consecutive p are four groups, a butterfly per SIMD lane.
        let n = frameSize, m = n / 2, q = m / 4
        let frame = history + writeIndex
        typealias Lanes = SIMD4<Float>
        var p = 0
        while p < q {
            let (r0, i0) = windowed(frame, p)
            let (r1, i1) = windowed(frame, p + 2 * q)
            let (r2, i2) = windowed(frame, p + q)
            let (r3, i3) = windowed(frame, p + 3 * q)
            let a0r = r0 + r1, a0i = i0 + i1, a1r = r0 - r1, a1i = i0 - i1
            let a2r = r2 + r3, a2i = i2 + i3, a3r = r2 - r3, a3i = i2 - i3
            let y0r = a0r + a2r, y0i = a0i + a2i, y2r = a0r - a2r, y2i = a0i - a2i
            // The second butterfly's twiddle is −i: −i·(a3r + i·a3i) = a3i − i·a3r.
            let y1r = a1r + a3i, y1i = a1i - a3r, y3r = a1r - a3i, y3i = a1i + a3r
            for lane in 0..<4 {
                let place = fft.bitReversedIndex(p + lane)
                UnsafeMutableRawPointer(real + place).storeBytes(of: Lanes(y0r[lane], y1r[lane], y2r[lane], y3r[lane]), as: Lanes.self)
                UnsafeMutableRawPointer(imaginary + place).storeBytes(of: Lanes(y0i[lane], y1i[lane], y2i[lane], y3i[lane]), as: Lanes.self)
            }
            p += 4
        }
        fft.finishTransform(real: real, imaginary: imaginary)
        // Bins 0 and M pair Z[0] with itself; every other k pairs Z[k] with Z[M−k].
        split(bin: 0, a: 0, b: 0)
        let top = spectrumTop
        let end = min(top + 1, m)
        // Four bins at a time: Z[k…k+3] forwards and Z[M−k−3…M−k] reversed; the same arithmetic per lane.
        var k = 1
        while k + 4 <= end {
            let ra = load(real + k), ia = load(imaginary + k)
            let rr = load(real + m - k - 3), ir = load(imaginary + m - k - 3)
            let rb = Lanes(rr[3], rr[2], rr[1], rr[0]), ib = Lanes(ir[3], ir[2], ir[1], ir[0])
            let er = (ra + rb) / 2, ei = (ia - ib) / 2
            let or = (ia + ib) / 2, oi = (rb - ra) / 2
            let c = load(splitCosines + k), s = load(splitSines + k)
            let xr = er + c * or + s * oi
            let xi = ei + c * oi - s * or
            UnsafeMutableRawPointer(power + k).storeBytes(of: xr * xr + xi * xi, as: Lanes.self)
            k += 4
        }
        while k < end { split(bin: k, a: k, b: m - k); k += 1 }
        if top >= m { split(bin: m, a: 0, b: 0) }
        return true
    }

    /// The windowed complex samples z[i…i+3] (real: x[2i…], imaginary: x[2i+1…]) of `frame`.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func windowed(_ frame: UnsafeMutablePointer<Float>, _ i: Int) -> (SIMD4<Float>, SIMD4<Float>) {
        let a = load(frame + 2 * i) * load(window + 2 * i), b = load(frame + 2 * i + 4) * load(window + 2 * i + 4)
        return (SIMD4(a[0], a[2], b[0], b[2]), SIMD4(a[1], a[3], b[1], b[3]))
    }

    /// Bin `k`'s power (0…frameSize/2), from the split when it is above the bins `computeSpectrum` filled.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func powerAt(_ k: Int) -> Float {
        if k > spectrumTop {
            let m = frameSize / 2
            if k == m { split(bin: k, a: 0, b: 0) } else { split(bin: k, a: k, b: m - k) }
        }
        return power[k]
    }

    /// Four floats from `p` (any alignment).
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func load(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    /// One bin of the real spectrum from Z[a] and Z[b] (b = M − a, or 0 for bins 0 and M).
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func split(bin k: Int, a: Int, b: Int) {
        let er = (real[a] + real[b]) / 2, ei = (imaginary[a] - imaginary[b]) / 2
        let or = (imaginary[a] + imaginary[b]) / 2, oi = (real[b] - real[a]) / 2
        let c = splitCosines[k], s = splitSines[k]
        let xr = er + c * or + s * oi
        let xi = ei + c * oi - s * or
        power[k] = xr * xr + xi * xi
    }

    /// A bin's level in dB (relative to a full-scale sine).
    /// - Thread: audio.
    /// - Realtime: safe (one log10f).
    @inline(__always)
    private func decibels(_ p: Float) -> Float { _unsafePerformance { 10 * log10f(p + 1e-20) } + calibrationDB }

    /// The loudest local maxima in the band that pass PTPR, PAPR, PNPR and PHPR.
    /// The ratios are compared as powers (no logarithm per bin); only the
    /// peaks that pass get their levels in dB, for the interpolation.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func findCandidates() {
        candidateCount = 0
        harmonicCount = 0
        guard highBin >= lowBin else { return }  // a band (from custom criteria) above what the analysis holds
        // Four partial sums: one chain of dependent additions would take longer than the rest.
        var sums = SIMD4<Float>(repeating: 0)
        var k = averageLowBin
        while k + 4 <= highBin + 1 {
            sums += UnsafeRawPointer(power + k).loadUnaligned(as: SIMD4<Float>.self)
            k += 4
        }
        var sum = sums.sum()
        while k <= highBin { sum += power[k]; k += 1 }
        let average = sum / Float(highBin - averageLowBin + 1)
        let capacity = max(1, criteria.candidatesPerFrame)
        // PTPR and PAPR as one floor: most bins fail it, in one comparison.
        let floor = max(thresholdPower, average * paprRatio)
        for k in lowBin...highBin {
            let p = power[k]
            guard p >= floor, p > power[k - 1], p >= power[k + 1] else { continue }
            // Neighbours outside the Hann main lobe (±2 bins): 3…8 bins away on each side.
            // (Below bin 9 the left side stops short of DC: the mean is over the bins there are.)
            var neighbours: Float = 0
            var counted: Float = 0
            for d in 3...8 {
                neighbours += power[k + d]
                counted += 1
                if k - d >= 1 { neighbours += power[k - d]; counted += 1 }
            }
            guard p >= neighbours / counted * pnprRatio else { continue }
            // Harmonics 2 and 3 and the subharmonics (a note an octave or a fifth down whose overtone this is):
            // multiples 0.5, 1.5, 2 and 3, as halves (no array literal on the audio thread). Bins within
            // 2 of k are the peak's own main lobe, not a harmonic: a low peak (k ≤ 7, 160 Hz at 48 kHz)
            // has its ½ and 1½ multiples there and would fail its own test.
            var harmonic: Float = 0
            for halves in 1...6 where halves != 2 && halves != 5 {
                let centre = (k * halves + 1) / 2
                if centre - 1 < 1 || centre + 1 > frameSize / 2 { continue }
                for j in centre - 1...centre + 1 where j > k + 2 || j < k - 2 { harmonic = max(harmonic, powerAt(j)) }
            }
            // Parabolic interpolation on the dB values: sub-bin frequency and peak level.
            let a = decibels(power[k - 1]), b = decibels(p), g = decibels(power[k + 1])
            let denominator = a - 2 * b + g
            let offset = denominator < 0 ? max(-0.5, min(0.5, 0.5 * (a - g) / denominator)) : 0
            let peakLevel = b - 0.25 * (a - g) * offset
            let ratio = p / max(harmonic, Float.leastNormalMagnitude)
            if ratio >= phprRatio {
                insert(bin: Float(k) + offset, level: peakLevel, ratio: ratio, into: candidateBins, candidateLevels, candidateRatios,
                       count: &candidateCount, capacity: capacity)
            } else {
                insert(bin: Float(k) + offset, level: peakLevel, ratio: ratio, into: harmonicBins, harmonicLevels, harmonicRatios,
                       count: &harmonicCount, capacity: capacity)
            }
        }
    }

    /// The share of the last frame's power in the band that lies in prominent peaks (each local maximum
    /// 10 dB over the mean of the bins 3–8 away on either side, with its main lobe's ±1 bins): near 1
    /// for a few strong tones (a howl on a whole harmonic series, a held chord), near 0 for noise, 0 for
    /// a frame too quiet to analyse. Computed on demand (a pass over the band with a neighbourhood
    /// per local maximum): the guard asks only when a loop may be pinned at the ceiling, to tell it
    /// from a loud noise or a distorted source driven into the limiter on purpose.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func tonalFraction() -> Float {
        guard spectrumValid, highBin >= lowBin else { return 0 }
        var total: Float = 0, tonal: Float = 0
        // The highest bin already in `tonal` (a lobe's upper bin is not counted again as the next one's lower).
        var counted = lowBin - 1
        var k = lowBin
        while k <= highBin {
            let p = power[k]
            total += p
            if p > power[k - 1] && p >= power[k + 1] {
                var neighbours: Float = 0, bins: Float = 0
                for d in 3...8 {
                    neighbours += power[k + d]
                    bins += 1
                    if k - d >= 1 { neighbours += power[k - d]; bins += 1 }
                }
                if p >= 10 * neighbours / bins {
                    tonal += p
                    if k - 1 > counted { tonal += power[k - 1] }  // k − 1 ≥ lowBin: already in `total`
                    counted = k
                    if k + 1 <= highBin {
                        // The lobe's upper bin, in both sums here, and skipped by the walk.
                        tonal += power[k + 1]
                        total += power[k + 1]
                        counted = k + 1
                        k += 2
                        continue
                    }
                }
            }
            k += 1
        }
        return min(1, tonal / (total + 1e-30))
    }

    /// Keeps the `capacity` loudest peaks in `bins` and `levels` (`count` of them), loudest first.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func insert(bin: Float, level: Float, ratio: Float, into bins: UnsafeMutablePointer<Float>, _ levels: UnsafeMutablePointer<Float>,
                        _ ratios: UnsafeMutablePointer<Float>, count: inout Int, capacity: Int) {
        var position = count
        while position > 0 && levels[position - 1] < level { position -= 1 }
        guard position < capacity else { return }
        var i = min(count, capacity - 1)
        while i > position {
            bins[i] = bins[i - 1]
            levels[i] = levels[i - 1]
            ratios[i] = ratios[i - 1]
            i -= 1
        }
        bins[position] = bin
        levels[position] = level
        ratios[position] = ratio
        count = min(count + 1, capacity)
    }

    /// Matches this frame's candidates to the followed peaks (within a bin),
    /// starts new tracks, drops tracks missing two frames running, and judges
    /// every track with enough history.
    ///
    /// PHPR is asked of a track, not of every frame: a peak that fails only PHPR carries on a
    /// track already followed (its level and frequency go into the history) but starts none, and a
    /// track is judged only in a frame where its peak passes every test. Where a second howl grows
    /// about as fast near a multiple of the howl's frequency, the lead of the one over the other
    /// wavers about the PHPR bar from frame to frame, and the howl may fail PHPR in most of the
    /// frames the fast growth rule reads. Carried on its track, it is caught as soon as with PHPR
    /// off altogether; if each such frame broke the track or held back the count, it would be
    /// caught frames later, louder (`busker bench --howl` reports the catch times).
    ///
    /// A note starts tracks too: its fundamental sounds before its overtones build up (a held
    /// FluidR3 flute note's stands 22 dB over them at its first frame, 10 dB seven frames later,
    /// growing all the while). So a growth window that spans frames failing PHPR counts only if
    /// the peak's lead over its harmonics has held: PHPR in the deciding frame at least what it
    /// was in the frame that started the track (`judge`). Without that test held FluidR3 flute
    /// notes (`HowlFalseAlarmTests`) pass the fast or slow growth rule over such windows, and only a
    /// deciding frame that happens to fail PHPR keeps them from a notch. The still-peak rules
    /// (creep, sustained) allow no two such frames in a row (`mostlyHarmonicFree`), as strict as
    /// the two missed frames that end a track: a held organ note is as still as a held howl, and
    /// its overtones are what tell them apart.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func followCandidates() {
        let t = HowlDetector.trackCapacity
        for i in 0..<t { trackMatched[i] = false }
        for c in 0..<candidateCount {
            let bin = candidateBins[c]
            var best = nearestTrack(to: bin)
            if best < 0 {
                for i in 0..<t where !trackActive[i] { best = i; break }
                guard best >= 0 else { continue }
                trackActive[best] = true
                trackFrames[best] = 0
                trackStartRatio[best] = candidateRatios[c]
            }
            append(track: best, bin: bin, level: candidateLevels[c], ratio: candidateRatios[c], harmonicFree: true)
        }
        for c in 0..<harmonicCount {
            let bin = harmonicBins[c]
            let best = nearestTrack(to: bin)
            if best >= 0 { append(track: best, bin: bin, level: harmonicLevels[c], ratio: harmonicRatios[c], harmonicFree: false) }
        }
        let h = historyLength
        for i in 0..<t where trackActive[i] {
            if !trackMatched[i] {
                trackMissed[i] += 1
                if trackMissed[i] >= 2 { trackActive[i] = false }
                continue
            }
            if trackHarmonicFree[i * h + (trackFrames[i] - 1) % h] { judge(track: i) }
        }
    }

    /// The active track not yet matched this frame nearest to `bin`, within a bin, or −1.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func nearestTrack(to bin: Float) -> Int {
        var best = -1
        var bestDistance: Float = 1
        for i in 0..<HowlDetector.trackCapacity where trackActive[i] && !trackMatched[i] {
            let distance = abs(trackLastBin[i] - bin)
            if distance <= bestDistance { best = i; bestDistance = distance }
        }
        return best
    }

    /// Adds this frame's peak to track `i`'s history.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private func append(track i: Int, bin: Float, level: Float, ratio: Float, harmonicFree: Bool) {
        let h = historyLength, slot = trackFrames[i] % h
        trackMatched[i] = true
        trackMissed[i] = 0
        trackBins[i * h + slot] = bin
        trackLevels[i * h + slot] = level
        trackHarmonicFree[i * h + slot] = harmonicFree
        trackRatio[i] = ratio
        trackLastBin[i] = bin
        trackFrames[i] += 1
    }

    /// Whether track `i`'s peak passed PHPR in each of its last `k` frames.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func allHarmonicFree(track i: Int, frames k: Int) -> Bool {
        let h = historyLength, frames = trackFrames[i]
        for j in 0..<k where !trackHarmonicFree[i * h + (frames - k + j) % h] { return false }
        return true
    }

    /// Whether track `i`'s peak passed PHPR in at least every other one of its last `k` frames
    /// (no two failures in a row).
    /// - Thread: audio.
    /// - Realtime: safe.
    private func mostlyHarmonicFree(track i: Int, frames k: Int) -> Bool {
        let h = historyLength, frames = trackFrames[i]
        var failedBefore = false
        for j in 0..<k {
            let failed = !trackHarmonicFree[i * h + (frames - k + j) % h]
            if failed && failedBefore { return false }
            failedBefore = failed
        }
        return true
    }

    /// The least-squares line through the last `k` levels of track `i`: its
    /// slope (dB per frame), the RMS distance of the levels from it, and how
    /// many frame-to-frame steps rose.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func fit(track i: Int, frames k: Int) -> (slope: Float, deviation: Float, rising: Int) {
        let h = historyLength, frames = trackFrames[i]
        var sumY: Float = 0, sumXY: Float = 0
        var rising = 0
        for j in 0..<k {
            let y = trackLevels[i * h + (frames - k + j) % h]
            sumY += y
            sumXY += Float(j) * y
            if j > 0 && y > trackLevels[i * h + (frames - k + j - 1) % h] { rising += 1 }
        }
        let n = Float(k), meanX = (n - 1) / 2, meanY = sumY / n
        let sxx = n * (n * n - 1) / 12
        let slope = (sumXY - n * meanX * meanY) / sxx
        var squares: Float = 0
        for j in 0..<k {
            let y = trackLevels[i * h + (frames - k + j) % h]
            let r = y - (meanY + slope * (Float(j) - meanX))
            squares += r * r
        }
        return (slope, (squares / n).squareRoot(), rising)
    }

    /// The RMS distance of track `i`'s last `k` bins from their mean.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func binDeviation(track i: Int, frames k: Int) -> Float {
        let h = historyLength, frames = trackFrames[i]
        var sum: Float = 0
        for j in 0..<k { sum += trackBins[i * h + (frames - k + j) % h] }
        let mean = sum / Float(k)
        var squares: Float = 0
        for j in 0..<k {
            let d = trackBins[i * h + (frames - k + j) % h] - mean
            squares += d * d
        }
        return (squares / Float(k)).squareRoot()
    }

    /// Reports track `i` as a howl when it has grown steadily over the last
    /// `growthFrames`, or stood loud and still over the last `saturatedFrames`;
    /// a reported track starts its history over, so a howl that goes on
    /// growing is reported again `growthFrames` later (and the notch deepens).
    /// - Thread: audio.
    /// - Realtime: safe.
    private func judge(track i: Int) {
        let c = criteria, h = historyLength
        // k frames hold k − 1 steps, and k − k/6 of them (rounded) must rise: at 48 kHz no fall in the
        // fast rule's 5 steps and one in the slow rule's 11; at 88.2/96 kHz, whose windows hold twice the
        // frames, one in 11 and three in 23. That strictness at 48 kHz is what keeps a held piano note and a
        // steady test tone un-notched: allowing small dips would catch some howls a few frames sooner
        // but notch both. More frames at a higher rate each rise less, hence a share rather than a count.
        func fallsAllowed(_ k: Int) -> Int { Int((Float(k) / 6).rounded()) }
        let frames = trackFrames[i]
        let newest = (frames - 1) % h
        let bin = trackBins[i * h + newest], level = trackLevels[i * h + newest]
        var found: HowlDetection?
        // Fast growth shows within `growthFrames`; slow growth must last twice as long,
        // longer than the rising half of a tremolo or a swell.
        let k = growthFrames
        // A window with frames that failed PHPR counts only if the peak now stands over its harmonics at
        // least as far as when its track began: a note's overtones build up after its fundamental, while
        // a howl's lead over a room's response (or a second howl) at its multiples holds (`followCandidates`).
        let leadHeld = trackRatio[i] >= trackStartRatio[i]
        if frames >= k {
            let fast = fit(track: i, frames: k)
            if (leadHeld || allHarmonicFree(track: i, frames: k))
                && fast.slope >= fastSlopeDB && fast.deviation <= c.maximumSlopeDeviationDB && fast.rising >= k - fallsAllowed(k)
                && binDeviation(track: i, frames: k) <= c.growingFrequencyDeviationBins {
                found = HowlDetection(frequency: bin * binWidth, levelDB: level, slopeDB: fast.slope, reason: .growing)
            } else if frames >= 2 * k {
                let slow = fit(track: i, frames: 2 * k)
                if (leadHeld || allHarmonicFree(track: i, frames: 2 * k))
                    && slow.slope >= minimumSlopeDB && slow.deviation <= c.maximumSlopeDeviationDB
                    && slow.rising >= 2 * k - fallsAllowed(2 * k)
                    && binDeviation(track: i, frames: 2 * k) <= c.growingFrequencyDeviationBins {
                    found = HowlDetection(frequency: bin * binWidth, levelDB: level, slopeDB: slow.slope, reason: .growing)
                }
            }
        }
        // Creeping growth (a loop a hair over unity): slow and long, at a frequency that does not move.
        let w = creepFrames
        if found == nil && frames >= w && mostlyHarmonicFree(track: i, frames: w) {
            let creep = fit(track: i, frames: w)
            if creep.slope >= minimumCreepSlopeDB && creep.deviation <= c.maximumSlopeDeviationDB
                && binDeviation(track: i, frames: w) <= c.saturatedFrequencyDeviationBins {
                found = HowlDetection(frequency: bin * binWidth, levelDB: level, slopeDB: creep.slope, reason: .growing)
            }
        }
        let s = saturatedFrames
        if found == nil && frames >= s && level >= c.saturatedLevelDB && mostlyHarmonicFree(track: i, frames: s) {
            var sumLevel: Float = 0
            for j in 0..<s { sumLevel += trackLevels[i * h + (frames - s + j) % h] }
            let meanLevel = sumLevel / Float(s)
            var worstLevel: Float = 0
            for j in 0..<s {
                worstLevel = max(worstLevel, abs(trackLevels[i * h + (frames - s + j) % h] - meanLevel))
            }

            // Still: no drift either (a decaying note drifts down), at most the allowed deviation over the whole run.
            let drift = abs(fit(track: i, frames: s).slope) * Float(s - 1)
            if binDeviation(track: i, frames: s) <= c.saturatedFrequencyDeviationBins && worstLevel <= c.saturatedLevelDeviationDB
                && drift <= c.saturatedLevelDeviationDB {
                found = HowlDetection(frequency: bin * binWidth, levelDB: level, slopeDB: 0, reason: .sustained)
            }
        }
        if let found, detectionCount < HowlDetector.trackCapacity {
            detections[detectionCount] = found
            detectionCount += 1
            // Start over: the next report needs a fresh run of frames, and its lead over its harmonics is
            // measured from here (after a notch, which lowers the peak the detector sees).
            trackFrames[i] = 0
            trackStartRatio[i] = trackRatio[i]
        }
    }
}
