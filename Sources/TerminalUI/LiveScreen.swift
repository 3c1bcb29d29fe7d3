import Foundation

/// Draws the live screen: a big ON/OFF, meters, every control with its key,
/// the granted latency, xruns and a safety tip. Pure text with ANSI colours,
/// redrawn in place; no ncurses needed.
public enum LiveScreen {
    public static let keyHelp: [(String, String)] = [
        ("space", "mic on/off"),
        ("↑ ↓", "volume"),
        ("b B", "bass −/+"),
        ("t T", "treble −/+"),
        ("g G", "boost −/+"),
        ("r R", "reverb −/+"),
        ("m", "room"),
        ("n", "gate"),
        ("c", "compressor"),
        ("v", "voice processing"),
        ("h", "howl guard"),
        ("^R", "record"),
        ("q", "quit"),
    ]

    public static func draw(_ s: LiveStatus, columns: Int) -> String {
        let reset = "\u{1B}[0m", bold = "\u{1B}[1m", dim = "\u{1B}[2m"
        let onStyle = "\u{1B}[1;30;42m", offStyle = "\u{1B}[1;37;41m"
        var lines: [String] = []
        lines.append("\(bold)BUSKER LIVE\(reset)  \(dim)\(s.devices)\(reset)")
        lines.append("\(dim)\(s.latency) · xruns \(s.xruns)\(reset)")
        let stateStyle = s.state == "running" ? "\u{1B}[32m" : "\u{1B}[1;33m"
        lines.append("state \(stateStyle)\(s.state)\(reset)" + (s.hint.map { "  \(dim)\($0)\(reset)" } ?? ""))
        lines.append(s.notice.map { "\(dim)\($0)\(reset)" } ?? "")
        let label = s.micOn ? "   MIC  ON   " : "   MIC  OFF  "
        let style = s.micOn ? onStyle : offStyle
        let pad = String(repeating: " ", count: label.count)
        lines.append("  \(style)\(pad)\(reset)")
        lines.append("  \(style)\(label)\(reset)   press space to turn the mic \(s.micOn ? "off" : "on")")
        lines.append("  \(style)\(pad)\(reset)")
        lines.append(recordingLine(s.recording))
        let width = max(10, min(50, columns - 30))
        for (c, db) in s.inputPeakDB.enumerated() {
            lines.append(meterLine(label: s.inputPeakDB.count > 1 ? "in \(c + 1) " : "in   ", db: db, width: width))
        }
        for (c, db) in s.outputPeakDB.enumerated() {
            lines.append(meterLine(label: c == 0 ? "out L" : "out R", db: db, width: width))
        }
        if s.limiterReductionDB > 0.1 {
            lines.append("  limiter −\(String(format: "%.1f", s.limiterReductionDB)) dB")
        } else {
            lines.append("")
        }
        if !s.howl.enabled {
            lines.append("  \u{1B}[33mhowl guard OFF\(reset) (h turns it on)")
        } else if s.howl.feedbackWarning {
            lines.append("  \u{1B}[1;37;41m \(s.howl.summary) \(reset)")
        } else if !s.howl.summary.isEmpty {
            lines.append("  \(dim)howl guard: \(s.howl.summary)\(reset)")
        } else {
            lines.append("  \(dim)howl guard on, no feedback\(reset)")
        }
        let v = s.settings
        lines.append("  volume \(bold)\(String(format: "%.2f", v.volume))\(reset)   boost \(bold)\(signed(v.boostDB)) dB\(reset)"
                     + "   bass \(bold)\(signed(v.bassDB)) dB\(reset)   treble \(bold)\(signed(v.trebleDB)) dB\(reset)"
                     + "   reverb \(bold)\(Int(v.reverbPercent)) %\(reset) (\(v.room.rawValue))")
        lines.append("  gate \(bold)\(v.noiseGate ? "on" : "off")\(reset)   compressor \(bold)\(v.compressor ? "on" : "off")\(reset)"
                     + "   voice processing \(bold)\(v.voiceProcessing ? "on" : "off")\(reset)"
                     + (s.cleanUpActivity.isEmpty ? "" : "   \(dim)\(s.cleanUpActivity)\(reset)"))
        lines.append("")
        lines.append("  " + keyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }.joined(separator: "  "))
        lines.append("")
        lines.append("  \(dim)Tip: start low and turn up slowly; use headphones, or keep the mic away from")
        lines.append("  the speaker, to avoid feedback (howling).\(reset)")
        return "\u{1B}[H" + lines.map { ANSIText.clip($0, columns: columns) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }

    /// The REC indicator in red while a take runs, else the last word about takes, else the key.
    public static func recordingLine(_ text: String?) -> String {
        guard let text else { return "  \u{1B}[2mCtrl-R records a take\u{1B}[0m" }
        return text.hasPrefix("●") || text.hasPrefix("REC FAILED") ? "  \u{1B}[1;31m\(text)\u{1B}[0m" : "  \(text)"
    }

    private static func signed(_ x: Float) -> String {
        x >= 0 ? "+\(Int(x.rounded()))" : "\(Int(x.rounded()))"
    }

    /// A bar from −60 to 0 dBFS: green, yellow above −12, red above −3.
    private static func meterLine(label: String, db: Float, width: Int) -> String {
        let clamped = db.isFinite ? min(0, max(-60, db)) : -60
        let filled = Int(((clamped + 60) / 60) * Float(width))
        var bar = ""
        for i in 0..<width {
            let levelDB = Float(i) / Float(width) * 60 - 60
            let colour = levelDB > -3 ? "\u{1B}[31m" : levelDB > -12 ? "\u{1B}[33m" : "\u{1B}[32m"
            bar += i < filled ? colour + "█" : "\u{1B}[2m·"
        }
        let text = db.isFinite && db > -100 ? String(format: "%6.1f dBFS", db) : "  -inf dBFS"
        return "  \(label) \(bar)\u{1B}[0m \(text)"
    }
}
