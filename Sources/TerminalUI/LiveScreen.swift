import Foundation
import Loudness

/// Draws the live screen: a big ON/OFF, every strip's meter with the input
/// channel(s) it reads, the output meters with the short-term loudness, the selected strip's controls and
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
        ("l", "learn MIDI"),
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

    /// The screen for a terminal of `columns` × `rows`. Everything is laid out
    /// to fit: the key help and the strip's controls wrap between items, the
    /// big MIC sign takes one line instead of three below 30 rows, and when
    /// rows are still short the tip, the spacers and the notice go first (in
    /// that order); the meters, the keys and learn mode's prompt stay.
    public static func draw(_ s: LiveStatus, columns: Int, rows: Int = 24) -> String {
        let reset = "\u{1B}[0m", bold = "\u{1B}[1m", dim = "\u{1B}[2m"
        let onStyle = "\u{1B}[1;30;42m", offStyle = "\u{1B}[1;37;41m"
        let width = max(20, columns - 1)
        var head: [String] = []
        head.append("\(bold)BUSKER LIVE\(reset)  \(dim)\(s.devices)\(reset)")
        // Rate, period, round trip, the clock correction (two clocks), xruns and the DSP load:
        // wrapped between items.
        let timing = (s.latency.components(separatedBy: " · ") + ["xruns \(s.xruns)"] + (s.dspLoad.map { [$0.description] } ?? []))
            .map { "\(dim)\($0)\(reset)" }
        head += wrap(timing, width: width + 2).map { String($0.dropFirst(2)) }
        let stateStyle = s.state == "running" ? "\u{1B}[32m" : "\u{1B}[1;33m"
        head.append("state \(stateStyle)\(s.state)\(reset)" + (s.hint.map { "  \(dim)\($0)\(reset)" } ?? ""))
        let notice = s.notice.map { "\(dim)\($0)\(reset)" }

        let label = s.micOn ? "   MIC  ON   " : "   MIC  OFF  "
        let style = s.micOn ? onStyle : offStyle
        let action = "press space to turn the mic \(s.micOn ? "off" : "on")"
        var mic: [String]
        if rows >= 30 {
            let pad = String(repeating: " ", count: label.count)
            mic = ["  \(style)\(pad)\(reset)", "  \(style)\(label)\(reset)   \(action)", "  \(style)\(pad)\(reset)",
                   recordingLine(s.recording)]
        } else {
            mic = ["  \(style)\(label)\(reset)   \(action)" + "   " + recordingLine(s.recording).dropFirst(2)]
            if ANSIText.visibleWidth(mic[0]) > width { mic = ["  \(style)\(label)\(reset)   \(action)", recordingLine(s.recording)] }
        }

        var meters: [String] = []
        // Each strip's meter is labelled with the channel(s) it reads; ▸ marks the selected strip, M a muted one.
        let stripLabels = s.strips.map { strip in
            (strip.selected && s.strips.count > 1 ? "▸" : " ") + "\(strip.number) \(strip.source)" + (strip.settings.mute ? " M" : "")
        }
        let labelWidth = max(6, stripLabels.map(\.count).max() ?? 6)
        // The two-column indent, label, space, bar, space and "  -inf dBFS" (11).
        let barWidth = max(10, min(72, width - labelWidth - 15))
        for (strip, label) in zip(s.strips, stripLabels) {
            meters.append(meterLine(label: label.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: strip.peakDB, width: barWidth))
        }
        for (c, db) in s.outputPeakDB.enumerated() {
            let side = s.outputPeakDB.count == 1 ? " out" : c == 0 ? " out L" : " out R"
            meters.append(meterLine(label: side.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: db, width: barWidth))
        }
        // The output's short-term loudness, under its meters, where the bars start.
        if let lufs = s.shortTermLUFS {
            meters.append("  " + String(repeating: " ", count: labelWidth) + " \(bold)S \(LoudnessReport.format(lufs)) LUFS\(reset)"
                          + "  \(dim)short-term loudness, last 3 s (EBU R 128)\(reset)")
        }

        var guardLine: String
        if !s.howl.enabled {
            guardLine = "  \u{1B}[33mhowl guard OFF\(reset) (h turns it on)"
        } else if s.howl.feedbackWarning {
            guardLine = "  \u{1B}[1;37;41m \(s.howl.summary) \(reset)"
        } else if !s.howl.summary.isEmpty {
            guardLine = "  \(dim)howl guard: \(s.howl.summary)\(reset)"
        } else {
            guardLine = "  \(dim)howl guard on, no feedback\(reset)"
        }
        if s.limiterReductionDB > 0.1 { guardLine += "   limiter −\(String(format: "%.1f", s.limiterReductionDB)) dB" }

        var controls: [String] = []
        let bus = s.settings
        controls += wrap(["\(bold)bus\(reset):", "volume \(bold)\(String(format: "%.2f", bus.volume))\(reset)",
                          "room \(bold)\(bus.room.rawValue)\(reset)", "howl guard \(bold)\(bus.howlGuard ? "on" : "off")\(reset)"],
                         width: width)
        if s.strips.indices.contains(s.selectedStrip) {
            let strip = s.strips[s.selectedStrip], v = strip.settings
            var items = ["\(bold)\(strip.label)\(reset):", "gain \(bold)\(signed(v.gainDB)) dB\(reset)", "pan \(bold)\(panText(v.pan))\(reset)",
                         v.mute ? "\u{1B}[1;31mMUTED\(reset)" : "mute off", "boost \(bold)\(signed(v.boostDB)) dB\(reset)",
                         "bass \(bold)\(signed(v.bassDB)) dB\(reset)", "treble \(bold)\(signed(v.trebleDB)) dB\(reset)",
                         "reverb \(bold)\(Int(v.reverbSendPercent)) %\(reset)",
                         "gate \(bold)\(v.noiseGate ? "on" : "off")\(reset)", "compressor \(bold)\(v.compressor ? "on" : "off")\(reset)",
                         "voice processing \(bold)\(v.voiceProcessing ? "on" : strip.voiceProcessingAvailable ? "off" : "not loaded")\(reset)"]
            if !strip.cleanUpActivity.isEmpty { items.append("\(dim)\(strip.cleanUpActivity)\(reset)") }
            controls += wrap(items, width: width)
        }

        let keys = wrap(["\(bold)keys\(reset):"] + keyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }, width: width)
            + wrap(["\(bold)strip\(reset):"] + stripKeyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }, width: width)
        // The preset prompt or what a save said takes the tip's place, and always shows.
        let tip = s.bottomLine.map { [$0] } ?? ["  \(dim)Tip: start low and turn up slowly; keep the mic away from the speaker\(reset)"]
        // MIDI: what learn mode waits for (must show), else the mapping or the last action.
        let midiLine = s.midi.map { "  " + (s.learning ? "\u{1B}[1;33m\($0)\(reset)" : "\(dim)\($0)\(reset)") }

        // What must be on screen, then what may go, least needed first.
        let essential = head.count + mic.count + meters.count + 1 + controls.count + keys.count
            + (s.bottomLine == nil ? 0 : 1) + (s.learning ? 1 : 0)
        var spare = rows - essential
        func take(_ count: Int) -> Bool {
            guard spare >= count else { return false }
            spare -= count
            return true
        }
        let showNotice = notice != nil && take(1)
        let showMIDI = midiLine != nil && (s.learning || take(1))
        let showSpacers = take(2)
        let showTip = s.bottomLine != nil || take(tip.count)
        var lines = head
        if showNotice, let notice { lines.append(notice) }
        lines += mic + meters + [guardLine] + controls
        if showMIDI, let midiLine { lines.append(midiLine) }
        if showSpacers { lines.append("") }
        lines += keys
        if showSpacers { lines.append("") }
        if showTip { lines += tip }
        return "\u{1B}[H" + lines.map { ANSIText.clip($0, columns: columns) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }

    /// Packs `items` into lines no wider than `width` visible columns, two
    /// spaces between items and two at the start of each line; an item never
    /// splits (one longer than a line is clipped when drawn).
    static func wrap(_ items: [String], width: Int) -> [String] {
        var lines: [String] = []
        var line = "", used = 0
        for item in items {
            let w = ANSIText.visibleWidth(item)
            if used > 0 && used + 2 + w > width {
                lines.append(line)
                line = ""
                used = 0
            }
            line += "  " + item
            used += 2 + w
        }
        if used > 0 { lines.append(line) }
        return lines
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
