import DSP
import Engine

/// Everything `busker live` lets the user set: the channel strips and the bus
/// they feed (reverb room, howl guard, master volume). A preset stores exactly
/// this; the command line printed on quit reproduces it.
public struct LiveSettings: Sendable, Equatable {
    /// At least one; strip 1 reads capture channel 1 by default.
    public var strips: [StripSettings] = [StripSettings()]
    /// The bus reverb's room; each strip sets its own send.
    public var room: RoomPreset = .medium
    /// Master volume, linear 0–1. Starts quiet: ears first.
    public var volume: Float = 0.3
    /// Feedback protection on the mic's bus (the stage's parts are never notched).
    public var howlGuard = true
    /// The stage's parts' strips by part name ("keys", "drums", "song", "track");
    /// a part not named has the defaults (`PartSettings()`).
    public var parts: [String: PartSettings] = [:]

    /// Most strips a session has (the command line's `--inputs`, a preset's
    /// sections), and the highest capture channel a strip reads.
    public static let maximumStripCount = 16
    public static let maximumChannel = 64

    public init() {}

    /// Throws a one-line error for the first value outside its range,
    /// naming the strip when there is more than one.
    public func validate() throws(ParameterError) {
        if !VoiceSettings.volumeRange.contains(volume) {
            throw .outOfRange(name: "volume", value: volume, range: VoiceSettings.volumeRange, unit: "")
        }
        for (index, strip) in strips.enumerated() {
            do {
                try strip.validate()
            } catch {
                guard strips.count > 1, case let .outOfRange(name, value, range, unit) = error else { throw error }
                throw .outOfRange(name: "strip \(index + 1) \(name)", value: value, range: range, unit: unit)
            }
        }
        for (name, part) in parts.sorted(by: { $0.key < $1.key }) { try part.validate(part: name) }
    }
}
