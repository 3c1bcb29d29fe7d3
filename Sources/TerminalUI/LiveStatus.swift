import Chains
import Engine
import FeedbackGuard
import Foundation
import Loudness
import Sessions
import Session

/// Everything the live screen and the headless status line show, gathered
/// once per refresh on the control thread.
public struct LiveStatus {
    public var micOn: Bool
    /// Every strip's and the bus's settings, as applied.
    public var settings: LiveSettings
    /// Every strip: its input channel(s), meter, settings, whether selected.
    public var strips: [StripStatus]
    /// The strip the strip keys act on, 0-based into `strips`.
    public var selectedStrip: Int
    public var outputPeakDB: [Float]
    public var outputRMSDB: [Float]
    public var limiterReductionDB: Float
    /// The howl guard: FEEDBACK warning, notches, emergency gain.
    public var howl: HowlGuardStatus
    public var xruns: Int
    /// The session state and its reason ("running", "INTERRUPTED: …").
    public var state: String
    /// The last thing the session said (a device appeared, an xrun storm…).
    public var notice: String?
    /// What the user can do now, when audio is off.
    public var hint: String?
    public var latency: String
    public var devices: String
    public var seconds: Double
    /// The take's indicator (`● REC 00:12 …`) or the last word about takes; nil when none.
    public var recording: String? = nil
    /// MIDI control: what learn mode waits for, else what MIDI did last; nil without MIDI or before any.
    public var midi: String? = nil
    /// Learn mode is waiting for the user (the MIDI line stands out).
    public var learning = false
    /// The preset name prompt; nil when not asking.
    public var bottomLine: String? = nil
    /// What the session said to the last key (a save, the quit question, why a key
    /// can do nothing here), wrapped onto the message line; nil: nothing to say.
    public var message: String? = nil
    /// Two clocks bridged: the drift and the latency held; nil with one clock.
    public var clockCorrection: ClockCorrection? = nil
    /// The output's short-term loudness (EBU R 128, last 3 s), LUFS; nil before any audio.
    public var shortTermLUFS: Double? = nil
    /// The DSP load over the last second of audio; nil before a second has been rendered and while nothing renders.
    public var dspLoad: RenderLoadMeter.Reading? = nil
    /// The stage's parts' strips (keys, drums, song); empty off a stage.
    public var parts: [PartStatus] = []
    /// The song's position and state ("song 12.3 / 95.0 s · playing"); nil without a song.
    public var song: String? = nil
    /// The keyboard's mode on a stage; nil off a stage (no keys mode).
    public var keysMode: KeysModeStatus? = nil
    /// The part the strip keys act on, 0-based into `parts`; nil: the mic strip `selectedStrip`.
    public var selectedPart: Int? {
        parts.firstIndex(where: \.selected)
    }

    public init(micOn: Bool, settings: LiveSettings, strips: [StripStatus], selectedStrip: Int,
                outputPeakDB: [Float], outputRMSDB: [Float], limiterReductionDB: Float, howl: HowlGuardStatus,
                xruns: Int, state: String, notice: String?, hint: String?, latency: String, devices: String,
                seconds: Double, recording: String? = nil, bottomLine: String? = nil) {
        self.bottomLine = bottomLine
        self.micOn = micOn
        self.settings = settings
        self.strips = strips
        self.selectedStrip = selectedStrip
        self.outputPeakDB = outputPeakDB
        self.outputRMSDB = outputRMSDB
        self.limiterReductionDB = limiterReductionDB
        self.howl = howl
        self.xruns = xruns
        self.state = state
        self.notice = notice
        self.hint = hint
        self.latency = latency
        self.devices = devices
        self.seconds = seconds
        self.recording = recording
    }

    /// One line for `--no-tui`, printed every second.
    public var statusLine: String {
        func db(_ x: Float) -> String { x.isFinite ? String(format: "%.1f", x) : "-inf" }
        return "[\(String(format: "%6.1f", seconds)) s] \(state) mic \(micOn ? "ON" : "OFF")"
            + strips.map { " · \($0.source) \(db($0.peakDB)) dBFS" }.joined()
            + parts.map { " · \($0.name) \(db($0.peakDB)) dBFS" }.joined()
            + (song.map { " · \($0)" } ?? "")
            + " · out \(outputPeakDB.map(db).joined(separator: "/")) dBFS"
            + (shortTermLUFS.map { " · S \(LoudnessReport.format($0)) LUFS" } ?? "")
            + " · vol \(String(format: "%.2f", settings.volume))"
            + " · xruns \(xruns)"
            + (dspLoad.map { " · \($0.description)" } ?? "")
            + (clockCorrection.map { " · \($0.compactDescription)" } ?? "")
            + (howl.summary.isEmpty ? "" : " · \(howl.summary)")
            + (recording.map { " · \($0)" } ?? "")
    }
}

