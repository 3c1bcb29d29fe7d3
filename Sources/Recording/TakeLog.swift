import Foundation

/// The sidecar log of a take (`TAKE.wav.log`), created with its heading when
/// the take starts: one line per loss (dropped frames, an xrun, a write
/// error) with its position, written as it happens and flushed, so it
/// survives a crash too, and at the end a summary line with the take's
/// totals and loudness. A log whose only line after the heading is the
/// summary means nothing was lost; one with no summary is of a take that was
/// cut short (killed, or the power went).
/// - Realtime: unsafe (file I/O). Created on the control thread (`begin()`),
///   then used by the writer thread only: it is handed over once, before
///   that thread starts, hence `@unchecked Sendable`.
final class TakeLog: @unchecked Sendable {
    let path: String
    private let takePath: String
    private let sampleRate: Int
    private let channelCount: Int
    private var file: UnsafeMutablePointer<FILE>?
    private(set) var entries = 0

    /// A log for the take at `takePath`; `begin()` creates the file.
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    init(takePath: String, sampleRate: Int, channelCount: Int) {
        self.takePath = takePath
        path = Self.path(forTake: takePath)
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    deinit { if let file { fclose(file) } }

    /// `TAKE.wav.log`.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    static func path(forTake takePath: String) -> String { takePath + ".log" }

    /// `12.345 s (frame 592560)`.
    /// - Thread: writer
    /// - Realtime: unsafe (allocates)
    func position(_ frame: Int) -> String {
        String(format: "%.3f s (frame %d)", Double(frame) / Double(sampleRate), frame)
    }

    /// Logs a gap the writer filled with silence.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func droppedFrames(_ gap: DroppedSpan) {
        append("dropped \(gap.count) frames (\(String(format: "%.1f", Double(gap.count) * 1000 / Double(sampleRate))) ms) at \(position(gap.start)): "
               + "the writer fell behind; silence written in their place")
    }

    /// Logs an xrun at take frame `frame`.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func xrun(at frame: Int) {
        append("xrun at \(position(frame)): the sound card under- or overran; the audio around here may click")
    }

    /// Logs blocks the engine silenced because they held NaN, infinite or absurd samples.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func silenced(blocks: Int, from: String, at frame: Int) {
        append("\(blocks) block\(blocks == 1 ? "" : "s") with non-finite or absurd samples\(from.isEmpty ? "" : " from \(from)") silenced near \(position(frame)): "
               + "silence in their place; the sound went on after them")
    }

    /// Logs the write error that stopped the take.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func writeError(_ error: RecordingError, at frame: Int) {
        append("recording stopped at \(position(frame)): \(error); the file holds everything before")
    }

    /// Logs MIDI events the full MIDI queue lost.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func droppedMIDI(_ count: Int) {
        append("\(count) MIDI events lost: the MIDI queue was full")
    }

    /// Ends the log with the take's totals and its loudness (creating it
    /// when nothing was lost).
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    func summary(_ report: TakeReport) {
        append("summary: \(report.frames) frames in the file, \(report.droppedFrames) dropped in \(report.gaps.count) gap(s), \(report.xrunFrames.count) xrun(s)"
               + (report.loudness.map { "; loudness \($0.description)" } ?? ""))
    }

    /// Creates the file with its heading and flushes it, so that a take
    /// killed at any moment after it started has its log beside it. A log
    /// that cannot be created is not a reason to refuse the take: its lines
    /// are then dropped, and the summary on the terminal still says what was lost.
    /// - Thread: control (before the writer thread starts)
    /// - Realtime: unsafe (file I/O)
    func begin() {
        guard file == nil else { return }
        file = fopen(path, "a")
        guard let file else { return }
        fputs("busker take log for \(takePath) (\(sampleRate) Hz, \(channelCount) channels); positions are from the take's "
              + "first frame; no summary line at the end means the take was cut short (busker repair mends its header)\n", file)
        fflush(file)
    }

    /// Appends a line and flushes it.
    /// - Thread: writer
    /// - Realtime: unsafe (file I/O)
    private func append(_ line: String) {
        if file == nil { begin() }
        guard let file else { return }
        fputs(line + "\n", file)
        fflush(file)
        entries += 1
    }

    /// Whether anything was logged: before the summary, whether anything was lost.
    /// - Thread: writer
    /// - Realtime: safe
    var hasEntries: Bool { entries > 0 }
}
