import CALSA

/// Which side of a duplex connection a PCM serves.
public enum PCMDirection: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case capture
    case playback

    /// The matching libasound stream constant.
    public var stream: snd_pcm_stream_t {
        switch self {
        case .capture: SND_PCM_STREAM_CAPTURE
        case .playback: SND_PCM_STREAM_PLAYBACK
        }
    }

    public var description: String {
        switch self {
        case .capture: "capture"
        case .playback: "playback"
        }
    }

    /// "input"/"output", the words the command line uses (`--input`, `--output`).
    public var optionWord: String {
        switch self {
        case .capture: "input"
        case .playback: "output"
        }
    }
}
