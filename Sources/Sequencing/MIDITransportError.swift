/// Why the song transport refused a seek or a loop section. Its description
/// is one line for the user, for example `bar 40 is beyond the song (it has 32 bars)`.
public enum MIDITransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A bar below 1 or past the song's last bar (`barCount`). A loop section
    /// may end on the bar after the last (`barCount + 1`): it then ends with the song.
    case barOutOfRange(bar: Int, barCount: Int)
    /// A time before the start, at or past the song's end (a loop section may
    /// end at the end), or not a number.
    case timeOutOfRange(seconds: Double, lengthSeconds: Double)
    /// A loop section whose end is not after its start (bars or seconds as given).
    case emptyLoopSection(start: String, end: String)
    /// Bars were asked of an SMPTE-timed song, which has no bars (seconds work).
    case noBarsInTimecodeSong
    /// The transport's queue to the audio thread is full: the engine is not
    /// running cycles (nothing moves until it does).
    case commandQueueFull

    public var description: String {
        switch self {
        case .barOutOfRange(let bar, let barCount):
            return bar < 1 ? "bar \(bar) does not exist (bars count from 1)"
                : "bar \(bar) is beyond the song (it has \(barCount) bar\(barCount == 1 ? "" : "s"))"
        case .timeOutOfRange(let seconds, let length):
            guard seconds.isFinite else { return "a time in seconds must be a number" }
            return seconds < 0 ? "\(Self.format(seconds)) s is before the song's start"
                : "\(Self.format(seconds)) s is beyond the song (it lasts \(Self.format(length)) s)"
        case .emptyLoopSection(let start, let end):
            return "a loop section must end after it starts (\(start) to \(end))"
        case .noBarsInTimecodeSong:
            return "the song is timed in SMPTE frames and has no bars: give seconds"
        case .commandQueueFull:
            return "the song transport is not running (too many commands waiting)"
        }
    }

    /// Seconds with up to three decimals, no trailing zeros.
    private static func format(_ seconds: Double) -> String {
        var text = String((seconds * 1000).rounded() / 1000)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}
