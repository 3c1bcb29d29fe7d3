import AudioFiles
import Session

/// An audio file's error as the offline drivers report it to a session: here,
/// beside the drivers, so that reading and writing files needs no Session.
extension AudioFileError: DriverError {
    /// An offline driver's file failing to open is neither busy nor missing hardware.
    public var startFailure: StartFailure {
        let path: String = switch self {
        case let .cannotOpen(path, _), let .truncated(path, _, _), let .unsupported(path, _),
             let .readFailed(path, _), let .writeFailed(path, _): path
        case .resampler: ""
        }
        return StartFailure(kind: .other, device: path, message: description)
    }
}
