import Foundation
import MIDI

/// Draws the play screen: the keyboard channel's instrument, the piano keyboard with pressed keys lit and the
/// octave labels in letters or solfège, the drum pads, which computer key
/// plays what, voices, MIDI activity, latency and xruns.
public enum PlayScreen {
    /// Quit first: on the narrowest screen it is still on the first line of the key help.
    public static let keyHelp: [(String, String)] = [
        ("esc", "quit"),
        ("← →", "octave"),
        ("{ }", "instrument"),
        ("↑ ↓", "volume"),
        ("tab", "C4 / Do4"),
        ("space", "song play/pause"),
        ("enter", "rewind song"),
        ("backspace", "all notes off"),
        ("^R", "record"),
    ]

    /// How much each block is needed: the higher, the later it goes on a short terminal.
    enum Rank {
        static let title = 100, state = 98, keys = 96, message = 90, recording = 86, notice = 84, instrument = 82,
                   piano = 80, song = 78, sounding = 75, pads = 70, output = 65, instruments = 60, sources = 55,
                   timing = 50, voices = 45, legend = 40, spacer = 10
    }

    /// The screen for a terminal of `columns` × `rows`: long lines wrap
    /// between words (the take's path is shortened from the left), the key
    /// help wraps between keys, and when rows are short whole blocks go,
    /// least needed first (`ScreenLayout`): the spacers, the key legend, the
    /// voices, the timing; the title, the state, the keys with quit and the message stay.
    public static func draw(_ s: PlayStatus, columns: Int, rows: Int = 24) -> String {
        layout(s, columns: columns).draw(columns: columns, rows: rows)
    }

    static func layout(_ s: PlayStatus, columns: Int) -> ScreenLayout {
        let reset = "\u{1B}[0m", bold = "\u{1B}[1m", dim = "\u{1B}[2m"
        let width = max(20, columns - 1)
        func message(_ text: String, style: String, indent: String = "  ") -> [String] {
            LiveScreen.messageLines(text, width: width, style: style, indent: indent)
        }
        var screen = ScreenLayout()
        screen.add("\(bold)BUSKER PLAY\(reset)  \(dim)\(s.device)\(reset)", rank: Rank.title)
        screen.add(message("xruns \(s.xruns)" + (s.dspLoad.map { " · \($0.description)" } ?? "") + " · \(s.latency)",
                           style: dim, indent: ""), rank: Rank.timing)
        let stateStyle = s.state == "running" ? "\u{1B}[32m" : "\u{1B}[1;33m"
        screen.add(message("state " + s.state + (s.hint.map { "  " + $0 } ?? ""), style: stateStyle, indent: ""), rank: Rank.state)
        if let notice = s.notice { screen.add(message(notice, style: dim, indent: ""), rank: Rank.notice) }
        screen.add(message(s.instruments, style: ""), rank: Rank.instruments)
        if let instrument = s.instrument {
            screen.add("  \(bold)\(instrument)\(reset)  \(dim){ } previous / next\(reset)", rank: Rank.instrument)
        }
        screen.add(message("MIDI in: \(s.sources)", style: "") + s.notices.flatMap { message($0, style: dim) }, rank: Rank.sources)
        screen.add("", rank: Rank.spacer)
        // Four octaves with the computer keyboard's two in the middle, as wide as the terminal allows.
        let octaves = max(1, min(7, (columns - 4) / 14))
        let lowest = max(0, min(s.keyboardLowerC - 12 * ((octaves - 2) / 2), 120 - 12 * (octaves - 1)))
        let piano = PianoKeyboardView(lowestNote: lowest, octaves: octaves)
        screen.add(piano.render(pressed: { s.pressedNotes.contains($0) }, style: s.noteStyle).map { "  " + $0 }, rank: Rank.piano)
        let names = s.pressedNotes.sorted().map { NoteName.name(of: $0, style: s.noteStyle) }
        screen.add("  sounding: \(bold)\(names.isEmpty ? "–" : names.joined(separator: " "))\(reset)", rank: Rank.sounding)
        screen.add("", rank: Rank.spacer)
        // The pads, lit for a moment when struck, wrapped between pads (never inside a name).
        let pads = s.pads.map { pad in "\(pad.lit ? "\u{1B}[1;30;46m" : "\u{1B}[2m") \(pad.key) \(pad.name) \(reset)" }
        screen.add(LiveScreen.wrap(pads, width: width), rank: Rank.pads)
        screen.add("", rank: Rank.spacer)
        screen.add(s.legend.flatMap { message($0, style: dim) }, rank: Rank.legend)
        screen.add("", rank: Rank.spacer)
        screen.add("  voices \(bold)\(s.samplerVoices)\(reset)/\(s.polyphony)"
                   + (s.drumVoices.map { "   drum voices \(bold)\($0)\(reset)" } ?? "")
                   + "   MIDI messages \(bold)\(s.midiMessages)\(reset)"
                   + (s.droppedMessages > 0 ? "   \u{1B}[31mdropped \(s.droppedMessages)\(reset)" : "")
                   + (s.watchdogReleases > 0 ? "   watchdog ended \(s.watchdogReleases) stuck note(s)" : ""), rank: Rank.voices)
        let peak = s.outputPeakDB.max() ?? -.infinity
        screen.add("  out \(peak.isFinite && peak > -100 ? String(format: "%.1f dBFS", peak) : "-inf dBFS")"
                   + (s.limiterReductionDB > 0.1 ? String(format: "  limiter −%.1f dB", s.limiterReductionDB) : "")
                   + "   volume \(bold)\(String(format: "%.2f", s.settings.volume))\(reset)", rank: Rank.output)
        if let song = s.song { screen.add(message("song: \(song)", style: ""), rank: Rank.song) }
        screen.add(LiveScreen.recordingLines(s.recording, width: width), rank: Rank.recording)
        if let text = s.message { screen.add(message(text, style: "\u{1B}[1;33m"), rank: Rank.message) }
        screen.add("", rank: Rank.spacer)
        screen.add(LiveScreen.wrap(keyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }, width: width), rank: Rank.keys)
        return screen
    }
}
