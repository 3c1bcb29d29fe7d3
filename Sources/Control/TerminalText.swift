/// Text that came from outside Busker (kit files, presets, SoundFont names,
/// file names, OSC packets) made safe to show on a terminal: a control
/// character there could move the cursor, retitle the window, or answer
/// queries on the user's behalf. Every line that shows such text passes it
/// through `escaped` (and `shown`, where a value can be any length).
///
/// - Realtime: unsafe (allocates). Control thread.
public enum TerminalText {
    /// The longest value `shown` prints whole, in characters.
    public static let valueLimit = 60

    /// `text` with every control character written as `\xHH` (`\x1b` for
    /// ESC): C0 but tab, DEL and C1. Newlines are escaped too unless
    /// `keepingNewlines` (for text that is meant to be several lines).
    public static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepingNewlines: keepingNewlines) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepingNewlines: keepingNewlines) {
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `text` cut to at most `limit` characters, the cut marked with "…".
    public static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(max(0, limit - 1))) + "…"
    }

    /// A value from outside as a message quotes it: escaped, and cut to `limit` characters.
    public static func shown(_ text: String, limit: Int = valueLimit) -> String {
        shortened(escaped(text), to: limit)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepingNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x09: return false
        case 0x0A: return !keepingNewlines
        case 0x00..<0x20, 0x7F, 0x80..<0xA0: return true
        default: return false
        }
    }
}
