/// A snapshot of a take for the screens and status lines, read on the control thread.
public struct RecordingStatus: Equatable, Sendable {
    public enum State: String, Sendable {
        case recording
        /// Stopped on request; the file is complete.
        case stopped
        /// Stopped by a write error; the file holds everything written before it.
        case failed
    }

    public var state: State
    public var path: String
    public var sampleRate: Int
    /// Frames of the take the tap has seen (the take's length so far).
    public var framesRecorded: Int
    /// Frames in the file (silence for dropped frames included).
    public var framesWritten: Int
    public var droppedFrames: Int
    public var xruns: Int
    public var error: String?

    public var seconds: Double { Double(framesRecorded) / Double(max(1, sampleRate)) }

    /// `● REC 01:02`, with what was lost when anything was, or why it stopped.
    public var indicator: String {
        let clock = Self.clock(seconds)
        switch state {
        case .recording:
            var text = "● REC \(clock)"
            if droppedFrames > 0 { text += " · DROPPED \(droppedFrames) frames" }
            return text
        case .stopped:
            return "REC stopped at \(clock)"
        case .failed:
            return "REC FAILED at \(clock): \(error ?? "write error")"
        }
    }

    /// `mm:ss`, or `h:mm:ss` from an hour on.
    public static func clock(_ seconds: Double) -> String {
        let s = Int(seconds)
        let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60)
        func two(_ x: Int) -> String { x < 10 ? "0\(x)" : "\(x)" }
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(two(m)):\(two(sec))"
    }
}
