import Chains
import Engine
import MIDI
import Sessions

/// Everything the play screen shows, gathered once per refresh on the control thread.
public struct PlayStatus {
    public var settings: VoiceSettings
    public var outputPeakDB: [Float]
    public var limiterReductionDB: Float
    public var xruns: Int
    /// The session state and its reason ("running", "INTERRUPTED: …").
    public var state: String
    /// The last thing the session said (a device appeared, an xrun storm…).
    public var notice: String?
    /// What the user can do now, when audio is off.
    public var hint: String?
    public var latency: String
    public var device: String
    public var seconds: Double
    public var instruments: String
    /// The computer keyboard's channel's instrument ("channel 1: Yamaha Grand Piano (bank 0 program 0)").
    public var instrument: String?
    public var sources: String
    public var notices: [String]
    /// Piano keys shown as pressed (held now, or struck since the last refresh).
    public var pressedNotes: Set<Int>
    public var keyboardLowerC: Int
    public var noteStyle: NoteName.Style
    public var legend: [String]
    /// Pads: (key, name, note, lit).
    public var pads: [(key: String, name: String, lit: Bool)]
    public var samplerVoices: Int
    public var polyphony: Int
    public var drumVoices: Int?
    public var midiMessages: Int
    public var droppedMessages: Int
    public var watchdogReleases: Int
    public var song: String?
    /// The take's indicator (`● REC 00:12 …`) or the last word about takes; nil when none.
    public var recording: String? = nil
    /// The DSP load over the last second of audio; nil before a second has been rendered and while nothing renders.
    public var dspLoad: RenderLoadMeter.Reading? = nil
    /// What the session said to the last key (why it could do nothing here); nil: nothing to say.
    public var message: String? = nil

    /// One line for `--no-tui`, printed every second.
    public var statusLine: String {
        func db(_ x: Float) -> String { x.isFinite ? String(format: "%.1f", x) : "-inf" }
        return "[\(String(format: "%6.1f", seconds)) s] \(state)"
            + " · voices \(samplerVoices)" + (drumVoices.map { " + drums \($0)" } ?? "")
            + " · MIDI \(midiMessages)"
            + " · out \(outputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · vol \(String(format: "%.2f", settings.volume))"
            + " · xruns \(xruns)"
            + (dspLoad.map { " · \($0.description)" } ?? "")
            + (song.map { " · \($0)" } ?? "")
            + (recording.map { " · \($0)" } ?? "")
    }
}
