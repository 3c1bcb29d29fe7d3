import CSndFile

/// How samples are stored in an output file.
public enum SampleFormat: String, CaseIterable, Sendable {
    case s16, s24, s32, f32

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
        case .wav: return Int32(SF_FORMAT_WAV) | sample.sndfileSubtype
        case .aiff: return Int32(SF_FORMAT_AIFF) | sample.sndfileSubtype
        case .flac:
            // FLAC stores integers only, up to 24 bits.
            let sub = sample == .s16 ? Int32(SF_FORMAT_PCM_16) : Int32(SF_FORMAT_PCM_24)
            return Int32(SF_FORMAT_FLAC) | sub
        case .ogg: return Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        }
    }
}
