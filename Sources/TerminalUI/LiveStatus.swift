import FeedbackGuard
import Foundation
import Rig

/// Everything the live screen and the headless status line show, gathered
/// once per refresh on the control thread.
public struct LiveStatus {
    public var micOn: Bool
    public var settings: VoiceSettings
    public var inputPeakDB: [Float]
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
    /// What the clean-up stages are doing now ("gate closed · compressor −4.1 dB"), empty when all are off.
    public var cleanUpActivity = ""
    /// The take's indicator (`● REC 00:12 …`) or the last word about takes; nil when none.
    public var recording: String? = nil

    /// One line for `--no-tui`, printed every second.
    public var statusLine: String {
        func db(_ x: Float) -> String { x.isFinite ? String(format: "%.1f", x) : "-inf" }
        return "[\(String(format: "%6.1f", seconds)) s] \(state) mic \(micOn ? "ON" : "OFF")"
            + " · in \(inputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · out \(outputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · vol \(String(format: "%.2f", settings.volume))"
            + " · xruns \(xruns)"
            + (howl.summary.isEmpty ? "" : " · \(howl.summary)")
            + (recording.map { " · \($0)" } ?? "")
    }
}

