/// The tunables of the howl guard's last resort, the emergency gain (`EmergencyGainPolicy`):
/// when the notches cannot hold a loop, the whole signal steps down.
///
/// Levels are in dBFS and measured by the guard per analysis hop (`HowlCriteria.hopSize`
/// samples, 10.7 ms at 48 kHz) after the notches and before the emergency gain: the RMS of the
/// hop's mono mix, and its largest sample on any channel. Times are in seconds; the policy
/// converts them to samples at its rate each hop. The defaults are the guard's.
public struct EmergencyGainCriteria: Sendable, Equatable {
    // MARK: Stepping down and coming back

    /// How far one step lowers the gain, in dB. It matches the notches' `NotchBank.deepenStepDB`:
    /// a loop a few dB over unity (as the rooms of `busker bench --howl` are) is back under it
    /// after one step, and a needless step leaves a voice audible.
    public var stepDB: Float = 6
    /// The deepest the gain goes, in dB: a notch's full depth (`NotchBank.maximumDepthDB`), five
    /// steps. A loop held at the limiter's −1 dBFS ceiling comes out at −31 dBFS or less; muting
    /// the rig altogether is the operator's call.
    public var maximumReductionDB: Float = 30
    /// The least time between two steps, so each can take effect around the loop (a round trip
    /// takes milliseconds; 0.1 s is about 9 hops) before the next is decided.
    public var intervalSeconds: Double = 0.1
    /// How long after the last step the gain starts to come back: long enough for the howl the
    /// step answered to die away (the simulator's rooms ring for an RT60 of 0.4 s).
    public var holdSeconds: Double = 1
    /// How fast the gain comes back after the hold, in dB per second: a step's worth per second,
    /// slow enough that a howl returning as the gain rises is seen (`returnDB`) before the gain
    /// is back where it howled.
    public var releaseDBPerSecond: Float = 6
    /// A step the detector or the ceiling backs (`EmergencyGainPolicy.Triggers.floorSetting`), or
    /// any step in a hop louder than `loudDB`, sets a floor: the gain recovers only to this far
    /// under the gain that howled, so a loop that howls at full gain does not howl again each time
    /// the gain comes back. Half a step.
    public var marginDB: Float = 3
    /// The floor holds this long after the last step…
    public var floorHoldSeconds: Double = 30
    /// …then fades this fast (dB per second; a 30 dB floor is gone 150 s later): a loop howls at
    /// the same gain while the room stays as it is, and the floor lets go once it may have changed.
    public var floorReleaseDBPerSecond: Float = 0.2
    /// Switched off, the guard releases the gain this fast before it bypasses (3 dB per 256
    /// samples at 48 kHz, as the notches release `NotchBank.depthStepDB` per notch step): gone
    /// within about 50 ms, with no step in the output.
    public var switchOffReleaseDBPerSecond: Float = 562.5

    // MARK: Level tests

    /// A bout of feedback: the detector's reports with less than this between them. A report
    /// after a longer quiet, with the gain back at 0 dB, starts a new bout, whose reference level
    /// is the hop it came in. The same span as the FEEDBACK warning (`HowlGuardNode.warningSeconds`).
    public var boutGapSeconds: Double = 2
    /// A hop this far over the loudest hop of the bout in which the detector found a howl is a
    /// loop still howling, perhaps on a whole harmonic series the PHPR rightly does not call a
    /// howl (a loop too loud everywhere, like a flat digital wire). A voice after a caught howl
    /// seldom stands that far over the howl's own level.
    public var climbDB: Float = 6
    /// The climb and return tests count only above this level (RMS, dBFS): a quiet room that
    /// starts to sing is not a howl.
    public var climbFloorDB: Float = -30
    /// While the gain recovers, a hop this far over the quietest hop since the last step is the
    /// howl coming back: two steps' worth, more than the gain's own recovery from a step brings
    /// back.
    public var returnDB: Float = 12
    /// A howl the detector reports at a level over `climbFloorDB` is checked again this long
    /// after: a notch reaches its first 12 dB within 21 ms at 48 kHz (`HowlGuardNode.notchStepSamples`),
    /// so by then a notch that holds the howl has brought the level down…
    public var checkSeconds: Double = 0.2
    /// …by at least this much (dB); a loud howl that did not give way needs the gain.
    public var reliefDB: Float = 3
    /// A step from a level test (climb, return, no relief) needs the hop this far above the hop
    /// at the previous step. The level is measured before the gain, so whatever the gain cannot
    /// turn down (a voice over a caught howl) would otherwise step it again and again.
    public var riseDB: Float = 3
    /// The climb and return tests count only this long after the detector last found a howl:
    /// later, a loud hop is more likely a voice than a howl, and a howl that comes back is found
    /// again (and then the notches say whether they can take it)…
    public var evidenceSeconds: Double = 0.5
    /// …or at any time when the hop is louder than this (RMS, dBFS): a loop pinned near the
    /// limiter's ceiling on a harmonic series the detector rightly does not call a howl. No voice
    /// is that loud: speech peaking at 0 dBFS, and driven 6 dB past it, gets no step
    /// (`HowlGuardRecoveryTests`). A hop this loud is also exempt from `riseDB`, and a step
    /// in it sets the floor.
    public var loudDB: Float = -10

    // MARK: Pinned at the ceiling

    /// Hops pinned at the ceiling for this long step the gain, once per this much pinned time
    /// until the level lets go: a steady howl there no longer rises, so the level tests cannot
    /// see it, and the detector may not call a harmonic series a howl. A hop is pinned when it
    /// is louder than `loudDB`…
    public var pinnedSeconds: Double = 0.3
    /// …or when its peak (any channel) is over this (dBFS) and its spectrum is tonal. The limiter
    /// after the guard is then at work all the time: its ceiling is −1 dBFS and the master volume
    /// after the guard is at most 1, so whatever it holds at the ceiling peaks at −1 dBFS or more
    /// here. A voice reaches the ceiling on its loudest syllables, not in every hop for 0.3 s.
    /// A howl on several frequencies at once has a crest factor a single tone has not: the
    /// virtual sound card's flat loop holds its peaks at the limiter's −1 dBFS with its RMS
    /// under −10 dBFS (`HowlLoopJackTests`).
    public var pinnedPeakDB: Float = -3
    /// Tonal: at least this share of the spectrum's power in prominent peaks
    /// (`HowlDetector.tonalFraction()`), as a howl's is. A loud noise, or a distorted source
    /// driven into the limiter on purpose, is not feedback. (A howl above the analysed band,
    /// 9.7 kHz at 48 kHz, is one tone: at the ceiling its RMS is over `loudDB`.)
    public var pinnedTonalFraction: Float = 0.5
    /// A pinned stretch survives this many hops in a row off the ceiling (53 ms at 48 kHz), so an
    /// xrun's dropout in a loop at the ceiling does not start its `pinnedSeconds` over: on a loaded
    /// machine xruns come often enough that with fewer gaps allowed the virtual sound card's loop
    /// (`HowlLoopJackTests`) can stay near the ceiling for seconds. Speech keeps longer gaps:
    /// driven 6 dB past full scale it gets no step (`HowlGuardRecoveryTests`).
    public var pinnedGapHops: Int = 5

    // MARK: Notches

    /// This many new notches within `notchBurstSeconds` (a sliding window: the last this many
    /// placements) is a loop too loud everywhere: a flat path (a cable, a software patch, the
    /// virtual sound card's `jack_connect`) howls on one comb tooth after another as each is
    /// notched, each caught while still quiet, so no level test fires. The notches count as
    /// exhausted: the gain steps and sets the floor. Four howls 0.2 s apart step the gain, three
    /// do not (`HowlGuardBurstTests`). At most `EmergencyGainPolicy.maximumNotchBurst`.
    public var notchBurst: Int = 4
    public var notchBurstSeconds: Double = 1

    public init() {}
}
