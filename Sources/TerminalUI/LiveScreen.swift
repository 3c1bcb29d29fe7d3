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

    /// The stage's keys, beside the bus keys on a stage: the mode key and the song's transport.
    public static let stageKeyHelp: [(String, String)] = [
        ("`", "keys mode"),
        ("s", "song play/pause"),
        ("Enter", "song to the top"),
    ]

    /// The keys that act on a selected stage part (keys, drums, song).
    public static let partKeyHelp: [(String, String)] = [
        ("i I", "level −/+"),
        ("p P", "pan L/R"),
        ("x", "mute"),
        ("o", "solo"),
        ("r R", "reverb send −/+"),
    ]

    /// Keys mode's keys: the computer keyboard plays the keys part as in
    /// `busker play`; q is a note here, so the mode key leads back to where q quits.
    public static let keysModeHelp: [(String, String)] = [
        ("`", "control keys (q quits there)"),
        ("z…/ q…p", "notes"),
        ("1…=", "drum pads"),
        ("[ ]", "octave"),
        ("space", "mic on/off"),
        ("↑ ↓", "volume"),
        ("^R", "record"),
    ]

    /// The screen for a terminal of `columns` × `rows`. Everything is laid out
    /// to fit: the key help and the strip's controls wrap between items, long
    /// messages (the session's notice, the take's line, MIDI and OSC, what a
    /// key or a preset save said) wrap between words with the take's path
    /// shortened from the left, the big MIC sign takes one line instead of
    /// three below 30 rows, and when rows are still short whole blocks go,
    /// least needed first (`ScreenLayout`): the tip, the spacers, the
    /// loudness, the timing, the MIDI and OSC line, the bus's controls, the selected strip's; the title, the state,
    /// the MIC sign, the keyboard's mode, the meters (every mic strip, every
    /// stage part, the output) with the song's position, the keys with quit,
    /// the prompt and the message stay. In keys mode the keys played replace
    /// the controls and the control keys.
    public static func draw(_ s: LiveStatus, columns: Int, rows: Int = 24) -> String {
        layout(s, columns: columns, rows: rows).draw(columns: columns, rows: rows)
    }

    /// How much each block is needed: the higher, the later it goes on a short terminal.
    enum Rank {
        static let title = 100, state = 98, keys = 96, mic = 94, mode = 93, prompt = 92, message = 90, meters = 88,
                   song = 87, recording = 86, notice = 84, stripKeys = 80, guardLine = 70, controls = 60, busControls = 59,
                   remote = 58,
                   legend = 55,
                   timing = 50, loudness = 45, spacer = 10, tip = 0
    }

    private static let reset = "\u{1B}[0m", bold = "\u{1B}[1m", dim = "\u{1B}[2m"

    static func layout(_ s: LiveStatus, columns: Int, rows: Int) -> ScreenLayout {
        let width = max(20, columns - 1)
        var screen = ScreenLayout()
        addHeader(s, width: width, to: &screen)
        addMicSign(s, width: width, rows: rows, to: &screen)
        if let mode = s.keysMode { screen.add(modeLine(mode, width: width), rank: Rank.mode) }
        addMeters(s, width: width, to: &screen)
        if let song = s.song { screen.add("  \(bold)\(song)\(reset)", rank: Rank.song) }
        screen.add(guardLine(s), rank: Rank.guardLine)
        if let mode = s.keysMode, mode.on {
            screen.add(mode.legend.map { "  \(dim)\($0)\(reset)" }, rank: Rank.legend)
        } else {
            addControls(s, width: width, to: &screen)
        }
        // MIDI and OSC: what learn mode waits for (must show), else the mapping or the last action.
        if let midi = s.midi {
            screen.add(messageLines(midi, width: width, style: s.learning ? "\u{1B}[1;33m" : dim),
                       rank: s.learning ? Rank.prompt : Rank.remote)
        }
        // What the last key or save said, and the preset prompt.
        if let text = s.message { screen.add(messageLines(text, width: width, style: "\u{1B}[1;33m"), rank: Rank.message) }
        if let prompt = s.bottomLine { screen.add(prompt, rank: Rank.prompt) }
        addKeys(s, width: width, to: &screen)
        return screen
    }

    /// Which mode the computer keyboard is in: keys mode stands out, with
    /// the octave and the MIDI events the keys part has had.
    private static func modeLine(_ mode: KeysModeStatus, width: Int) -> String {
        guard mode.on else { return "  \(dim)control keys · ` plays the instruments from the keyboard\(reset)" }
        return "  \u{1B}[1;30;43m KEYS MODE \(reset) \(bold)the keyboard plays\(reset) · octave \(mode.octave)"
            + " · MIDI events \(mode.midiEvents) · \(bold)`\(reset) back"
    }

    /// The title, the timing line, the state and the session's notice.
    private static func addHeader(_ s: LiveStatus, width: Int, to screen: inout ScreenLayout) {
        screen.add("\(bold)BUSKER LIVE\(reset)  \(dim)\(s.devices)\(reset)", rank: Rank.title)
        // Rate, period, round trip, the clock correction (two clocks), xruns and the DSP load:
        // wrapped between items.
        let timing = (s.latency.components(separatedBy: " · ") + ["xruns \(s.xruns)"] + (s.dspLoad.map { [$0.description] } ?? []))
            .map { "\(dim)\($0)\(reset)" }
        screen.add(wrap(timing, width: width + 2).map { String($0.dropFirst(2)) }, rank: Rank.timing)
        let stateStyle = s.state == "running" ? "\u{1B}[32m" : "\u{1B}[1;33m"
        screen.add(messageLines("state " + s.state + (s.hint.map { "  " + $0 } ?? ""), width: width, style: stateStyle, indent: ""),
                   rank: Rank.state)
        if let notice = s.notice { screen.add(messageLines(notice, width: width, style: dim, indent: ""), rank: Rank.notice) }
    }

    /// The big MIC sign (three lines from 30 rows, else one) and the take's line,
    /// beside the one-line sign when it fits.
    private static func addMicSign(_ s: LiveStatus, width: Int, rows: Int, to screen: inout ScreenLayout) {
        let label = s.micOn ? "   MIC  ON   " : "   MIC  OFF  "
        let style = s.micOn ? "\u{1B}[1;30;42m" : "\u{1B}[1;37;41m"
        let action = "press space to turn the mic \(s.micOn ? "off" : "on")"
        let recording = recordingLines(s.recording, width: width)
        if rows >= 30 {
            let pad = String(repeating: " ", count: label.count)
            screen.add(["  \(style)\(pad)\(reset)", "  \(style)\(label)\(reset)   \(action)", "  \(style)\(pad)\(reset)"], rank: Rank.mic)
            screen.add(recording, rank: Rank.recording)
            return
        }
        let sign = "  \(style)\(label)\(reset)   \(action)"
        if recording.count == 1, ANSIText.visibleWidth(sign) + 1 + ANSIText.visibleWidth(recording[0]) <= width {
            screen.add(sign + " " + recording[0], rank: Rank.mic)
        } else {
            screen.add(sign, rank: Rank.mic)
            screen.add(recording, rank: Rank.recording)
        }
    }

    /// Every strip's meter, the output meters and the short-term loudness under them.
    private static func addMeters(_ s: LiveStatus, width: Int, to screen: inout ScreenLayout) {
        var meters: [String] = []
        // Each strip's meter is labelled with the channel(s) it reads; ▸ marks the selected strip, M a muted one.
        let choice = s.strips.count + s.parts.count > 1
        let stripLabels = s.strips.map { strip in
            (strip.selected && choice ? "▸" : " ") + "\(strip.number) \(strip.source)" + (strip.settings.mute ? " M" : "")
        }
        // A part's meter is labelled with its name; M a muted part, S a soloed one.
        let partLabels = s.parts.map { part in
            (part.selected ? "▸" : " ") + part.name + (part.settings.mute ? " M" : "") + (part.settings.solo ? " S" : "")
        }
        let labelWidth = max(6, (stripLabels + partLabels).map(\.count).max() ?? 6)
        // The two-column indent, label, space, bar, space and "  -inf dBFS" (11).
        let barWidth = max(10, min(72, width - labelWidth - 15))
        for (strip, label) in zip(s.strips, stripLabels) {
            meters.append(meterLine(label: label.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: strip.peakDB, width: barWidth))
        }
        for (part, label) in zip(s.parts, partLabels) {
            meters.append(meterLine(label: label.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: part.peakDB, width: barWidth))
        }
        for (c, db) in s.outputPeakDB.enumerated() {
            let side = s.outputPeakDB.count == 1 ? " out" : c == 0 ? " out L" : " out R"
            meters.append(meterLine(label: side.padding(toLength: labelWidth, withPad: " ", startingAt: 0), db: db, width: barWidth))
        }
        screen.add(meters, rank: Rank.meters)
        // The output's short-term loudness, under its meters, where the bars start.
        if let lufs = s.shortTermLUFS {
            screen.add("  " + String(repeating: " ", count: labelWidth) + " \(bold)S \(LoudnessReport.format(lufs)) LUFS\(reset)"
                       + "  \(dim)short-term loudness, last 3 s (EBU R 128)\(reset)", rank: Rank.loudness)
        }
    }

    /// The bus's controls and the selected strip's or part's.
    private static func addControls(_ s: LiveStatus, width: Int, to screen: inout ScreenLayout) {
        let bus = s.settings
        screen.add(wrap(["\(bold)bus\(reset):", "volume \(bold)\(String(format: "%.2f", bus.volume))\(reset)",
                         "room \(bold)\(bus.room.rawValue)\(reset)", "howl guard \(bold)\(bus.howlGuard ? "on" : "off")\(reset)"],
                        width: width), rank: Rank.busControls)
        if let index = s.selectedPart {
            let part = s.parts[index], v = part.settings
            screen.add(wrap(["\(bold)\(part.name)\(reset):", "level \(bold)\(signed(v.levelDB)) dB\(reset)", "pan \(bold)\(panText(v.pan))\(reset)",
                             v.mute ? "\u{1B}[1;31mMUTED\(reset)" : "mute off", v.solo ? "\u{1B}[1;33mSOLO\(reset)" : "solo off",
                             "reverb \(bold)\(Int(v.reverbSendPercent)) %\(reset)"], width: width), rank: Rank.controls)
            return
        }
        guard s.strips.indices.contains(s.selectedStrip) else { return }
        let strip = s.strips[s.selectedStrip], v = strip.settings
        var items = ["\(bold)\(strip.label)\(reset):", "gain \(bold)\(signed(v.gainDB)) dB\(reset)", "pan \(bold)\(panText(v.pan))\(reset)",
                     v.mute ? "\u{1B}[1;31mMUTED\(reset)" : "mute off", "boost \(bold)\(signed(v.boostDB)) dB\(reset)",
                     "bass \(bold)\(signed(v.bassDB)) dB\(reset)", "treble \(bold)\(signed(v.trebleDB)) dB\(reset)",
                     "reverb \(bold)\(Int(v.reverbSendPercent)) %\(reset)",
                     "gate \(bold)\(v.noiseGate ? "on" : "off")\(reset)", "compressor \(bold)\(v.compressor ? "on" : "off")\(reset)",
                     "voice processing \(bold)\(v.voiceProcessing ? "on" : strip.voiceProcessingAvailable ? "off" : "not loaded")\(reset)"]
        if !strip.cleanUpActivity.isEmpty { items.append("\(dim)\(strip.cleanUpActivity)\(reset)") }
        screen.add(wrap(items, width: width), rank: Rank.controls)
    }

    /// The key help (on a stage with its keys, in keys mode the keys that
    /// play), the selected strip's or part's keys and the safety tip, with spacers.
    private static func addKeys(_ s: LiveStatus, width: Int, to screen: inout ScreenLayout) {
        func items(_ help: [(String, String)]) -> [String] { help.map { "\(bold)\($0.0)\(reset) \($0.1)" } }
        screen.add("", rank: Rank.spacer)
        if let mode = s.keysMode, mode.on {
            screen.add(wrap(["\(bold)keys mode\(reset):"] + items(keysModeHelp), width: width), rank: Rank.keys)
        } else {
            screen.add(wrap(["\(bold)keys\(reset):"] + items(keyHelp + (s.keysMode == nil ? [] : stageKeyHelp)), width: width),
                       rank: Rank.keys)
            if s.selectedPart != nil {
                screen.add(wrap(["\(bold)part\(reset):"] + items(partKeyHelp), width: width), rank: Rank.stripKeys)
            } else {
                screen.add(wrap(["\(bold)strip\(reset):"] + items(stripKeyHelp), width: width), rank: Rank.stripKeys)
            }
        }
        screen.add("", rank: Rank.spacer)
        screen.add("  \(dim)Tip: start low and turn up slowly; keep the mic away from the speaker\(reset)", rank: Rank.tip)
    }

    /// The howl guard's state and the limiter's reduction.
    private static func guardLine(_ s: LiveStatus) -> String {
        var line: String
        if !s.howl.enabled {
            line = "  \u{1B}[33mhowl guard OFF\(reset) (h turns it on)"
        } else if s.howl.feedbackWarning {
            line = "  \u{1B}[1;37;41m \(s.howl.summary) \(reset)"
        } else if !s.howl.summary.isEmpty {
            line = "  \(dim)howl guard: \(s.howl.summary)\(reset)"
        } else {
            line = "  \(dim)howl guard on, no feedback\(reset)"
        }
        if s.limiterReductionDB > 0.1 { line += "   limiter −\(String(format: "%.1f", s.limiterReductionDB)) dB" }
        return line
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

    /// `recordingLine` fitted to `width`: the take's path (after "→") shortened
    /// from the left to keep the indicator on one line, any other long word
    /// about takes wrapped between words.
    public static func recordingLines(_ text: String?, width: Int) -> [String] {
        guard let text else { return [recordingLine(nil)] }
        let fitted = ScreenText.fitted(text, width: width - 2, pathAfter: "→ ")
        let style = text.hasPrefix("●") || text.hasPrefix("REC FAILED") ? "\u{1B}[1;31m" : ""
        return messageLines(fitted, width: width, style: style)
    }

    /// `text` in `style`, wrapped between words at `width` (`ScreenText.wrap`),
    /// the first line after `indent` and the others two columns further in.
    static func messageLines(_ text: String, width: Int, style: String, indent: String = "  ") -> [String] {
        ScreenText.wrap(text, width: width, indent: indent, continuation: indent + "  ").map { line in
            let body = line.drop { $0 == " " }
            return String(line.prefix(line.count - body.count)) + style + body + "\u{1B}[0m"
        }
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
