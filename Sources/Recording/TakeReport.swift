import Loudness

/// What a finished take holds and what, if anything, was lost.
public struct TakeReport: Sendable {
    public var path: String
    public var sampleRate: Int
    public var channelCount: Int
    /// Frames in the file.
    public var frames: Int
    /// Frames the tap saw; equal to `frames` unless a write error stopped the take.
    public var framesRecorded: Int
    /// Frames dropped because the writer fell behind (silence in the file).
    public var droppedFrames: Int
    /// Where they were dropped, in take frames.
    public var gaps: [DroppedSpan]
    public var xrunFrames: [Int]
    /// The write error that stopped the take, if one did.
    public var error: RecordingError?
    /// Why the take ended early when a write error in another file of the
    /// same take (its master or a stem) ended it: "its stem … failed".
    public var endedBy: String?
    /// The sidecar log, when something was lost (every take has one; it is
    /// pointed at only then).
    public var logPath: String?
    /// The Standard MIDI File written alongside, and how many events it holds.
    public var midiPath: String?
    public var midiEvents: Int
    public var droppedMIDIEvents: Int
    /// The loudness of the file's frames (EBU R 128), measured by the writer; nil when not measured.
    public var loudness: LoudnessReport? = nil

    /// Whether the file is readable to its last frame after a crash or a full
    /// disk: WAV is; FLAC and Ogg are encoded streams whose end may not decode.
    public var isCrashSafe = true

    public var seconds: Double { Double(frames) / Double(max(1, sampleRate)) }

    /// `23.5 s kept in take.wav`, and for FLAC and Ogg that the end may not decode.
    public var keptDescription: String {
        "\(String(format: "%.1f", seconds)) s kept in \(path)"
            + (isCrashSafe ? "" : " (an encoded stream: its last frames may not decode; WAV takes are crash-safe)")
    }

    /// One line for the terminal: where the take is, how long, what was lost.
    public var summary: String {
        var text = "recorded \(path): \(String(format: "%.1f", seconds)) s, \(frames) frames at \(sampleRate) Hz"
        if let loudness { text += "; \(loudness.description)" }
        if let midiPath { text += "; MIDI \(midiPath) (\(midiEvents) events)" }
        if droppedFrames > 0 {
            text += "; DROPPED \(droppedFrames) frames in \(gaps.count) gap(s) (silence in their place)"
        }
        if !xrunFrames.isEmpty { text += "; \(xrunFrames.count) xrun(s)" }
        if droppedMIDIEvents > 0 { text += "; \(droppedMIDIEvents) MIDI events lost" }
        if let error { text += "; STOPPED EARLY: \(error)" }
        if let endedBy { text += "; ENDED EARLY: \(endedBy)" }
        if let logPath { text += "; see \(logPath)" }
        return text
    }
}
