import Engine

/// What the user sets on a stage part's strip: the fader, pan, mute, solo
/// and the send to the parts' reverb. A part is named by its role
/// ("keys", "drums", "song", "track"), which is how presets and the command
/// line find it.
public struct PartSettings: Sendable, Equatable {
    /// The strip's fader, −60 (silence) … +12 dB.
    public var levelDB: Float = 0
    /// −1 left … 1 right: a balance on a stereo part (centre is unity on both sides).
    public var pan: Float = 0
    public var mute = false
    /// While any part is soloed, every other part and the mic are muted.
    public var solo = false
    /// The send to the parts' reverb, linear 0…100 % (50 % sends at −6 dB).
    public var reverbSendPercent: Float = 0

    public static let levelRange: ClosedRange<Float> = -60...12
    public static let panRange: ClosedRange<Float> = -1...1
    public static let sendRange: ClosedRange<Float> = 0...100
    /// The parts a stage makes, in the order the screen, presets and the
    /// command line list them.
    public static let names = ["keys", "drums", "song"]

    public init(levelDB: Float = 0, pan: Float = 0, mute: Bool = false, solo: Bool = false, reverbSendPercent: Float = 0) {
        self.levelDB = levelDB
        self.pan = pan
        self.mute = mute
        self.solo = solo
        self.reverbSendPercent = reverbSendPercent
    }

    /// Throws a one-line error naming `part` for the first value out of its range.
    public func validate(part: String) throws(ParameterError) {
        for (name, value, range, unit) in [("level", levelDB, Self.levelRange, "dB"), ("pan", pan, Self.panRange, ""),
                                           ("reverb", reverbSendPercent, Self.sendRange, "%")] where !range.contains(value) {
            throw .outOfRange(name: "\(part) \(name)", value: value, range: range, unit: unit)
        }
    }
}
