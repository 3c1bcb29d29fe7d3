import DSP
import Engine

/// A bank of narrow notch filters for the howl guard, one slot per howl
/// frequency: each slot is an RBJ cookbook peaking biquad with negative
/// gain (a notch of finite, adjustable depth), on every channel.
///
/// Depth moves towards its target by at most `depthStepDB` per update (the
/// guard updates every `HowlGuardNode.notchStepSamples`), so a notch opens or
/// closes in steps too small to click. A slot whose howl has not come back for
/// `holdSeconds` lets its depth fall by `releaseDBPerSecond`, and is free again
/// at 0 dB. When every slot is taken, a new howl does not tear a live notch
/// out (a step in the output, and its old howl back at once): the shallowest
/// slot is released at `depthStepDB` per update and reused once it reaches
/// 0 dB; meanwhile the bank says `.exhausted` so the guard's emergency gain covers.
///
/// - Thread: `init` and the tuning (`q`, depths, times) on the control thread, before the bank
///   is handed to the audio thread; everything else on the audio thread.
/// - Realtime: `init` allocates; everything else is safe.
public final class NotchBank {
    public static var defaultSlotCount: Int { 12 }

    public let slotCount: Int
    public let channelCount: Int
    public let sampleRate: Double
    /// Bandwidth of every notch, as a Q (centre frequency / bandwidth).
    public var q: Double = 8
    /// The deepest a notch goes, in dB.
    public var maximumDepthDB: Float = 30
    /// Depth of a new notch, and how much deeper each further detection makes it.
    public var initialDepthDB: Float = 12
    public var deepenStepDB: Float = 6
    /// How far the applied depth moves per update.
    public var depthStepDB: Float = 3
    public var holdSeconds: Double = 10
    public var releaseDBPerSecond: Float = 1

    // MARK: Audio thread only
    public let frequencies: UnsafeMutablePointer<Float>
    /// Depth in dB as applied now (≥ 0; 0 = slot free).
    public let depths: UnsafeMutablePointer<Float>
    private let targets: UnsafeMutablePointer<Float>
    /// Sample time of the slot's last detection.
    private let lastHit: UnsafeMutablePointer<Int>
    private let filters: UnsafeMutablePointer<Biquad>
    /// `slotCount × channelCount` filter states.
    private let states: UnsafeMutablePointer<BiquadState>

    /// - Thread: control.
    /// - Realtime: unsafe (allocates).
    public init(slotCount: Int = NotchBank.defaultSlotCount, channelCount: Int, sampleRate: Double) {
        self.slotCount = max(1, slotCount)
        self.channelCount = max(1, channelCount)
        self.sampleRate = sampleRate
        let s = self.slotCount
        frequencies = .allocate(capacity: s)
        frequencies.initialize(repeating: 1000, count: s)
        depths = .allocate(capacity: s)
        depths.initialize(repeating: 0, count: s)
        targets = .allocate(capacity: s)
        targets.initialize(repeating: 0, count: s)
        lastHit = .allocate(capacity: s)
        lastHit.initialize(repeating: 0, count: s)
        filters = .allocate(capacity: s)
        filters.initialize(repeating: Biquad(), count: s)
        states = .allocate(capacity: s * self.channelCount)
        states.initialize(repeating: BiquadState(), count: s * self.channelCount)
    }

    deinit {
        frequencies.deallocate()
        depths.deallocate()
        targets.deallocate()
        lastHit.deallocate()
        filters.deallocate()
        states.deallocate()
    }

    /// What `notch(frequency:at:)` did.
    public enum Action: Equatable, Sendable {
        /// A free (or the weakest) slot now notches the frequency.
        case placed(slot: Int)
        /// The slot already there goes deeper.
        case deepened(slot: Int)
        /// The slot there is already at full depth, or every slot is taken (the
        /// shallowest, `slot`, is being released for later use): the notches cannot do more now.
        case exhausted(slot: Int)
    }

    // MARK: Audio thread

    /// Frees every slot and clears the filters.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func reset() {
        for i in 0..<slotCount {
            depths[i] = 0
            targets[i] = 0
            lastHit[i] = 0
            filters[i] = Biquad()
        }
        for i in 0..<slotCount * channelCount { states[i] = BiquadState() }
    }

    /// Lets every notch go: each depth falls `depthStepDB` per update to 0 dB (the guard switched off).
    /// - Thread: audio.
    /// - Realtime: safe.
    public func releaseAll() {
        for i in 0..<slotCount { targets[i] = 0 }
    }

    /// Slots in use (depth or target above 0).
    /// - Thread: audio.
    /// - Realtime: safe.
    public var activeCount: Int {
        var n = 0
        for i in 0..<slotCount where depths[i] > 0 || targets[i] > 0 { n += 1 }
        return n
    }

    /// Notches `frequency` at sample time `now`: deepens the slot already
    /// within half a notch bandwidth of it, or takes a free slot; when all are
    /// taken, starts releasing the shallowest one and says `.exhausted`.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func notch(frequency: Float, at now: Int) -> Action {
        var nearest = -1
        var nearestDistance = Float.infinity
        for i in 0..<slotCount where depths[i] > 0 || targets[i] > 0 {
            let distance = abs(frequencies[i] - frequency)
            if distance < nearestDistance { nearest = i; nearestDistance = distance }
        }
        // Half the bandwidth, but at least 12 Hz: a howl next to a notch shifts a little as the notch changes the loop's phase.
        let tolerance = max(Float(12), frequency / Float(2 * q))
        if nearest >= 0 && nearestDistance <= tolerance {
            lastHit[nearest] = now
            if targets[nearest] >= maximumDepthDB { return .exhausted(slot: nearest) }
            targets[nearest] = min(maximumDepthDB, max(targets[nearest], depths[nearest]) + deepenStepDB)
            return .deepened(slot: nearest)
        }
        var slot = -1
        for i in 0..<slotCount where depths[i] == 0 && targets[i] == 0 { slot = i; break }
        if slot < 0 {
            // Every slot is busy: release the shallowest smoothly (one already releasing has target 0,
            // so it stays the one chosen) and let the emergency gain cover until it is free.
            var shallowest = Float.infinity
            for i in 0..<slotCount where targets[i] < shallowest || (targets[i] == shallowest && depths[i] < depths[slot]) {
                slot = i; shallowest = targets[i]
            }
            targets[slot] = 0
            return .exhausted(slot: slot)
        }
        frequencies[slot] = frequency
        // A new notch starts from 0 dB applied and steps down to its target; fresh state.
        depths[slot] = 0
        targets[slot] = initialDepthDB
        lastHit[slot] = now
        for c in 0..<channelCount { states[slot * channelCount + c] = BiquadState() }
        filters[slot] = Biquad()
        return .placed(slot: slot)
    }

    /// Moves every applied depth a step towards its target, releases slots
    /// whose howl has been gone for `holdSeconds`, and recomputes the
    /// coefficients of the slots that changed. The guard calls it every `HowlGuardNode.notchStepSamples`.
    /// - Thread: audio.
    /// - Realtime: safe. Arithmetic and libm only.
    public func update(now: Int, elapsedSamples: Int) {
        let hold = Int(holdSeconds * sampleRate)
        let release = releaseDBPerSecond * Float(Double(elapsedSamples) / sampleRate)
        for i in 0..<slotCount {
            if targets[i] > 0 && now - lastHit[i] > hold {
                targets[i] = max(0, targets[i] - release)
            }
            let before = depths[i]
            if depths[i] < targets[i] {
                depths[i] = min(targets[i], depths[i] + depthStepDB)
            } else if depths[i] > targets[i] {
                depths[i] = max(targets[i], depths[i] - depthStepDB)
            }
            if depths[i] != before {
                filters[i].coefficients = depths[i] > 0
                    ? BiquadCoefficients.make(kind: .peaking, sampleRate: sampleRate, frequency: Double(frequencies[i]),
                                              gainDB: -Double(depths[i]), q: q)
                    : .identity
            }
        }
    }

    /// Filters `count` samples of each channel in place, starting at `offset`.
    /// - Thread: audio.
    /// - Realtime: safe.
    public func process(_ block: AudioBlock, offset: Int, count: Int) {
        let channels = min(block.channelCount, channelCount)
        for i in 0..<slotCount where depths[i] > 0 {
            let filter = filters[i]
            if channels == 2 {
                filter.process(UnsafePointer(block.channels[0] + offset), UnsafePointer(block.channels[1] + offset),
                               block.channels[0] + offset, block.channels[1] + offset, count: count,
                               state0: &states[i * channelCount], state1: &states[i * channelCount + 1])
            } else {
                for c in 0..<channels {
                    filter.process(block.channels[c] + offset, count: count, state: &states[i * channelCount + c])
                }
            }
            // A state that overflowed (or met a non-finite sample) would poison every later sample: start it afresh.
            for c in 0..<channels where !(states[i * channelCount + c].z1.isFinite && states[i * channelCount + c].z2.isFinite) {
                states[i * channelCount + c] = BiquadState()
            }
        }
    }
}
