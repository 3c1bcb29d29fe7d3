#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSP

/// One channel's automatic gain control for a voice: it follows the level of
/// the voice (only in hops the caller judges to hold voice, so pauses and the
/// noise between phrases neither raise nor lower it) and moves the gain so the
/// voice's level meets the target, slowly up and faster down.
///
/// - The voice's level: the mean square of the hops of a phrase (voiced hops
///   and the `phraseHangSeconds` after each, so the short pauses between words
///   count, as they do in a spoken phrase's RMS), averaged over about a second
///   (`levelSeconds`).
/// - The gain: within `−maxCutDB...maxGainDB`; it rises at most `riseDBPerSecond`
///   and only within a phrase, and falls at most `fallDBPerSecond`, or
///   `cutDBPerSecond` while a hop would come out more than `overshootDB` over
///   the target (a quiet singer raised 30 dB who suddenly shouts: the level's
///   one-second average would take a second to notice).
/// - Between phrases it adds nothing: the gain applied falls to at most 0 dB
///   (at `closeDBPerSecond`, once the phrase's hang is over) and comes back at
///   `openDBPerSecond` at the next voiced hop, so the noise of the pauses is
///   not raised by what the voice needs.
///
/// - Realtime: `init` calls libm (control thread); `update` and `restart` are safe.
public struct VoiceLevelControl {
    public static let levelSeconds = 1.0
    public static let phraseHangSeconds = 0.25
    public static let riseDBPerSecond: Float = 8
    public static let fallDBPerSecond: Float = 24
    public static let cutDBPerSecond: Float = 200
    public static let openDBPerSecond: Float = 1500
    public static let closeDBPerSecond: Float = 300
    public static let overshootDB: Float = 12
    /// The most it lowers a loud voice, dB.
    public static let maxCutDB: Float = 20

    /// The level it brings the voice to, dBFS RMS.
    public let targetDBFS: Float
    /// The most it raises a quiet voice, dB (0…60).
    public let maxGainDB: Float
    private let levelFactor: Float
    private let riseStep: Float
    private let fallStep: Float
    private let cutStep: Float
    private let openStep: Float
    private let closeStep: Float
    private let hangHops: Int
    /// Hops left in the phrase since the last voiced one.
    private var hangLeft = 0
    /// The voice's mean square; 0 until the first voiced hop.
    private var level: Float = 0
    /// The gain the voice needs, dB.
    public private(set) var gainDB: Float = 0
    /// The gain applied now, dB: `gainDB` within a phrase, at most 0 dB between phrases.
    public private(set) var appliedDB: Float = 0

    /// - Parameters:
    ///   - targetDBFS: the voice's level to aim at.
    ///   - maxGainDB: the most gain it may add.
    ///   - hopSeconds: the time between calls to `update`.
    public init(targetDBFS: Float, maxGainDB: Float, hopSeconds: Double) {
        self.targetDBFS = targetDBFS
        self.maxGainDB = max(0, min(60, maxGainDB))
        levelFactor = Float(exp(-hopSeconds / Self.levelSeconds))
        riseStep = Self.riseDBPerSecond * Float(hopSeconds)
        fallStep = Self.fallDBPerSecond * Float(hopSeconds)
        cutStep = Self.cutDBPerSecond * Float(hopSeconds)
        openStep = Self.openDBPerSecond * Float(hopSeconds)
        closeStep = Self.closeDBPerSecond * Float(hopSeconds)
        hangHops = Int((Self.phraseHangSeconds / hopSeconds).rounded())
    }

    /// Takes one hop's mean square and whether it held voice; returns the gain
    /// for the end of the hop, linear.
    /// - Thread: audio (one at a time)
    /// - Realtime: safe. Arithmetic only.
    @_noLocks
    public mutating func update(meanSquare: Float, voiced: Bool) -> Float {
        if voiced { hangLeft = hangHops + 1 }
        let inPhrase = hangLeft > 0
        if inPhrase { hangLeft -= 1 }
        if inPhrase {
            level = level > 0 ? levelFactor * level + (1 - levelFactor) * meanSquare : meanSquare
        }
        if level > 0 {
            let wanted = max(-Self.maxCutDB, min(maxGainDB, targetDBFS - fastPowerDecibels(level)))
            if wanted > gainDB {
                if inPhrase { gainDB = min(wanted, gainDB + riseStep) }
            } else {
                gainDB = max(wanted, gainDB - fallStep)
            }
            if inPhrase && meanSquare > 1e-20 && fastPowerDecibels(meanSquare) + gainDB > targetDBFS + Self.overshootDB {
                gainDB = max(-Self.maxCutDB, gainDB - cutStep)
            }
        }
        let aim = inPhrase ? gainDB : min(gainDB, 0)
        appliedDB = aim > appliedDB ? min(aim, appliedDB + openStep) : max(aim, appliedDB - closeStep)
        return fastSampleGain(decibels: appliedDB)
    }

    /// Forgets the voice's level and goes back to 0 dB (switched on again after a while).
    /// - Thread: audio (one at a time)
    /// - Realtime: safe
    @_noLocks
    public mutating func restart() {
        level = 0
        gainDB = 0
        appliedDB = 0
        hangLeft = 0
    }
}
