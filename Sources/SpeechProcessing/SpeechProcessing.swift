import CSpeexDSP

/// The speexdsp version this was built against, for `busker --version` and bug reports.
public enum SpeechProcessing {
    /// Frames speexdsp's preprocessor takes per call at 48 kHz: 10 ms, the size it is tuned for.
    public static let framesPer10Milliseconds48k = 480
}
