import Foundation
import MIDI

/// Draws the play screen: the keyboard channel's instrument, the piano keyboard with pressed keys lit and the
/// octave labels in letters or solfège, the drum pads, which computer key
/// plays what, voices, MIDI activity, latency and xruns.
public enum PlayScreen {
    public static let keyHelp: [(String, String)] = [
        ("← →", "octave"),
        ("{ }", "instrument"),
        ("↑ ↓", "volume"),
        ("tab", "C4 / Do4"),
        ("space", "song play/stop"),
        ("backspace", "all notes off"),
        ("^R", "record"),
        ("esc", "quit"),
    ]

    public static func draw(_ s: PlayStatus, columns: Int) -> String {
        let reset = "\u{1B}[0m", bold = "\u{1B}[1m", dim = "\u{1B}[2m"
        var lines: [String] = []
        lines.append("\(bold)BUSKER PLAY\(reset)  \(dim)\(s.device)\(reset)")
        // The xruns and the DSP load first: the line is clipped at the terminal's width.
        lines.append("\(dim)xruns \(s.xruns)" + (s.dspLoad.map { " · \($0.description)" } ?? "") + " · \(s.latency)\(reset)")
        let stateStyle = s.state == "running" ? "\u{1B}[32m" : "\u{1B}[1;33m"
        lines.append("state \(stateStyle)\(s.state)\(reset)" + (s.hint.map { "  \(dim)\($0)\(reset)" } ?? ""))
        if let notice = s.notice { lines.append("\(dim)\(notice)\(reset)") }
        lines.append("  \(s.instruments)")
        if let instrument = s.instrument { lines.append("  \(bold)\(instrument)\(reset)  \(dim){ } previous / next\(reset)") }
        lines.append("  MIDI in: \(s.sources)")
        for notice in s.notices { lines.append("  \(dim)\(notice)\(reset)") }
        lines.append("")
        // Four octaves with the computer keyboard's two in the middle, as wide as the terminal allows.
        let octaves = max(1, min(7, (columns - 4) / 14))
        let lowest = max(0, min(s.keyboardLowerC - 12 * ((octaves - 2) / 2), 120 - 12 * (octaves - 1)))
        let piano = PianoKeyboardView(lowestNote: lowest, octaves: octaves)
        for line in piano.render(pressed: { s.pressedNotes.contains($0) }, style: s.noteStyle) { lines.append("  " + line) }
        let names = s.pressedNotes.sorted().map { NoteName.name(of: $0, style: s.noteStyle) }
        lines.append("  sounding: \(bold)\(names.isEmpty ? "–" : names.joined(separator: " "))\(reset)")
        lines.append("")
        // The pads in two rows of six, lit for a moment when struck.
        for row in stride(from: 0, to: s.pads.count, by: 6) {
            var padLine = "  "
            for pad in s.pads[row..<min(row + 6, s.pads.count)] {
                let style = pad.lit ? "\u{1B}[1;30;46m" : "\u{1B}[2m"
                padLine += "\(style) \(pad.key) \(pad.name) \(reset) "
            }
            lines.append(padLine)
        }
        lines.append("")
        for line in s.legend { lines.append("  \(dim)\(line)\(reset)") }
        lines.append("")
        lines.append("  voices \(bold)\(s.samplerVoices)\(reset)/\(s.polyphony)"
                     + (s.drumVoices.map { "   drum voices \(bold)\($0)\(reset)" } ?? "")
                     + "   MIDI messages \(bold)\(s.midiMessages)\(reset)"
                     + (s.droppedMessages > 0 ? "   \u{1B}[31mdropped \(s.droppedMessages)\(reset)" : "")
                     + (s.watchdogReleases > 0 ? "   watchdog ended \(s.watchdogReleases) stuck note(s)" : ""))
        let peak = s.outputPeakDB.max() ?? -.infinity
        lines.append("  out \(peak.isFinite && peak > -100 ? String(format: "%.1f dBFS", peak) : "-inf dBFS")"
                     + (s.limiterReductionDB > 0.1 ? String(format: "  limiter −%.1f dB", s.limiterReductionDB) : "")
                     + "   volume \(bold)\(String(format: "%.2f", s.settings.volume))\(reset)")
        if let song = s.song { lines.append("  song: \(song)") }
        lines.append(LiveScreen.recordingLine(s.recording))
        lines.append("")
        lines.append("  " + keyHelp.map { "\(bold)\($0.0)\(reset) \($0.1)" }.joined(separator: "  "))
        return "\u{1B}[H" + lines.map { ANSIText.clip($0, columns: columns) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }
}
