import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A noise gate for the voice: quiet passages (hiss, room tone, the band
/// behind the busker) are turned down to a floor, the voice passes at unity.
/// As many channels out as in, channels linked.
///
/// - Sidechain: a peak envelope follower on the largest |sample| over the
///   channels, instant attack, `detectorReleaseMilliseconds` (30 ms) fall; its
///   ripple on a 100 Hz voice is under 1.5 dB, well inside the hysteresis.
/// - States (a small machine, per sample): *closed* → *open* when the envelope
///   reaches the threshold; *open* → *holding* when it falls below the threshold
///   minus `hysteresisDB` (6 dB); *holding* goes back to *open* if the level comes
///   back above that close level, or to *closed* after `holdMilliseconds` (50 ms).
///   The gap between the open and close levels, and the hold, are what keep a
///   decaying note or a level hovering at the threshold from chattering.
/// - Gain: moves in dB, linearly (even-sounding fades): up from the floor to
///   0 dB in `attackMilliseconds` (1 ms) when the gate opens, down to the floor
///   in `releaseMilliseconds` (150 ms) when it closes.
/// - Off (`isOn` false): the gain rises to 0 dB like an opening and then the
///   node copies its input: switching is a parameter change, it never clicks,
///   and a switched-off gate costs a copy.
///
/// Everything is per sample, so the output does not depend on the block size.
public final class NoiseGateNode: AudioNode {
    public static let thresholdRange: ClosedRange<Float> = -80...0
    public static let floorRange: ClosedRange<Float> = -90...0
    public static var detectorReleaseMilliseconds: Double { 30 }

    /// The sidechain state, as published for tests and the screen.
    public enum GateState: Int, Sendable { case closed = 0, open = 1, holding = 2 }

    // MARK: Shared (atomics)
    /// The level (dBFS peak envelope) at which the gate opens.
    public let thresholdDB: Parameter
    /// Where a closed gate sits: the most it turns a signal down, in dB.
    public let floorDB: Parameter
    private let switchedOn: Atomic<Bool>
    private let stateRaw = Atomic<Int>(GateState.open.rawValue)
    private let transitions = Atomic<Int>(0)

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    public let hysteresisDB: Float
    public let attackMilliseconds: Float
    public let holdMilliseconds: Float
    public let releaseMilliseconds: Float
    private let thresholdRef: Unmanaged<Parameter>
    private let floorRef: Unmanaged<Parameter>
    private var detectorFall: Float = 0
    private var holdFrames = 0
    /// dB per sample the gain moves up (opening) and per dB of depth down (closing).
    private var attackStepPerDB: Float = 1
    private var releaseStepPerDB: Float = 1
    /// One block's gains between the passes of `render`.
    private var scratch = GroupScratch()

    // MARK: Audio thread only
    private var envelope: Float = 0
    private var state = GateState.open
    private var holdRemaining = 0
    /// The gain now, in dB (0 = unity, `floor` = closed).
    private var gainDB: Float = 0
    private var transitionCount = 0

    /// - Parameters:
    ///   - thresholdDB: the opening level in dBFS (peak envelope).
    ///   - floorDB: the gain of a closed gate.
    ///   - hysteresisDB: how far below the threshold the level must fall before the gate closes.
    ///   - isOn: whether the gate works (off: a plain copy).
    public init(name: String = "noise gate", thresholdDB: Float = -50, floorDB: Float = -40, hysteresisDB: Float = 6,
                attackMilliseconds: Float = 1, holdMilliseconds: Float = 50, releaseMilliseconds: Float = 150,
                isOn: Bool = true) {
        precondition(hysteresisDB >= 0 && attackMilliseconds > 0 && holdMilliseconds >= 0 && releaseMilliseconds > 0)
        self.thresholdDB = Parameter(name: "gate threshold", unit: "dB", range: Self.thresholdRange,
                                     default: min(max(thresholdDB, Self.thresholdRange.lowerBound), Self.thresholdRange.upperBound))
        self.floorDB = Parameter(name: "gate floor", unit: "dB", range: Self.floorRange,
                                 default: min(max(floorDB, Self.floorRange.lowerBound), Self.floorRange.upperBound))
        thresholdRef = .passUnretained(self.thresholdDB)
        floorRef = .passUnretained(self.floorDB)
        self.hysteresisDB = hysteresisDB
        self.attackMilliseconds = attackMilliseconds
        self.holdMilliseconds = holdMilliseconds
        self.releaseMilliseconds = releaseMilliseconds
        switchedOn = Atomic(isOn)
        super.init(name: name)
    }

    deinit { scratch.deallocate() }

    /// Whether the gate works; off, it passes its input unchanged (after a 1 ms fade up).
    /// - Thread: any
    /// - Realtime: safe (an atomic load or store)
    public var isOn: Bool {
        get { switchedOn.load(ordering: .relaxed) }
        set { switchedOn.store(newValue, ordering: .relaxed) }
    }

    /// The gate's state at the end of the last block.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var gateState: GateState { GateState(rawValue: stateRaw.load(ordering: .relaxed)) ?? .open }

    /// How many times the gate has opened or closed (holding does not count) since `reset`.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var stateChangeCount: Int { transitions.load(ordering: .relaxed) }

    /// - Realtime: unsafe. Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        let rate = spec.sampleRate
        detectorFall = Float(exp(-1 / (Self.detectorReleaseMilliseconds / 1000 * rate)))
        holdFrames = Int((Double(holdMilliseconds) / 1000 * rate).rounded())
        // A full-depth move takes the stated time whatever the floor: the step is per dB of depth.
        attackStepPerDB = Float(1 / max(1, Double(attackMilliseconds) / 1000 * rate))
        releaseStepPerDB = Float(1 / max(1, Double(releaseMilliseconds) / 1000 * rate))
        scratch.resize(forBlocksOf: spec.maximumBlockSize)
    }

    // MARK: Audio thread

    /// Opens the gate at unity with an empty sidechain.
    /// - Thread: audio, control
    /// - Realtime: safe. Writes plain state and atomics.
    @_noLocks
    public override func reset() {
        envelope = 0
        state = .open
        holdRemaining = 0
        gainDB = 0
        transitionCount = 0
        transitions.store(0, ordering: .relaxed)
        stateRaw.store(GateState.open.rawValue, ordering: .relaxed)
    }

    /// Gates input bus 0 into `output`.
    /// - Thread: audio
    /// - Realtime: safe. Two atomic loads, arithmetic on plain state and the
    ///   preallocated scratch (`fastExp2`); checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let lastInput = input.channelCount - 1
        let on = switchedOn.load(ordering: .relaxed)
        let atUnity = gainDB == 0  // a local: `&&` takes an autoclosure, which would retain self
        if !on && atUnity {
            // Off and at unity: a copy. The sidechain starts afresh when switched on.
            copyLinkedChannels(input, to: output, frames: frames)
            envelope = 0
            if state != .open { state = .open; holdRemaining = 0 }
            return
        }
        let thresholdNow = readParameter(thresholdRef), closeOffset = -hysteresisDB
        let openLevel = _unsafePerformance { decibelsToGain(thresholdNow) }  // powf: arithmetic only
        let closeLevel = openLevel * _unsafePerformance { decibelsToGain(closeOffset) }
        let floor = readParameter(floorRef)
        // Steps sized so a full glide takes the attack (release) time; at least
        // 1 dB's worth, so a floor moved to 0 dB still lets the gain move back.
        let depth = max(-floor, 1)
        let attackStep = depth * attackStepPerDB
        let releaseStep = depth * releaseStepPerDB
        let fall = detectorFall
        let channels = output.channelCount
        var env = envelope, gate = state, hold = holdRemaining, db = gainDB, changes = transitionCount
        // In two passes: the sidechain and the gain in dB a sample at a time, then the
        // gains (`fastExp2`) four frames per operation and applied. The same operations
        // for every frame wherever a block starts: block-size invariant.
        let work = scratch.values, capacity = scratch.capacity
        let in0 = input.channels[0]
        let mono = lastInput == 0 && channels == 1
        var done = 0
        while done < frames {
            let n = min(frames - done, capacity)
            var unity = true  // every gain of the stretch 0 dB: the open gate's usual case
            for i in 0..<n {
                // The sidechain: the loudest channel, instant attack, exponential fall.
                var peak: Float = 0
                if mono {
                    peak = abs(in0[done + i])
                } else {
                    for c in 0...lastInput { peak = max(peak, abs(input.channels[c][done + i])) }
                }
                env = max(peak, env * fall)
                if on {
                    switch gate {
                    case .closed:
                        if env >= openLevel { gate = .open; changes &+= 1 }
                    case .open:
                        if env < closeLevel { gate = .holding; hold = holdFrames }
                    case .holding:
                        if env >= closeLevel {
                            gate = .open
                        } else if hold <= 0 {
                            gate = .closed; changes &+= 1
                        } else {
                            hold -= 1
                        }
                    }
                } else {
                    gate = .open
                }
                // The gain glides in dB toward 0 (open, holding, off) or the floor (closed).
                if gate == .closed {
                    db = db > floor ? max(floor, db - releaseStep) : min(floor, db + attackStep)
                } else {
                    db = min(0, db + attackStep)
                }
                work[i] = db
                if db != 0 { unity = false }
            }
            if unity {
                for c in 0..<channels {
                    let source = input.channels[min(c, lastInput)] + done, destination = output.channels[c] + done
                    for i in 0..<n { destination[i] = source[i] }
                }
                done += n
                continue
            }
            // The gains, exactly 1 at 0 dB; the last group of four is padded from the scratch's spare lanes.
            applyDecibelGains(work, count: n, from: input, to: output, channels: channels, offset: done)
            done += n
        }
        envelope = env
        state = gate
        holdRemaining = hold
        gainDB = db
        if changes != transitionCount {
            transitionCount = changes
            transitions.store(changes, ordering: .relaxed)
        }
        stateRaw.store(gate.rawValue, ordering: .relaxed)
    }

    /// A parameter's current value.
    /// - Thread: audio
    /// - Realtime: safe. A relaxed atomic load through an unretained reference.
    @_noLocks @inline(__always)
    private func readParameter(_ p: Unmanaged<Parameter>) -> Float {
        _unsafePerformance { p._withUnsafeGuaranteedRef { $0.value } }
    }
}
