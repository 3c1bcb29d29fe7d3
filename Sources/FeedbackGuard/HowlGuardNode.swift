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
/// When the notches can do no more, a last-resort gain reduction steps the
/// whole signal down: an `EmergencyGainPolicy` (tunables in
/// `EmergencyGainCriteria`) decides each hop, from the hop's level and peak
/// and what the notches did, whether the gain steps, how far it comes back,
/// and the floor under it; the node applies the gain smoothly over the next hop.
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
    /// The notches move (deepen, release) once per this many samples, a fraction of the analysis hop,
    /// so a notch reaches its first depth within 21 ms at 48 kHz: half the hop, in steps small enough
    /// not to click.
    public static var notchStepSamples: Int { 256 }

    public let criteria: HowlCriteria
    /// The emergency gain's tunables.
    public let emergencyCriteria: EmergencyGainCriteria
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
    /// The emergency gain's state and rules (replaced by `allocate` for the rate, like the detector).
    private var emergency: EmergencyGainPolicy
    /// How much of this hop's mono mix `mono` holds.
    private var hopFill = 0
    /// The largest sample of this hop on any channel (after the notches, before the gain).
    private var hopPeak: Float = 0
    private var gain: Float = 1
    private var gainStep: Float = 0
    /// Samples since the notches last moved, and how many make a step (`notchStepSamples`, at most the hop).
    private var sinceNotchStep = 0
    private let notchStep: Int
    /// The mono mix of this hop so far (`hopFill` of `hopSize` samples), pushed to the detector stretch by stretch.
    private let mono: UnsafeMutablePointer<Float>

    /// - Parameters:
    ///   - criteria: the detector's thresholds.
    ///   - emergencyCriteria: the emergency gain's tunables.
    ///   - slotCount: notches available (at least 8).
    /// - Thread: control.
    /// - Realtime: unsafe (allocates).
    public init(name: String = "howl guard", criteria: HowlCriteria = HowlCriteria(),
                emergencyCriteria: EmergencyGainCriteria = EmergencyGainCriteria(), slotCount: Int = NotchBank.defaultSlotCount) {
        self.criteria = criteria
        self.emergencyCriteria = emergencyCriteria
        self.slotCount = max(1, slotCount)
        notchBits = .allocate(capacity: self.slotCount)
        for i in 0..<self.slotCount { (notchBits + i).initialize(to: Atomic(0)) }
        notchStep = max(1, min(HowlGuardNode.notchStepSamples, criteria.hopSize))
        mono = .allocate(capacity: max(1, criteria.hopSize))
        mono.initialize(repeating: 0, count: max(1, criteria.hopSize))
        detector = HowlDetector(sampleRate: 48_000, criteria: criteria)
        notches = NotchBank(slotCount: self.slotCount, channelCount: 2, sampleRate: 48_000)
        emergency = EmergencyGainPolicy(criteria: emergencyCriteria, sampleRate: 48_000, hopSize: criteria.hopSize)
        super.init(name: name)
    }

    deinit {
        notchBits.deinitialize(count: slotCount)
        notchBits.deallocate()
        mono.deallocate()
    }

    // MARK: Any thread

    /// On (the default) or bypassed. Switched off, the notches and the emergency gain release within
    /// about 50 ms before the input passes untouched; switched back on after that, the guard starts clean.
    /// - Thread: any.
    /// - Realtime: safe (an atomic).
    public var isEnabled: Bool {
        get { enabledFlag.load(ordering: .relaxed) }
        set { enabledFlag.store(newValue, ordering: .relaxed) }
    }

    /// Whether the last-resort gain reduction may act (the ASG benchmark
    /// measures the notches alone with it off).
    /// - Thread: any.
    /// - Realtime: safe (an atomic).
    public var emergencyGainEnabled: Bool {
        get { emergencyFlag.load(ordering: .relaxed) }
        set { emergencyFlag.store(newValue, ordering: .relaxed) }
    }

    // MARK: Control thread

    /// Makes the detector, the notch bank and the emergency gain policy for `spec`'s rate.
    /// - Thread: control (`prepare`, while no running plan holds the node).
    /// - Realtime: unsafe (allocates).
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        detector = HowlDetector(sampleRate: spec.sampleRate, criteria: criteria)
        let bank = NotchBank(slotCount: slotCount, channelCount: max(1, outputChannelCount), sampleRate: spec.sampleRate)
        bank.q = notchQ
        bank.maximumDepthDB = maximumNotchDepthDB
        notches = bank
        emergency = EmergencyGainPolicy(criteria: emergencyCriteria, sampleRate: spec.sampleRate, hopSize: criteria.hopSize)
        rateBits.store(spec.sampleRate.bitPattern, ordering: .relaxed)
        // Run the audio thread's code once here, on a frame of silence: the first call of a
        // libm function resolves its symbol and touches cold pages, which should not happen
        // inside a real-time block.
        for _ in 0..<criteria.hopSize { detector.push(0) }
        _ = detector.analyzeIfDue()
        detector.reset()
        _ = powf(10, -1) + log10f(2)
    }

    /// What the guard is doing now.
    /// - Thread: control.
    /// - Realtime: unsafe (builds an array).
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

    // MARK: Audio thread

    /// Forgets every howl and notch and lifts the emergency gain.
    /// - Thread: audio (and control, in `prepare`, before the node renders).
    /// - Realtime: safe.
    public override func reset() {
        detector.reset()
        notches.reset()
        now = 0
        emergency.reset()
        hopFill = 0
        hopPeak = 0
        gain = 1
        gainStep = 0
        sinceNotchStep = 0
        firstDetection.store(-1, ordering: .relaxed)
        lastDetection.store(Int.min / 2, ordering: .relaxed)
        publish()
    }

    /// Copies input bus 0 to `output`, notches it, watches it and applies the emergency gain.
    /// - Thread: audio.
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
        } else if !bypassed && !enabled && gain == 1 && gainStep == 0 && emergency.reductionDB == 0 && notches.activeCount == 0 {
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

    /// Acts on the detector's findings: places or deepens the notches, asks the emergency
    /// gain policy about this hop, sets the gain's ramp and publishes the state. Once per hop.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func respond() {
        if !enabledFlag.load(ordering: .relaxed) {
            // Switched off: release every notch and lift the gain within a few hops, then `render` bypasses.
            hopFill = 0
            hopPeak = 0
            notches.releaseAll()
            _ = emergency.switchedOff()
            rampGain()
            publish()
            return
        }
        // The whole hop at once: the same sum whatever the block size.
        let energy = sumOfSquares(mono, count: hopFill)
        let levelDB = 10 * log10f(energy / Float(criteria.hopSize) + 1e-20)
        let peakDB = 20 * log10f(hopPeak + 1e-20)
        hopFill = 0
        hopPeak = 0
        var placed = 0
        var exhausted = false
        for d in 0..<detector.detectionCount {
            switch notches.notch(frequency: detector.detections[d].frequency, at: now) {
            case .exhausted: exhausted = true
            case .placed: placed += 1
            case .deepened: break
            }
            detectionCounter.add(1, ordering: .relaxed)
            if firstDetection.load(ordering: .relaxed) < 0 { firstDetection.store(now, ordering: .relaxed) }
            lastDetection.store(now, ordering: .relaxed)
        }
        let tonal = emergency.needsTonalFraction(levelDB: levelDB, peakDB: peakDB) ? detector.tonalFraction() : 0
        _ = emergency.update(EmergencyGainPolicy.Hop(
            now: now, levelDB: levelDB, peakDB: peakDB, detected: detector.detectionCount > 0, notchesPlaced: placed,
            notchesExhausted: exhausted, tonalFraction: tonal, mayStep: emergencyFlag.load(ordering: .relaxed)))
        rampGain()
        publish()
    }

    /// |x| for four samples from `p` (the sign bit cleared).
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private static func magnitudes(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt32>.self)
        return unsafeBitCast(v & SIMD4(repeating: 0x7fff_ffff), to: SIMD4<Float>.self)
    }

    /// The larger of `a` and `b` per lane (a select: `pointwiseMax` is a generic call).
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private static func larger(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        a.replacing(with: b, where: b .> a)
    }

    /// Sets the gain to ramp, sample by sample over the next hop, to the one the policy's reduction asks for.
    /// - Thread: audio.
    /// - Realtime: safe.
    private func rampGain() {
        let reductionDB = emergency.reductionDB
        let target: Float = reductionDB > 0 ? powf(10, -reductionDB / 20) : 1
        gainStep = (target - gain) / Float(criteria.hopSize)
        if abs(target - gain) < 1e-5 { gain = target; gainStep = 0 }  // −100 dB: lands exactly despite rounding in the ramp
    }

    /// Stores the notch bank's state and the gain reduction for `status()`.
    /// - Thread: audio.
    /// - Realtime: safe (relaxed atomic stores).
    private func publish() {
        for i in 0..<slotCount {
            let depth = i < notches.slotCount ? notches.depths[i] : 0
            let frequency = notches.frequencies[min(i, notches.slotCount - 1)]
            notchBits[i].store(UInt64(frequency.bitPattern) << 32 | UInt64(depth.bitPattern), ordering: .relaxed)
        }
        reductionBits.store(emergency.reductionDB.bitPattern, ordering: .relaxed)
        publishedTime.store(now, ordering: .relaxed)
    }
}
