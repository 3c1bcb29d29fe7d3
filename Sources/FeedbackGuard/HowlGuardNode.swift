import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Feedback (howl) protection: a `HowlDetector` watches the node's own
/// output, and every howl it reports gets a notch in a `NotchBank` (a new
/// one at `initialDepthDB`, or the one already there `deepenStepDB` deeper).
/// When the notches can do no more (the notch there is at full depth, or
/// every slot is taken, or `emergencyNotchBurst` new notches went in within
/// `emergencyNotchBurstSeconds`, or a loud howl's level has not fallen
/// `emergencyReliefDB` within `emergencyCheckSeconds` of its notch, or, while
/// the gain recovers, the level rises `emergencyReturnDB` again, or the level still climbs `emergencyClimbDB` over
/// where it was when this bout of feedback was first found: a loop that is
/// too loud everywhere, like a flat digital wire, howls on a whole harmonic
/// series at once, which the PHPR rightly does not call a howl), a last-resort gain reduction steps the whole signal
/// down `emergencyStepDB` at a time. After a second of quiet it recovers, but
/// only to `emergencyMarginDB` under the gain that last howled (a floor that
/// itself fades at `emergencyFloorReleaseDBPerSecond` after
/// `emergencyFloorHoldSeconds`), so a loop that howls at full gain does not
/// howl again each time the gain comes back.
///
/// The level tests measure the signal before the emergency gain, which a voice
/// after a caught howl fills too and the gain cannot turn down. So, below
/// `emergencyLoudDB`, a level test counts only within `emergencyEvidenceSeconds`
/// of a detection and only `emergencyRiseDB` above the level at the previous
/// step, and only a step from exhausted notches or a loud hop sets the floor.
///
/// The detector sees the signal after the notches and before the emergency
/// gain: a notch that was not deep enough shows as a peak that still grows.
/// It adds no latency: the notches are minimum-phase IIR filters and the
/// analysis only listens. Notch changes happen every `notchStepSamples`, counted in
/// samples, so the output is the same at any block size.
///
/// The control thread reads `status()` (atomics; notch frequencies, depths,
/// the warning) and may switch the guard or its emergency gain off.
public final class HowlGuardNode: AudioNode {
    /// How long the FEEDBACK warning stays up after a detection.
    public static var warningSeconds: Double { 2 }
    public static var emergencyStepDB: Float { 6 }
    public static var maximumEmergencyReductionDB: Float { 30 }
    public static var emergencyHoldSeconds: Double { 1 }
    public static var emergencyReleaseDBPerSecond: Float { 6 }
    public static var emergencyMarginDB: Float { 3 }
    public static var emergencyClimbDB: Float { 6 }
    public static var emergencyCheckSeconds: Double { 0.2 }
    /// While the gain recovers, a rise this far over the quietest level since the last step is the howl coming back.
    public static var emergencyReturnDB: Float { 12 }
    public static var emergencyReliefDB: Float { 3 }
    /// A climb counts only above this level (dBFS RMS, before the gain): a quiet room that starts to sing is not a howl.
    public static var emergencyClimbFloorDB: Float { -30 }
    /// The least time between two emergency steps, so each can take effect around the loop.
    public static var emergencyIntervalSeconds: Double { 0.1 }
    public static var emergencyFloorHoldSeconds: Double { 30 }
    public static var emergencyFloorReleaseDBPerSecond: Float { 0.2 }
    /// A step from a level test (climb, return, no relief) needs the level this far above where it was at the previous step.
    public static var emergencyRiseDB: Float { 3 }
    /// The climb and return tests count only this long after the detector last found a howl…
    public static var emergencyEvidenceSeconds: Double { 0.5 }
    /// …or at any time when the hop (RMS before the gain, dBFS) is louder than this: a loop pinned near the
    /// limiter's ceiling on a harmonic series the detector rightly does not call a howl; no voice is that loud.
    public static var emergencyLoudDB: Float { -10 }
    /// A hop louder than `emergencyLoudDB` hop after hop for this long is a loop pinned at the ceiling
    /// (level tests cannot see it rise any more, the detector may not call a harmonic series a howl):
    /// the gain steps down once per this much pinned time until the level lets go.
    public static var emergencyPinnedSeconds: Double { 0.3 }
    /// …or a hop whose peak (before the gain, any channel) is over this, hop after hop: the limiter after the
    /// guard is then at work all the time (its ceiling is −1 dBFS and the master volume after the guard is at
    /// most 1, so whatever it holds at the ceiling peaks at −1 dBFS or more here). A voice reaches the
    /// ceiling on its loudest syllables, not in every 10.7 ms hop for 0.3 s.
    public static var emergencyPinnedPeakDB: Float { -3 }
    /// …when the spectrum is tonal: at least this share of its power in prominent peaks (`HowlDetector.tonalFraction()`).
    public static var emergencyPinnedTonalFraction: Float { 0.5 }
    /// A pinned stretch survives this many hops in a row off the ceiling (53 ms at 48 kHz): an xrun's
    /// dropout in a loop pinned at the ceiling does not start its 0.3 s over. On a loaded machine (13–117
    /// xruns in 30 s) the virtual sound card's loop sat near the ceiling for 6–9 s without this, with
    /// 2 hops still until the 9th second once; with 5, off it from the 2nd–4th second in four runs.
    /// Speech keeps its gaps: driven 6 dB past full scale it still gets no step (tested).
    public static var emergencyPinnedGapHops: Int { 5 }
    /// This many new notches within `emergencyNotchBurstSeconds` is a loop too loud everywhere: a flat
    /// path (a cable, a software patch, the virtual sound card's `jack_connect`) howls on one comb tooth
    /// after another as each is notched, each caught while still quiet, so no level test fires. The
    /// notches count as exhausted: the gain steps and sets the floor.
    public static var emergencyNotchBurst: Int { 4 }
    public static var emergencyNotchBurstSeconds: Double { 1 }
    /// Switched off, the gain releases this fast before the guard bypasses (3 dB per 256 samples at 48 kHz; the
    /// notches release `NotchBank.depthStepDB` per notch step).
    public static var switchOffReleaseDBPerSecond: Float { 562.5 }
    /// The notches move (deepen, release) once per this many samples, a fraction of the analysis hop,
    /// so a notch reaches its first depth within 21 ms at 48 kHz: half the hop, in steps small enough
    /// not to click.
    public static var notchStepSamples: Int { 256 }

    public let criteria: HowlCriteria
    public let slotCount: Int

    // MARK: Shared (atomics)
    private let enabledFlag = Atomic<Bool>(true)
    private let emergencyFlag = Atomic<Bool>(true)
    /// Per slot: frequency (high 32 bits) and applied depth (low 32 bits) as Float bits, in one
    /// atomic so a reader never pairs a new frequency with an old depth (allocated at init, never moved).
    private let notchBits: UnsafeMutablePointer<Atomic<UInt64>>
    private let reductionBits = Atomic<UInt32>(0)
    private let detectionCounter = Atomic<Int>(0)
    private let firstDetection = Atomic<Int>(-1)
    private let lastDetection = Atomic<Int>(Int.min / 2)
    private let publishedTime = Atomic<Int>(0)
    private let rateBits = Atomic<UInt64>(48_000.0.bitPattern)

    // MARK: Control thread only (replaced by `allocate`, read by the audio thread)
    private var detector: HowlDetector
    private var notches: NotchBank
    /// How the notch bank is tuned (copied into every bank `allocate` makes).
    public var notchQ: Double = 8
    public var maximumNotchDepthDB: Float = 30

    // MARK: Audio thread only
    private var now = 0
    /// Switched off and settled: the input passes through untouched. Switched off but not yet
    /// settled, the guard keeps running while its notches and gain release (no step in the output).
    private var bypassed = false
    private var reductionDB: Float = 0
    /// The least reduction the emergency gain recovers to (the last howling gain plus the margin).
    private var floorDB: Float = 0
    private var lastEmergency = Int.min / 2
    /// How much of this hop's mono mix `mono` holds.
    private var hopFill = 0
    /// The level (dB) of the loudest hop in which the current bout of feedback was found.
    private var boutLevelDB: Float = 0
    private var lastFound = Int.min / 2
    /// When to check that a loud howl's notch brought the level down (Int.max: nothing pending), and the level then.
    private var checkAt = Int.max
    private var checkLevelDB: Float = 0
    /// The quietest hop since the last emergency step: a howl coming back as the gain recovers rises far above it.
    private var recoveryMinimumDB: Float = 0
    /// The level at the last emergency step (−∞ when the gain is back at 0 dB): a step from a
    /// level test needs the level to have risen `emergencyRiseDB` above it, so a voice after a
    /// caught howl, which the gain cannot turn down (it is measured before the gain), cannot step it again and again.
    private var stepLevelDB: Float = -Float.infinity
    /// The largest sample of this hop on any channel (after the notches, before the gain).
    private var hopPeak: Float = 0
    /// Since when every hop has been pinned: louder than `emergencyLoudDB`, or peaking over
    /// `emergencyPinnedPeakDB` (Int.max: the last one was not).
    private var loudSince = Int.max
    /// Hops in a row off the ceiling within the current pinned stretch.
    private var pinnedGaps = 0
    /// When the last `emergencyNotchBurst` notches were placed (a ring; `burstNext` is the oldest).
    private let burstTimes: UnsafeMutablePointer<Int>
    private var burstNext = 0
    private var gain: Float = 1
    private var gainStep: Float = 0
    /// Samples since the notches last moved, and how many make a step (`notchStepSamples`, at most the hop).
    private var sinceNotchStep = 0
    private let notchStep: Int
    /// The mono mix of this hop so far (`hopFill` of `hopSize` samples), pushed to the detector stretch by stretch.
    private let mono: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - criteria: the detector's thresholds.
    ///   - slotCount: notches available (at least 8).
    public init(name: String = "howl guard", criteria: HowlCriteria = HowlCriteria(), slotCount: Int = NotchBank.defaultSlotCount) {
        self.criteria = criteria
        self.slotCount = max(1, slotCount)
        notchBits = .allocate(capacity: self.slotCount)
        for i in 0..<self.slotCount { (notchBits + i).initialize(to: Atomic(0)) }
        notchStep = max(1, min(HowlGuardNode.notchStepSamples, criteria.hopSize))
        burstTimes = .allocate(capacity: HowlGuardNode.emergencyNotchBurst)
        burstTimes.initialize(repeating: Int.min / 2, count: HowlGuardNode.emergencyNotchBurst)
        mono = .allocate(capacity: max(1, criteria.hopSize))
        mono.initialize(repeating: 0, count: max(1, criteria.hopSize))
        detector = HowlDetector(sampleRate: 48_000, criteria: criteria)
        notches = NotchBank(slotCount: self.slotCount, channelCount: 2, sampleRate: 48_000)
        super.init(name: name)
    }

    deinit {
        notchBits.deinitialize(count: slotCount)
        notchBits.deallocate()
        mono.deallocate()
        burstTimes.deallocate()
    }

    /// On (the default) or bypassed. Switched off, the notches and the emergency gain release within
    /// about 50 ms before the input passes untouched; switched back on after that, the guard starts clean.
    /// - Realtime: safe (an atomic), any thread.
    public var isEnabled: Bool {
        get { enabledFlag.load(ordering: .relaxed) }
        set { enabledFlag.store(newValue, ordering: .relaxed) }
    }

    /// Whether the last-resort gain reduction may act (the ASG benchmark
    /// measures the notches alone with it off).
    /// - Realtime: safe (an atomic), any thread.
    public var emergencyGainEnabled: Bool {
        get { emergencyFlag.load(ordering: .relaxed) }
        set { emergencyFlag.store(newValue, ordering: .relaxed) }
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        detector = HowlDetector(sampleRate: spec.sampleRate, criteria: criteria)
        let bank = NotchBank(slotCount: slotCount, channelCount: max(1, outputChannelCount), sampleRate: spec.sampleRate)
        bank.q = notchQ
        bank.maximumDepthDB = maximumNotchDepthDB
        notches = bank
        rateBits.store(spec.sampleRate.bitPattern, ordering: .relaxed)
        // Run the audio thread's code once here, on a frame of silence: the first call of a
        // libm function resolves its symbol and touches cold pages, which should not happen
        // inside a real-time block.
        for _ in 0..<criteria.hopSize { detector.push(0) }
        _ = detector.analyzeIfDue()
        detector.reset()
        _ = powf(10, -1) + log10f(2)
    }

    /// Forgets the placements a burst counts.
    /// - Realtime: safe.
    private func forgetBurst() {
        burstTimes.update(repeating: Int.min / 2, count: HowlGuardNode.emergencyNotchBurst)
        burstNext = 0
    }

    /// Forgets every howl and notch and lifts the emergency gain.
    /// - Realtime: safe.
    public override func reset() {
        detector.reset()
        notches.reset()
        now = 0
        reductionDB = 0
        floorDB = 0
        lastEmergency = Int.min / 2
        hopFill = 0
        hopPeak = 0
        boutLevelDB = 0
        lastFound = Int.min / 2
        checkAt = Int.max
        checkLevelDB = 0
        recoveryMinimumDB = 0
        gain = 1
        gainStep = 0
        sinceNotchStep = 0
        stepLevelDB = -Float.infinity
        loudSince = Int.max
        pinnedGaps = 0
        forgetBurst()
        firstDetection.store(-1, ordering: .relaxed)
        lastDetection.store(Int.min / 2, ordering: .relaxed)
        publish()
    }

    /// Copies input bus 0 to `output`, notches it, watches it and applies the emergency gain.
    /// - Realtime: safe. Preallocated buffers, arithmetic, one FFT per hop, relaxed atomics.
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let last = input.channelCount - 1
        let enabled = enabledFlag.load(ordering: .relaxed)
        if bypassed && enabled {
            // Switched back on: from a clean state.
            reset()
            bypassed = false
        } else if !bypassed && !enabled && gain == 1 && gainStep == 0 && reductionDB == 0 && notches.activeCount == 0 {
            // Switched off and every notch and the gain have released: pass the input through untouched.
            reset()
            bypassed = true
        }
        if bypassed {
            for c in 0..<output.channelCount {
                let source = input.channels[min(c, last)], destination = output.channels[c]
                for i in 0..<frames { destination[i] = source[i] }
            }
            return
        }
        // A NaN or infinity (a broken source upstream) would poison the notches' state and the
        // detector's history for seconds: it becomes silence here, on the way in.
        for c in 0..<output.channelCount {
            let source = input.channels[min(c, last)], destination = output.channels[c]
            for i in 0..<frames {
                let x = source[i]
                destination[i] = x.isFinite ? x : 0
            }
        }
        let channels = output.channelCount
        let scale = 1 / Float(channels)
        var offset = 0
        while offset < frames {
            let n = min(frames - offset, detector.samplesUntilAnalysis, notchStep - sinceNotchStep)
            notches.process(output, offset: offset, count: n)
            // The hop's mono mix builds up in `mono` (its energy is summed once the hop is whole, in
            // the same order whatever the block size); the peak, exact in any order, per stretch.
            let stretch = mono + hopFill
            var peak = SIMD4<Float>(repeating: hopPeak)
            if channels == 2 {
                let left = output.channels[0] + offset, right = output.channels[1] + offset
                for i in 0..<n { stretch[i] = (left[i] + right[i]) * scale }
                var i = 0
                while i + 4 <= n {
                    peak = HowlGuardNode.larger(peak, HowlGuardNode.larger(HowlGuardNode.magnitudes(left + i), HowlGuardNode.magnitudes(right + i)))
                    i += 4
                }
                while i < n { peak[0] = Swift.max(peak[0], Swift.max(abs(left[i]), abs(right[i]))); i += 1 }
            } else {
                for i in 0..<n {
                    var sum: Float = 0
                    for c in 0..<channels {
                        let x = output.channels[c][offset + i]
                        sum += x
                        peak[0] = Swift.max(peak[0], abs(x))
                    }
                    stretch[i] = sum * scale
                }
            }
            hopPeak = peak.max()
            detector.push(stretch, count: n)
            hopFill += n
            if gain != 1 || gainStep != 0 {
                for i in offset..<offset + n {
                    gain += gainStep
                    for c in 0..<channels { output.channels[c][i] *= gain }
                }
            }
            offset += n
            now += n
            sinceNotchStep += n
            if detector.analyzeIfDue() { respond() }
            if sinceNotchStep == notchStep {
                // After `respond`, so a notch placed at this hop starts to move at once.
                sinceNotchStep = 0
                notches.update(now: now, elapsedSamples: notchStep)
                publish()
            }
        }
    }

    /// Acts on the detector's findings, steps the notches and the emergency
    /// gain, and publishes the state. Once per hop.
    /// - Realtime: safe.
    private func respond() {
        let hop = criteria.hopSize
        let rate = Double(bitPattern: rateBits.load(ordering: .relaxed))
        let seconds = Float(Double(hop) / rate)
        if !enabledFlag.load(ordering: .relaxed) {
            // Switched off: release every notch and lift the gain within a few hops, then `render` bypasses.
            hopFill = 0
            hopPeak = 0
            notches.releaseAll()
            floorDB = 0
            reductionDB = max(0, reductionDB - HowlGuardNode.switchOffReleaseDBPerSecond * seconds)
            rampGain()
            publish()
            return
        }
        var emergency = false
        // The notches could do no more for a howl the detector found: evidence that the loop howls at this gain.
        var exhausted = false
        // The whole hop at once: the same sum whatever the block size.
        let energy = sumOfSquares(mono, count: hopFill)
        let levelDB = 10 * log10f(energy / Float(hop) + 1e-20)
        let peakDB = 20 * log10f(hopPeak + 1e-20)
        hopFill = 0
        hopPeak = 0
        let warning = Int(HowlGuardNode.warningSeconds * rate)
        let checkSamples = Int(HowlGuardNode.emergencyCheckSeconds * rate)
        // The bout's reference: the loudest hop in which the detector found a howl (a new bout starts afresh).
        // A climb over the howl's own level is the loop still howling; a voice after a caught howl seldom is.
        if detector.detectionCount > 0 {
            boutLevelDB = now - lastFound > warning && reductionDB == 0 ? levelDB : max(boutLevelDB, levelDB)
        }
        // The level is measured before the gain, so whatever the gain cannot turn down (a voice over
        // a caught howl) would trigger every level test again and again: each level test needs the
        // level to have risen since the last step.
        // A hop within a few dB of the limiter's ceiling is no voice: there the tests act as they always did.
        let loud = levelDB > HowlGuardNode.emergencyLoudDB
        let rising = loud || levelDB > stepLevelDB + HowlGuardNode.emergencyRiseDB
        // The level tests count only shortly after a detection: later, a loud hop is more likely a
        // voice than a howl, and a howl that comes back is found again (and then the notches say
        // whether they can take it).
        let evidence = loud || now - lastFound <= Int(HowlGuardNode.emergencyEvidenceSeconds * rate)
        // A climb in a bout means the loop still howls, perhaps on a whole harmonic series that the detector
        // rightly does not call a howl.
        if evidence && levelDB > boutLevelDB + HowlGuardNode.emergencyClimbDB
            && levelDB > HowlGuardNode.emergencyClimbFloorDB && rising { emergency = true }
        // Pinned near the ceiling: a steady howl no longer rises, so the level tests above stay quiet.
        // Or the peaks sit at the ceiling while the RMS does not: a howl on several frequencies at once
        // has a crest factor a single tone has not (seen on the virtual sound card's flat loop: peaks at
        // the limiter's −1 dBFS for 16 s, RMS under −10 dB).
        // The peak test needs a tonal spectrum, as a howl's is: a loud noise or a distorted source driven
        // into the limiter on purpose is not feedback. (A howl above the analysed band, 9.7 kHz at 48 kHz,
        // is one tone: at the ceiling its RMS is over `emergencyLoudDB`, and the RMS test holds it.)
        let pinned = loud || (peakDB > HowlGuardNode.emergencyPinnedPeakDB
                              && detector.tonalFraction() >= HowlGuardNode.emergencyPinnedTonalFraction)
        var pinnedStep = false
        if pinned {
            pinnedGaps = 0
            if loudSince == Int.max { loudSince = now }
            if now - loudSince >= Int(HowlGuardNode.emergencyPinnedSeconds * rate) { emergency = true; pinnedStep = true }
        } else if loudSince != Int.max {
            // A hop or two off the ceiling (a dropout after an xrun) does not end the stretch; more does.
            pinnedGaps += 1
            if pinnedGaps > HowlGuardNode.emergencyPinnedGapHops { loudSince = Int.max; pinnedGaps = 0 }
        }
        recoveryMinimumDB = min(recoveryMinimumDB, levelDB)
        if evidence && reductionDB > 0 && levelDB > recoveryMinimumDB + HowlGuardNode.emergencyReturnDB
            && levelDB > HowlGuardNode.emergencyClimbFloorDB && rising { emergency = true }
        if now >= checkAt {
            // The notches had their chance: a loud howl that did not give way needs the gain.
            if levelDB > checkLevelDB - HowlGuardNode.emergencyReliefDB && rising { emergency = true }
            checkAt = Int.max
        }
        if detector.detectionCount > 0 {
            lastFound = now
            if levelDB > HowlGuardNode.emergencyClimbFloorDB && checkAt == Int.max {
                checkAt = now + checkSamples
                checkLevelDB = levelDB
            }
        }
        for d in 0..<detector.detectionCount {
            let found = detector.detections[d]
            switch notches.notch(frequency: found.frequency, at: now) {
            case .exhausted: emergency = true; exhausted = true
            case .placed:
                // A sliding window: this notch and the three before it, however the burst began.
                burstTimes[burstNext] = now
                burstNext = (burstNext + 1) % HowlGuardNode.emergencyNotchBurst
                if now - burstTimes[burstNext] <= Int(HowlGuardNode.emergencyNotchBurstSeconds * rate) {
                    emergency = true; exhausted = true
                }
            case .deepened: break
            }
            detectionCounter.add(1, ordering: .relaxed)
            if firstDetection.load(ordering: .relaxed) < 0 { firstDetection.store(now, ordering: .relaxed) }
            lastDetection.store(now, ordering: .relaxed)
        }
        let ready = Double(now - lastEmergency) >= HowlGuardNode.emergencyIntervalSeconds * rate
        if emergency && ready && emergencyFlag.load(ordering: .relaxed) {
            // Only a step the detector backs (a howl it found that the notches could not take) or a loud hop
            // sets the floor: a quieter step from a level test may be a voice, and recovers fully after the hold.
            if exhausted || loud || pinnedStep {
                floorDB = min(HowlGuardNode.maximumEmergencyReductionDB, reductionDB + HowlGuardNode.emergencyMarginDB)
            }
            reductionDB = min(HowlGuardNode.maximumEmergencyReductionDB, reductionDB + HowlGuardNode.emergencyStepDB)
            lastEmergency = now
            recoveryMinimumDB = levelDB
            stepLevelDB = levelDB
            if pinned { loudSince = now }  // the next pinned step needs another stretch of pinned time
            forgetBurst()  // and the next burst step another burst
        } else if reductionDB > 0 {
            let quiet = Double(now - lastEmergency) / rate
            if quiet > HowlGuardNode.emergencyFloorHoldSeconds {
                floorDB = max(0, floorDB - HowlGuardNode.emergencyFloorReleaseDBPerSecond * seconds)
            }
            if quiet > HowlGuardNode.emergencyHoldSeconds {
                reductionDB = max(floorDB, reductionDB - HowlGuardNode.emergencyReleaseDBPerSecond * seconds)
            }
            if reductionDB == 0 { stepLevelDB = -Float.infinity }
        }
        rampGain()
        publish()
    }

    /// |x| for four samples from `p` (the sign bit cleared).
    /// - Realtime: safe.
    @inline(__always)
    private static func magnitudes(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt32>.self)
        return unsafeBitCast(v & SIMD4(repeating: 0x7fff_ffff), to: SIMD4<Float>.self)
    }

    /// The larger of `a` and `b` per lane (a select: `pointwiseMax` is a generic call).
    /// - Realtime: safe.
    @inline(__always)
    private static func larger(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        a.replacing(with: b, where: b .> a)
    }

    /// Sets the gain to ramp, sample by sample over the next hop, to the one `reductionDB` asks for.
    /// - Realtime: safe.
    private func rampGain() {
        let target: Float = reductionDB > 0 ? powf(10, -reductionDB / 20) : 1
        gainStep = (target - gain) / Float(criteria.hopSize)
        if abs(target - gain) < 1e-5 { gain = target; gainStep = 0 }  // −100 dB: lands exactly despite rounding in the ramp
    }

    /// Stores the notch bank's state and the gain reduction for `status()`.
    /// - Realtime: safe (relaxed atomic stores).
    private func publish() {
        for i in 0..<slotCount {
            let depth = i < notches.slotCount ? notches.depths[i] : 0
            let frequency = notches.frequencies[min(i, notches.slotCount - 1)]
            notchBits[i].store(UInt64(frequency.bitPattern) << 32 | UInt64(depth.bitPattern), ordering: .relaxed)
        }
        reductionBits.store(reductionDB.bitPattern, ordering: .relaxed)
        publishedTime.store(now, ordering: .relaxed)
    }

    /// What the guard is doing now.
    /// - Realtime: unsafe (builds an array). Control thread.
    public func status() -> HowlGuardStatus {
        var list: [HowlGuardStatus.Notch] = []
        for i in 0..<slotCount {
            let bits = notchBits[i].load(ordering: .relaxed)
            let depth = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
            if depth > 0 {
                list.append(.init(frequency: Float(bitPattern: UInt32(truncatingIfNeeded: bits >> 32)), depthDB: depth))
            }
        }
        list.sort { $0.frequency < $1.frequency }
        let rate = Double(bitPattern: rateBits.load(ordering: .relaxed))
        let reduction = Float(bitPattern: reductionBits.load(ordering: .relaxed))
        let recent = Double(publishedTime.load(ordering: .relaxed) - lastDetection.load(ordering: .relaxed)) < HowlGuardNode.warningSeconds * rate
        let first = firstDetection.load(ordering: .relaxed)
        return HowlGuardStatus(enabled: isEnabled, feedbackWarning: isEnabled && (recent || reduction > 0), notches: list,
                               gainReductionDB: reduction, detectionCount: detectionCounter.load(ordering: .relaxed),
                               firstDetectionFrame: first >= 0 ? first : nil)
    }
}
