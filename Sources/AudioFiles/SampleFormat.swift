import CSndFile

/// How samples are stored in an output file.
public enum SampleFormat: String, CaseIterable, Sendable {
    case s16, s24, s32, f32

    /// The format for a name as ALSA writes it (`S16_LE`, `S24_3LE`, `S24_LE`,
    /// `S32_LE`, `FLOAT_LE`) or Busker's short one (`s16`, `s24`, `s32`,
    /// `f32`), in any case; nil for any other.
    public init?(name: String) {
        let lower = name.lowercased()
        if let short = SampleFormat(rawValue: lower) {
            self = short
            return
        }
        guard let format = Self.allCases.first(where: { $0.alsaName.lowercased() == lower }) ?? (lower == "s24_le" ? .s24 : nil) else {
            return nil
        }
        self = format
    }

    /// ALSA's name for the samples as a file stores them: 24-bit samples
    /// take 3 bytes in a file (`S24_3LE`).
    public var alsaName: String {
        switch self {
        case .s16: "S16_LE"
        case .s24: "S24_3LE"
        case .s32: "S32_LE"
        case .f32: "FLOAT_LE"
        }
    }

    var sndfileSubtype: Int32 {
        switch self {
        case .s16: return Int32(SF_FORMAT_PCM_16)
        case .s24: return Int32(SF_FORMAT_PCM_24)
        case .s32: return Int32(SF_FORMAT_PCM_32)
        case .f32: return Int32(SF_FORMAT_FLOAT)
        }
    }
}

/// The container, chosen from the file name's extension.
public enum ContainerFormat: String, CaseIterable, Sendable {
    case wav, flac, ogg, aiff

    /// The container for `path`'s extension; WAV when there is none.
    public static func forPath(_ path: String) -> ContainerFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return .wav }
        switch path[path.index(after: dot)...].lowercased() {
        case "wav", "wave": return .wav
        case "flac": return .flac
        case "ogg", "oga": return .ogg
        case "aif", "aiff": return .aiff
        default: return nil
        }
    }

    func sndfileFormat(sample: SampleFormat) -> Int32 {
        switch self {
        // RF64 for files that pass 4 GiB; the writer asks for the downgrade to a plain WAV below that.
        case .wav: return Int32(SF_FORMAT_RF64) | sample.sndfileSubtype
        case .aiff: return Int32(SF_FORMAT_AIFF) | sample.sndfileSubtype
        case .flac:
            // FLAC stores integers only, up to 24 bits.
            let sub = sample == .s16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_PCM_24)
            return Int32(SF_FORMAT_FLAC) | sub
        case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        }
    }
}
