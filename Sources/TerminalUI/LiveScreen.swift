import Foundation

/// Draws the live screen: a big ON/OFF, every strip's meter with the input
/// channel(s) it reads, the output meters, the selected strip's controls and
/// the bus's, every key, the granted latency, xruns and a safety tip. Pure text with ANSI colours,
/// redrawn in place; no ncurses needed.
public enum LiveScreen {
    /// The bus keys and the session's.
    public static let keyHelp: [(String, String)] = [
        ("space", "mic on/off"),
        ("tab 1-9", "strip"),
        ("↑ ↓", "volume"),
        ("m", "room"),
        ("h", "howl guard"),
        ("^R", "record"),
        ("w", "save preset"),
        ("q", "quit"),
    ]

    /// The keys that act on the selected strip.
    public static let stripKeyHelp: [(String, String)] = [
        ("i I", "gain −/+"),
        ("p P", "pan L/R"),
        ("x", "mute"),
        ("b B", "bass −/+"),
        ("t T", "treble −/+"),
        ("g G", "boost −/+"),
        ("r R", "reverb send −/+"),
        ("n", "gate"),
        ("c", "compressor"),
        ("v", "voice processing"),
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
        // Each strip's meter is labelled with the channel(s) it reads; ▸ marks the selected strip, M a muted one.
        let stripLabels = s.strips.map { strip in
            (strip.selected && s.strips.count > 1 ? "▸" : " ") + "\(strip.number) \(strip.source)" + (strip.settings.mute ? " M" : "")
        }
        let labelWidth = max(5, stripLabels.map(\.count).max() ?? 5)
        for (strip, label) in zip(s.strips, stripLabels) {
            lines.append(meterLine(label: label.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: strip.peakDB, width: width))
        }
        for (c, db) in s.outputPeakDB.enumerated() {
            let side = s.outputPeakDB.count == 1 ? "out" : c == 0 ? "out L" : "out R"
            lines.append(meterLine(label: side.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: db, width: width))
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
        let bus = s.settings
        lines.append("  bus: volume \(bold)\(String(format: "%.2f", bus.volume))\(reset)   room \(bold)\(bus.room.rawValue)\(reset)"
                     + "   howl guard \(bold)\(bus.howlGuard ? "on" : "off")\(reset)")
        if s.strips.indices.contains(s.selectedStrip) {
            let strip = s.strips[s.selectedStrip], v = strip.settings
            lines.append("  \(bold)\(strip.label)\(reset): gain \(bold)\(signed(v.gainDB)) dB\(reset)   pan \(bold)\(panText(v.pan))\(reset)"
                         + "   \(v.mute ? "\u{1B}[1;31mMUTED\(reset)" : "mute off")   boost \(bold)\(signed(v.boostDB)) dB\(reset)"
                         + "   bass \(bold)\(signed(v.bassDB)) dB\(reset)   treble \(bold)\(signed(v.trebleDB)) dB\(reset)"
                         + "   reverb \(bold)\(Int(v.reverbSendPercent)) %\(reset)")
            lines.append("  gate \(bold)\(v.noiseGate ? "on" : "off")\(reset)   compressor \(bold)\(v.compressor ? "on" : "off")\(reset)"
                         + "   voice processing \(bold)\(v.voiceProcessing ? "on" : strip.voiceProcessingAvailable ? "off" : "not loaded")\(reset)"
                         + (strip.cleanUpActivity.isEmpty ? "" : "   \(dim)\(strip.cleanUpActivity)\(reset)"))
        }
        lines.append("")
        lines.append("  " + keyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }.joined(separator: "  "))
        lines.append("  strip: " + stripKeyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }.joined(separator: "  "))
        lines.append("")
        if let bottom = s.bottomLine {
            lines.append(bottom)
        } else {
            lines.append("  \(dim)Tip: start low and turn up slowly; use headphones, or keep the mic away from")
            lines.append("  the speaker, to avoid feedback (howling).\(reset)")
        }
        return "\u{1B}[H" + lines.map { ANSIText.clip($0, columns: columns) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }

    /// The REC indicator in red while a take runs, else the last word about takes, else the key.
    public static func recordingLine(_ text: String?) -> String {
        guard let text else { return "  \u{1B}[2mCtrl-R records a take\u{1B}[0m" }
        return text.hasPrefix("●") || text.hasPrefix("REC FAILED") ? "  \u{1B}[1;31m\(text)\u{1B}[0m" : "  \(text)"
    }

    /// "C", "L 40", "R 100": how far from the centre, in percent.
    private static func panText(_ pan: Float) -> String {
        let percent = Int((abs(pan) * 100).rounded())
        return percent == 0 ? "C" : (pan < 0 ? "L \(percent)" : "R \(percent)")
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
