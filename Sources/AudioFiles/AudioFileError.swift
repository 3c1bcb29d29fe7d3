/// Why an audio file could not be read or written. Every case renders as one
/// line that names the file, for the command line's error output.
public enum AudioFileError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case truncated(path: String, declaredFrames: Int64, presentFrames: Int64)
    case unsupported(path: String, reason: String)
    case readFailed(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    case resampler(reason: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open '\(path)': \(reason)"
        case let .truncated(path, declared, present):
            return "'\(path)' is truncated: its header promises \(declared) frames but the file holds \(present)"
        case let .unsupported(path, reason): return "'\(path)': \(reason)"
        case let .readFailed(path, reason): return "reading '\(path)' failed: \(reason)"
        case let .writeFailed(path, reason): return "writing '\(path)' failed: \(reason)"
        case let .resampler(reason): return "resampler: \(reason)"
        }
    }
}

extension AudioFileError {
    /// Whether the error comes before an output file is created (a file
    /// that cannot be opened, a format refused), so that no output was
    /// touched and there is nothing to say about it.
    public var leavesOutputUntouched: Bool {
        switch self {
        case .cannotOpen, .unsupported: true
        case .truncated, .readFailed, .writeFailed, .resampler: false
        }
    }
}
