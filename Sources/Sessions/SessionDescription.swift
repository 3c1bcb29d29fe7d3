import CommandLineInterface
import Session

/// Everything a device session is told: the command it runs for, where
/// the sound goes (the driver and its options), what plays (the sources),
/// the take and how the session behaves when devices come and go. `busker
/// live`, `play` and `record` differ only in the description they hand
/// `AudioSession`.
public struct SessionDescription {
    /// `live`, `play`, `record`: the word every line starts with.
    public var command: String
    public var driver: AudioDriverChoice
    public var sources: SessionSources
    /// Takes started and stopped by the session (Ctrl-R, `--record`); nil:
    /// the command records itself (`busker record`).
    public var recording: RecordingRequest?
    public var policy: SessionPolicy
    /// Ctrl-Z really stops the process (and space starts the audio again).
    public var takesJobControl = true
    /// Which driver runs and why, said when every file is checked, just before it opens.
    public var driverLine: String?
    /// The key that quits, for the last line ("stopped (q)").
    public var quitKey: String
    /// What a loss means, added to its line ("; the mic is off").
    public var lossConsequence = ""

    public init(command: String, driver: AudioDriverChoice, sources: SessionSources, recording: RecordingRequest?,
                policy: SessionPolicy, quitKey: String) {
        self.command = command
        self.driver = driver
        self.sources = sources
        self.recording = recording
        self.policy = policy
        self.quitKey = quitKey
    }
}
