import Chains
import Sessions

/// One channel strip as the live screen shows it, gathered on the control thread.
public struct StripStatus: Equatable {
    /// From 1, as on the screen and in `--strip N:…`.
    public var number: Int
    /// What it reads: "in 1", "in 1+2" (`StripSettings.sourceLabel`).
    public var source: String
    /// The strip's meter (after its input gain), peak dBFS.
    public var peakDB: Float
    public var settings: StripSettings
    /// Whether the strip keys act on this strip.
    public var selected: Bool
    /// Whether the strip carries voice processing (`--voice-processing` at start), so `v` can switch it.
    public var voiceProcessingAvailable: Bool
    /// What its clean-up stages do now ("gate closed · compressor −4.1 dB"), empty when both are off.
    public var cleanUpActivity: String

    public init(number: Int, source: String, peakDB: Float, settings: StripSettings, selected: Bool,
                voiceProcessingAvailable: Bool, cleanUpActivity: String = "") {
        self.number = number
        self.source = source
        self.peakDB = peakDB
        self.settings = settings
        self.selected = selected
        self.voiceProcessingAvailable = voiceProcessingAvailable
        self.cleanUpActivity = cleanUpActivity
    }

    /// "strip 1 (in 1+2)".
    public var label: String { "strip \(number) (\(source))" }
}
