/// A pad as the audio thread plays it: gains, choke group, and where its
/// voices and velocity table sit in the kit's storage.
struct DrumPad {
    /// The pad's own note (activity is reported under it, whichever note hit it).
    var note: UInt8
    /// Pad gain × constant-power pan, per channel.
    var gainLeft: Float
    var gainRight: Float
    /// 0 for none; pads with the same number choke each other.
    var chokeGroup: Int
    var stopsOnNoteOff: Bool
    /// The pad's voices are `voices[firstVoice ..< firstVoice + voiceCount]`,
    /// and its fade-out slots the same range of `tails`.
    var firstVoice: Int
    var voiceCount: Int
    /// Where round-robin voice allocation looks first, 0 ..< voiceCount.
    var nextVoice = 0
}
