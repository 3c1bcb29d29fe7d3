import AudioCore

/// Everything the live screen and the headless status line show, gathered
/// once per refresh on the control thread.
struct LiveStatus {
    var micOn: Bool
    var settings: VoiceSettings
    var inputPeakDB: [Float]
    var outputPeakDB: [Float]
    var outputRMSDB: [Float]
    var limiterReductionDB: Float
    /// The howl guard: FEEDBACK warning, notches, emergency gain.
    var howl: HowlGuardStatus
    var xruns: Int
    var state: String
    var latency: String
    var devices: String
    var seconds: Double

    /// One line for `--no-tui`, printed every second.
    var statusLine: String {
        func db(_ x: Float) -> String { x.isFinite ? String(format: "%.1f", x) : "-inf" }
        return "[\(String(format: "%6.1f", seconds)) s] \(state) mic \(micOn ? "ON" : "OFF")"
            + " · in \(inputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · out \(outputPeakDB.map(db).joined(separator: "/")) dBFS"
            + " · vol \(String(format: "%.2f", settings.volume))"
            + " · xruns \(xruns)"
            + (howl.summary.isEmpty ? "" : " · \(howl.summary)")
    }
}

import Foundation
