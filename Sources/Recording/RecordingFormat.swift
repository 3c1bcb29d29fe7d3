/// The file formats a take can be written in (`--format`), all through libsndfile.
public enum RecordingFormat: String, CaseIterable, Sendable {
    /// WAV, 24-bit integer PCM: the default, and what studios exchange.
    case wav24
    case wav16
    /// WAV, 32-bit float: headroom for takes that will be processed later.
    case wavFloat = "wav32f"
    /// FLAC, 24-bit: lossless and about half the size.
    case flac
    /// Ogg Vorbis: lossy, small; for sharing, not for editing.
    case ogg

    /// The file name extension for this format.
    public var fileExtension: String {
        switch self {
        case .wav24, .wav16, .wavFloat: "wav"
        case .flac: "flac"
        case .ogg: "ogg"
        }
    }
}
