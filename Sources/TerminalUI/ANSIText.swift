/// Text with ANSI colour sequences, measured and cut by what the terminal shows.
public enum ANSIText {
    /// How many columns `text` takes: every character except the escape
    /// sequences (ESC [ … final byte), which take none.
    public static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
            } else if scalar == "\u{1B}" {
                inEscape = true
            } else {
                width += 1
            }
        }
        return width
    }

    /// `text` cut to `columns` visible characters, keeping every escape
    /// sequence (so colours are still switched off at the end), so a long
    /// line never wraps and scrolls a full-screen display.
    public static func clip(_ text: String, columns: Int) -> String {
        var out = String.UnicodeScalarView()
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                out.append(scalar)
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
            } else if scalar == "\u{1B}" {
                out.append(scalar)
                inEscape = true
            } else if width < columns {
                out.append(scalar)
                width += 1
            }
        }
        return String(out)
    }
}
