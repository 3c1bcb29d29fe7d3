import Chains

/// One stage part's strip as the live screen shows it ("keys", "drums",
/// "song"), gathered on the control thread.
public struct PartStatus: Equatable {
    /// The part's role, as the screen, presets and `--part` name it.
    public var name: String
    /// The part's meter (before its fader), the louder channel's peak, dBFS.
    public var peakDB: Float
    public var settings: PartSettings
    /// Whether the strip keys act on this part.
    public var selected: Bool

    public init(name: String, peakDB: Float, settings: PartSettings, selected: Bool) {
        self.name = name
        self.peakDB = peakDB
        self.settings = settings
        self.selected = selected
    }
}
