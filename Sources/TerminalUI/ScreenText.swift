/// Plain text fitted to a screen's width without losing its meaning: long
/// messages wrap between words (never inside one), and paths lose their
/// beginning, not their end (the file's name is what a user looks for).
/// Widths count characters, as `ANSIText.visibleWidth` does.
public enum ScreenText {
    /// The ellipsis that stands for what was left out.
    public static let ellipsis: Character = "…"

    /// `text` in lines of at most `width` characters, broken at spaces. The
    /// first line starts with `indent`, the others with `continuation`
    /// (both count towards the width). A word longer than a whole line is
    /// the only thing ever shortened: a path (it has a `/`) from the left,
    /// anything else from the right, each marked with "…".
    public static func wrap(_ text: String, width: Int, indent: String = "", continuation: String? = nil) -> [String] {
        let next = continuation ?? indent
        var lines: [String] = []
        var line = indent
        var lineHasWord = false
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let room = width - line.count - (lineHasWord ? 1 : 0)
            if word.count <= room {
                line += (lineHasWord ? " " : "") + word
                lineHasWord = true
                continue
            }
            if lineHasWord {
                lines.append(line)
                line = next
            }
            let fullRoom = max(1, width - line.count)
            line += word.count <= fullRoom ? word : shortened(word, to: fullRoom)
            lineHasWord = true
        }
        if lineHasWord { lines.append(line) }
        return lines
    }

    /// `word` cut to `width` characters with "…" where the cut is: a path
    /// keeps its end (`…/takes/2026-12-07 take.wav`), anything else its start.
    public static func shortened(_ word: String, to width: Int) -> String {
        guard word.count > width else { return word }
        guard width > 1 else { return String(ellipsis) }
        return word.contains("/") ? shortenedPath(word, to: width) : String(word.prefix(width - 1)) + String(ellipsis)
    }

    /// `text` on one line of at most `width` characters: when it is longer
    /// and holds `marker` followed by a path (`● REC 00:12 → /home/…/take.wav`),
    /// the path is shortened from the left; otherwise the text is unchanged
    /// (the caller wraps it).
    public static func fitted(_ text: String, width: Int, pathAfter marker: String) -> String {
        guard text.count > width, let range = text.range(of: marker, options: .backwards) else { return text }
        let head = String(text[..<range.upperBound])
        let room = width - head.count
        guard room >= 12 else { return text }
        return head + shortenedPath(String(text[range.upperBound...]), to: room)
    }

    /// `path` in at most `width` characters: whole, or "…" and as much of
    /// its end as fits. The shown part starts at a `/` when one is in the
    /// first half of it, so it reads as a path (`…/gigs/take.wav`); a folder
    /// name too long for that shows its end rather than vanish.
    public static func shortenedPath(_ path: String, to width: Int) -> String {
        guard path.count > width else { return path }
        guard width > 1 else { return String(ellipsis) }
        let tail = String(path.suffix(width - 1))
        if let slash = tail.firstIndex(of: "/"), tail.distance(from: tail.startIndex, to: slash) <= tail.count / 2 {
            return String(ellipsis) + tail[slash...]
        }
        return String(ellipsis) + tail
    }
}
