/// Why a take could not start or had to stop. Every case is one line that
/// names the file or the folder, for the command line and the screens.
public enum RecordingError: Error, CustomStringConvertible, Equatable {
    /// An explicit path that already holds a file, without `--force`.
    case exists(path: String)
    /// The folder is missing, not a folder, or not writable.
    case folder(path: String, reason: String)
    /// The file could not be created or opened for writing.
    case cannotCreate(path: String, reason: String)
    /// libsndfile cannot write this format with these settings.
    case unsupported(path: String, reason: String)
    /// Writing failed during the take (disk full, file too large, I/O error).
    case writeFailed(path: String, reason: String)
    /// A file `busker repair` cannot fix.
    case notRepairable(path: String, reason: String)
    /// A take (or its MIDI file) would be written over a file the session reads (the song being played).
    case isSource(path: String)

    /// The one line that names the file and says what went wrong.
    /// - Thread: writer, control
    /// - Realtime: unsafe (builds Strings)
    public var description: String {
        switch self {
        case let .exists(path): "'\(path)' already exists (use --force to overwrite it, or give another name)"
        case let .folder(path, reason): "cannot record into '\(path)': \(reason)"
        case let .cannotCreate(path, reason): "cannot create '\(path)': \(reason)"
        case let .unsupported(path, reason): "'\(path)': \(reason)"
        case let .writeFailed(path, reason): "writing '\(path)' failed: \(reason)"
        case let .notRepairable(path, reason): "cannot repair '\(path)': \(reason)"
        case let .isSource(path): "'\(path)' is what is being played: a take never writes over it (give the take another name)"
        }
    }
}
