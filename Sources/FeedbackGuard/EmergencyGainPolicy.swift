/// The howl guard's last resort, decided hop by hop: when the whole signal steps down, how far
/// the gain may come back, and the floor under it. The guard measures each analysis hop, places
/// the notches the detector asks for, and tells the policy what it saw (`Hop`); the policy keeps
/// the state and answers with a `Decision`, which the guard applies as a smooth gain. The policy
/// touches no audio: it is arithmetic on a few numbers per hop, table-tested on its own
/// (`EmergencyGainPolicyTests`). Its tunables are `EmergencyGainCriteria`.
///
/// A step is asked for (`Triggers`) when
/// - the notches are exhausted: the detector found a howl where the notch is at full depth, or
///   every slot is taken;
/// - a burst of new notches: `notchBurst` placed within `notchBurstSeconds`;
/// - the level climbs `climbDB` over the bout's reference (the loudest hop the detector found a
///   howl in), above `climbFloorDB`;
/// - while the gain recovers, the level returns `returnDB` over the quietest hop since the last
///   step, above `climbFloorDB`;
/// - no relief: `checkSeconds` after the detector found a howl over `climbFloorDB`, the level
///   has not fallen `reliefDB` below where it was then;
/// - pinned: every hop for `pinnedSeconds` louder than `loudDB`, or peaking over `pinnedPeakDB`
///   with a tonal spectrum, allowing `pinnedGapHops` hops in a row off the ceiling.
///
/// The level is measured before the gain, where a voice after a caught howl sits too and the gain
/// cannot turn it down. So, in a hop not louder than `loudDB`, the climb and return tests count
/// only within `evidenceSeconds` of a detection, and every level test (climb, return, no relief)
/// needs the level `riseDB` over the hop at the previous step. Only a step from exhausted notches,
/// a burst, a pinned stretch or in a hop louder than `loudDB` sets the floor (`marginDB` under the
/// gain that howled): a quieter step from a level test may be a voice, and recovers fully.
///
/// At most one step per `intervalSeconds`, by `stepDB`, to `maximumReductionDB`. After
/// `holdSeconds` without a step the gain comes back at `releaseDBPerSecond`, down to the floor;
/// after `floorHoldSeconds` the floor itself fades at `floorReleaseDBPerSecond`.
///
/// - Thread: made on the control thread; `update`, `switchedOff`, `reset` and `needsTonalFraction`
///   run on the audio thread.
/// - Realtime: safe. A plain value: no allocation, no locks, no references.
public struct EmergencyGainPolicy: Sendable {
    /// What the guard saw in one analysis hop.
    public struct Hop: Sendable, Equatable {
        /// Sample time at the end of the hop.
        public var now: Int
        /// The hop's level: RMS of its mono mix, after the notches and before the gain (dBFS).
        public var levelDB: Float
        /// The hop's largest sample on any channel, after the notches and before the gain (dBFS).
        public var peakDB: Float
        /// The detector reported at least one howl in this hop.
        public var detected: Bool
        /// New notches placed for this hop's howls (`NotchBank.Action.placed`).
        public var notchesPlaced: Int
        /// A howl of this hop found the notches exhausted (`NotchBank.Action.exhausted`: the notch there
        /// at full depth, or every slot taken).
        public var notchesExhausted: Bool
        /// The spectrum's tonal share (`HowlDetector.tonalFraction()`); read only when
        /// `needsTonalFraction` says so, 0 otherwise.
        public var tonalFraction: Float
        /// The emergency gain may act (`HowlGuardNode.emergencyGainEnabled`). When it may not, the
        /// tests still run and their state moves, but nothing steps.
        public var mayStep: Bool

        /// - Thread: any (the guard makes one per hop on the audio thread).
        /// - Realtime: safe.
        public init(now: Int, levelDB: Float, peakDB: Float, detected: Bool = false, notchesPlaced: Int = 0,
                    notchesExhausted: Bool = false, tonalFraction: Float = 0, mayStep: Bool = true) {
            self.now = now
            self.levelDB = levelDB
            self.peakDB = peakDB
            self.detected = detected
            self.notchesPlaced = notchesPlaced
            self.notchesExhausted = notchesExhausted
            self.tonalFraction = tonalFraction
            self.mayStep = mayStep
        }
    }

    /// The rules that asked for a step in a hop. (Computed, not stored, statics: a `static let` is
    /// initialised on first use, behind a lock, which the audio thread must not meet.)
    public struct Triggers: OptionSet, Sendable {
        public let rawValue: UInt8
        /// - Thread: any.
        /// - Realtime: safe.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The notches could do no more for a howl the detector found.
        public static var exhaustedNotches: Triggers { Triggers(rawValue: 1 << 0) }
        /// `notchBurst` new notches within `notchBurstSeconds`.
        public static var notchBurst: Triggers { Triggers(rawValue: 1 << 1) }
        /// The level climbed `climbDB` over the bout's reference.
        public static var climb: Triggers { Triggers(rawValue: 1 << 2) }
        /// While the gain recovers, the level rose `returnDB` over the quietest hop since the last step.
        public static var returning: Triggers { Triggers(rawValue: 1 << 3) }
        /// The level did not fall `reliefDB` within `checkSeconds` of a loud detection.
        public static var noRelief: Triggers { Triggers(rawValue: 1 << 4) }
        /// Pinned at the ceiling for `pinnedSeconds`.
        public static var pinned: Triggers { Triggers(rawValue: 1 << 5) }
        /// The rules whose step sets the floor wherever the level is: the detector backs them (a howl
        /// the notches could not take) or the ceiling does. A step from a level test sets it only in a
        /// hop louder than `loudDB`.
        public static var floorSetting: Triggers { Triggers(rawValue: exhaustedNotches.rawValue | notchBurst.rawValue | pinned.rawValue) }
    }

    /// What the policy decided for a hop.
    public struct Decision: Sendable, Equatable {
        /// The rules that asked for a step (a step may still wait for `intervalSeconds`, or not be allowed).
        public var triggers: Triggers
        /// The gain stepped down in this hop.
        public var stepped: Bool
        /// The reduction to apply now, in dB (0: none).
        public var reductionDB: Float
        /// The least reduction the gain recovers to, in dB.
        public var floorDB: Float
    }

    /// The most placements the burst rule remembers (`EmergencyGainCriteria.notchBurst` at most).
    public static var maximumNotchBurst: Int { 16 }

    public let criteria: EmergencyGainCriteria
    public let sampleRate: Double
    /// Samples per hop (`HowlCriteria.hopSize`): how long each hop's recovery lasts.
    public let hopSize: Int

    /// The reduction now, in dB (0: none).
    public private(set) var reductionDB: Float = 0
    /// The least reduction the gain recovers to (the last howling gain plus the margin).
    public private(set) var floorDB: Float = 0
    /// When the gain last stepped.
    private var lastStep = Int.min / 2
    /// The level (dB) of the loudest hop in which the current bout of feedback was found.
    private var boutLevelDB: Float = 0
    /// When the detector last reported.
    private var lastFound = Int.min / 2
    /// When to check that a loud howl's notch brought the level down (Int.max: nothing pending), and the level then.
    private var checkAt = Int.max
    private var checkLevelDB: Float = 0
    /// The quietest hop since the last step: a howl coming back as the gain recovers rises far above it.
    private var recoveryMinimumDB: Float = 0
    /// The level at the last step (−∞ when the gain is back at 0 dB): a step from a level test
    /// needs the level to have risen `riseDB` above it.
    private var stepLevelDB: Float = -Float.infinity
    /// Since when every hop has been pinned (Int.max: the last one was not, beyond the gaps allowed).
    private var pinnedSince = Int.max
    /// Hops in a row off the ceiling within the current pinned stretch.
    private var pinnedGaps = 0
    /// When the last `notchBurst` notches were placed (a ring; `burstNext` is the oldest).
    private var burstTimes = InlineArray<16, Int>(repeating: Int.min / 2)
    private var burstNext = 0

    /// - Thread: control (the guard's `init` and `allocate`).
    /// - Realtime: safe.
    public init(criteria: EmergencyGainCriteria = EmergencyGainCriteria(), sampleRate: Double, hopSize: Int) {
        precondition(criteria.notchBurst >= 1 && criteria.notchBurst <= EmergencyGainPolicy.maximumNotchBurst,
                     "notchBurst must be 1…\(EmergencyGainPolicy.maximumNotchBurst)")
        self.criteria = criteria
        self.sampleRate = sampleRate
        self.hopSize = hopSize
    }

    // MARK: Audio thread

    /// Lifts the gain and forgets every howl.
    /// - Thread: audio (or control before rendering).
    /// - Realtime: safe (checked by the compiler with `@_noLocks`).
    @_noLocks
    public mutating func reset() {
        reductionDB = 0
        floorDB = 0
        lastStep = Int.min / 2
        boutLevelDB = 0
        lastFound = Int.min / 2
        checkAt = Int.max
        checkLevelDB = 0
        recoveryMinimumDB = 0
        stepLevelDB = -Float.infinity
        pinnedSince = Int.max
        pinnedGaps = 0
        forgetBurst()
    }

    /// Whether `update` will read the hop's `tonalFraction` (a pass over the spectrum the guard
    /// makes only then): the hop is not louder than `loudDB` and peaks over `pinnedPeakDB`.
    /// - Thread: audio.
    /// - Realtime: safe (checked by the compiler with `@_noLocks`).
    @_noLocks @inline(__always)
    public func needsTonalFraction(levelDB: Float, peakDB: Float) -> Bool {
        !(levelDB > criteria.loudDB) && peakDB > criteria.pinnedPeakDB
    }

    /// The guard is switched off: the floor goes and the gain releases at
    /// `switchOffReleaseDBPerSecond`, one hop's worth per call. Returns the reduction now.
    /// - Thread: audio.
    /// - Realtime: safe (checked by the compiler with `@_noLocks`).
    @_noLocks @inline(__always)
    public mutating func switchedOff() -> Float {
        let seconds = Float(Double(hopSize) / sampleRate)
        floorDB = 0
        reductionDB = max(0, reductionDB - criteria.switchOffReleaseDBPerSecond * seconds)
        return reductionDB
    }

    /// Takes one hop's observations and decides whether the gain steps, and where it recovers to.
    /// - Thread: audio.
    /// - Realtime: safe. Arithmetic on the policy's own fields; checked by the compiler with `@_noLocks`.
    @_noLocks @inline(__always)
    public mutating func update(_ hop: Hop) -> Decision {
        let c = criteria, rate = sampleRate, now = hop.now, levelDB = hop.levelDB
        let seconds = Float(Double(hopSize) / rate)
        var triggers = Triggers()
        // The bout's reference: the loudest hop in which the detector found a howl (a new bout starts afresh).
        // A climb over the howl's own level is the loop still howling; a voice after a caught howl seldom is.
        if hop.detected {
            boutLevelDB = now - lastFound > Int(c.boutGapSeconds * rate) && reductionDB == 0 ? levelDB : max(boutLevelDB, levelDB)
        }
        // A hop within a few dB of the limiter's ceiling is no voice: there every level test counts.
        let loud = levelDB > c.loudDB
        // Each level test needs the level to have risen since the last step, or whatever the gain
        // cannot turn down (a voice over a caught howl) would trigger it again and again.
        let rising = loud || levelDB > stepLevelDB + c.riseDB
        // The climb and return tests count only shortly after a detection: later, a loud hop is more
        // likely a voice than a howl, and a howl that comes back is found again.
        let evidence = loud || now - lastFound <= Int(c.evidenceSeconds * rate)
        if evidence && levelDB > boutLevelDB + c.climbDB && levelDB > c.climbFloorDB && rising { triggers.insert(.climb) }
        // Pinned near the ceiling: a steady howl no longer rises, so the level tests stay quiet. Or the
        // peaks sit at the ceiling while the RMS does not (a howl on several frequencies at once), with
        // a tonal spectrum, as a howl's is.
        let pinned = loud || (hop.peakDB > c.pinnedPeakDB && hop.tonalFraction >= c.pinnedTonalFraction)
        if pinned {
            pinnedGaps = 0
            if pinnedSince == Int.max { pinnedSince = now }
            if now - pinnedSince >= Int(c.pinnedSeconds * rate) { triggers.insert(.pinned) }
        } else if pinnedSince != Int.max {
            // A few hops off the ceiling (a dropout after an xrun) do not end the stretch; more do.
            pinnedGaps += 1
            if pinnedGaps > c.pinnedGapHops { pinnedSince = Int.max; pinnedGaps = 0 }
        }
        recoveryMinimumDB = min(recoveryMinimumDB, levelDB)
        if evidence && reductionDB > 0 && levelDB > recoveryMinimumDB + c.returnDB
            && levelDB > c.climbFloorDB && rising { triggers.insert(.returning) }
        if now >= checkAt {
            // The notches had their chance: a loud howl that did not give way needs the gain.
            if levelDB > checkLevelDB - c.reliefDB && rising { triggers.insert(.noRelief) }
            checkAt = Int.max
        }
        if hop.detected {
            lastFound = now
            if levelDB > c.climbFloorDB && checkAt == Int.max {
                checkAt = now + Int(c.checkSeconds * rate)
                checkLevelDB = levelDB
            }
        }
        if hop.notchesExhausted { triggers.insert(.exhaustedNotches) }
        // A sliding window: each placement and the `notchBurst − 1` before it, however the burst began.
        for _ in 0..<hop.notchesPlaced {
            burstTimes[burstNext] = now
            burstNext = (burstNext + 1) % c.notchBurst
            if now - burstTimes[burstNext] <= Int(c.notchBurstSeconds * rate) { triggers.insert(.notchBurst) }
        }
        var stepped = false
        let ready = Double(now - lastStep) >= c.intervalSeconds * rate
        if !triggers.isEmpty && ready && hop.mayStep {
            // Only a step the detector backs (a howl the notches could not take), a pinned stretch or a
            // loud hop sets the floor: a quieter step from a level test may be a voice, and recovers fully.
            if !triggers.isDisjoint(with: .floorSetting) || loud {
                floorDB = min(c.maximumReductionDB, reductionDB + c.marginDB)
            }
            reductionDB = min(c.maximumReductionDB, reductionDB + c.stepDB)
            lastStep = now
            recoveryMinimumDB = levelDB
            stepLevelDB = levelDB
            if pinned { pinnedSince = now }  // the next pinned step needs another stretch of pinned time
            forgetBurst()  // and the next burst step another burst
            stepped = true
        } else if reductionDB > 0 {
            let quiet = Double(now - lastStep) / rate
            if quiet > c.floorHoldSeconds {
                floorDB = max(0, floorDB - c.floorReleaseDBPerSecond * seconds)
            }
            if quiet > c.holdSeconds {
                reductionDB = max(floorDB, reductionDB - c.releaseDBPerSecond * seconds)
            }
            if reductionDB == 0 { stepLevelDB = -Float.infinity }
        }
        return Decision(triggers: triggers, stepped: stepped, reductionDB: reductionDB, floorDB: floorDB)
    }

    /// Forgets the placements a burst counts.
    /// - Thread: audio.
    /// - Realtime: safe.
    @inline(__always)
    private mutating func forgetBurst() {
        for i in 0..<criteria.notchBurst { burstTimes[i] = Int.min / 2 }
        burstNext = 0
    }
}
