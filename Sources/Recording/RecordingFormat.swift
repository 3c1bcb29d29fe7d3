import CSndFile

/// The file formats a take can be written in (`--format`), all through libsndfile.
public enum RecordingFormat: String, CaseIterable, Sendable {
    /// WAV, 24-bit integer PCM: the default, and what studios exchange.
    case wav24
    case wav16
    /// WAV, 32-bit float: headroom for takes that will be processed later.
    case wavFloat = "float"
    /// FLAC, 24-bit: lossless and about half the size.
    case flac
    /// Ogg Vorbis: lossy, small; for sharing, not for editing.
    case ogg

    /// The format for a `--format` value, accepting the usual other spellings
    /// (`wav`, `wav32f`, `f32`, `s16`, `s24`), or nil.
    public static func named(_ text: String) -> RecordingFormat? {
        switch text.lowercased() {
        case "wav24", "wav", "s24", "24": return .wav24
        case "wav16", "s16", "16": return .wav16
        case "float", "wav32f", "f32", "wavfloat": return .wavFloat
        case "flac": return .flac
        case "ogg", "vorbis": return .ogg
        default: return nil
        }
    }

    /// The names `--format` takes, for help and error lines.
    public static let names = "wav24, wav16, float, flac, ogg"

    /// The format a path's extension implies (`.flac`, `.ogg`), nil for WAV or none:
    /// a WAV path leaves the sample format to `--format`.
    public static func implied(byPath path: String) -> RecordingFormat? {
        switch extensionOf(path) {
        case "flac": return .flac
        case "ogg", "oga": return .ogg
        default: return nil
        }
    }

    /// The lower-cased extension of `path`'s last component, or "".
    static func extensionOf(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The file name extension for this format.
    /// - Thread: writer, control
    /// - Realtime: safe
    public var fileExtension: String {
        switch self {
        case .wav24, .wav16, .wavFloat: "wav"
        case .flac: "flac"
        case .ogg: "ogg"
        }
    }

    /// Whether the file is a RIFF/RF64 WAV, the kind whose header is kept
    /// current during the take and which `busker repair` can fix.
    /// - Thread: writer, control
    /// - Realtime: safe
    public var isWAV: Bool { fileExtension == "wav" }

    /// Bytes per sample in the file, for WAV (0 otherwise).
    public var bytesPerSample: Int {
        switch self {
        case .wav16: 2
        case .wav24: 3
        case .wavFloat: 4
        case .flac, .ogg: 0
        }
    }

    /// libsndfile's major|minor format. WAV takes are RF64 with auto-downgrade:
    /// a plain RIFF WAV (with a JUNK chunk kept free for the ds64 chunk) until
    /// the data passes 4 GiB, RF64 after, so a long take never breaks the
    /// 32-bit RIFF sizes.
    var sndfileFormat: Int32 {
        switch self {
        case .wav24: Int32(SF_FORMAT_RF64 | SF_FORMAT_PCM_24)
        case .wav16: Int32(SF_FORMAT_RF64 | SF_FORMAT_PCM_16)
        case .wavFloat: Int32(SF_FORMAT_RF64 | SF_FORMAT_FLOAT)
        case .flac: Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_24)
        case .ogg: Int32(SF_FORMAT_OGG | SF_FORMAT_VORBIS)
        }
    }
}
