/// Which side of a driver a stream serves: what comes in (capture) or what
/// goes out (playback). ALSA opens one PCM per side; a JACK client has input
/// and output ports; an offline driver reads one file and writes another.
public enum StreamDirection: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case capture
    case playback

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
