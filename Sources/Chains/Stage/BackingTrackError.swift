import Foundation

/// Why a backing track's transport refused a request. Each renders as one line.
public enum BackingTrackError: Error, Equatable, CustomStringConvertible {
    /// A loop whose start and end are not 0 ≤ start < end, or start past the track.
    case loopOutsideTrack(start: Double, end: Double, length: Double)
    /// A loop shorter than `BackingTrackNode.shortestLoopSeconds`.
    case loopTooShort(seconds: Double)
    /// The reader thread has not taken the transport's last commands (64):
    /// the disk or the machine is too slow for now.
    case readerBehind

    public var description: String {
        switch self {
        case let .loopOutsideTrack(start, end, length):
            return "a loop from \(Self.seconds(start)) to \(Self.seconds(end)) does not fit the song (0 to \(Self.seconds(length)))"
        case let .loopTooShort(seconds):
            return "a loop of \(Self.seconds(seconds)) is too short (at least \(Self.seconds(BackingTrackNode.shortestLoopSeconds)))"
        case .readerBehind:
            return "the song's reader is behind: try again"
        }
    }

    private static func seconds(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f s", value) : "\(value)"
    }
}
