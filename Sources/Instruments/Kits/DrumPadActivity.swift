/// What a pad has done lately, for the TUI to light it: a hit counter (a
/// change means "hit since you last looked") and the last hit's velocity.
public struct DrumPadActivity: Equatable, Sendable {
    /// Hits since the node was made.
    public var hitCount: Int
    /// Velocity of the last hit (0 before any).
    public var lastVelocity: UInt8

    public init(hitCount: Int, lastVelocity: UInt8) {
        self.hitCount = hitCount
        self.lastVelocity = lastVelocity
    }

    // MARK: Audio thread

    /// Packs into one atomic word, so a reader never sees a count from one hit
    /// with the velocity of another.
    /// - Thread: audio (`DrumKitNode` records hits with it)
    /// - Realtime: safe
    var packed: UInt64 { UInt64(hitCount) << 8 | UInt64(lastVelocity) }

    /// Unpacks a word made by `packed`.
    /// - Thread: audio, control (the audio thread records hits, the TUI reads them)
    /// - Realtime: safe
    init(packed: UInt64) {
        hitCount = Int(packed >> 8)
        lastVelocity = UInt8(truncatingIfNeeded: packed)
    }
}
