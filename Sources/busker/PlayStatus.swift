import AudioCore
import MIDI

/// Everything the play screen shows, gathered once per refresh on the control thread.
struct PlayStatus {
    var settings: VoiceSettings
    var outputPeakDB: [Float]
    var limiterReductionDB: Float
    var xruns: Int
    /// The session state and its reason ("running", "INTERRUPTED: …").
    var state: String
    /// The last thing the session said (a device appeared, an xrun storm…).
    var notice: String?
    /// What the user can do now, when audio is off.
    var hint: String?
    var latency: String
    var device: String
    var seconds: Double
    var instruments: String
    var sources: String
    var notices: [String]
    /// Piano keys shown as pressed (held now, or struck since the last refresh).
    var pressedNotes: Set<Int>
    var keyboardLowerC: Int
    var noteStyle: NoteName.Style
    var legend: [String]
    /// Pads: (key, name, note, lit).
    var pads: [(key: String, name: String, lit: Bool)]
    var samplerVoices: Int
    var polyphony: Int
    var drumVoices: Int?
    var midiMessages: Int
    var droppedMessages: Int
    var watchdogReleases: Int
    var song: String?
    /// The take's indicator (`● REC 00:12 …`) or the last word about takes; nil when none.
    var recording: String? = nil

    /// One line for `--no-tui`, printed every second.
    var statusLine: String {
        func db(_ x: Float) -> String { x.isFinite ? String(format: "%.1f", x) : "-inf" }
        return "[\(String(format: "%6.1f", seconds)) s] \(state)"
            + " · voices \(samplerVoices)" + (drumVoices.map { " + drums \($0)" } ?? "")
            + " · MIDI \(midiMessages)"
            + " · out \(outputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · vol \(String(format: "%.2f", settings.volume))"
            + " · xruns \(xruns)"
            + (song.map { " · \($0)" } ?? "")
            + (recording.map { " · \($0)" } ?? "")
    }
}
