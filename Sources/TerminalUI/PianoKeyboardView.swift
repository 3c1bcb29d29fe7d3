import MIDI

/// A piano keyboard drawn in a terminal: two rows of key cells and a row of
/// octave labels, pressed keys highlighted.
///
/// Every white key is two columns wide. The upper row shows each white key's
/// top in its first column and, in its second, the black key that follows it
/// (C#, D#, F#, G#, A#) or more white; the lower row is the white keys alone.
/// That puts each black key on the seam between its two white neighbours, as
/// on a real keyboard, in 14 columns per octave.
public struct PianoKeyboardView: Sendable {
    /// What one column of a row shows.
    public enum Cell: Equatable, Sendable {
        case white(note: Int, pressed: Bool)
        case black(note: Int, pressed: Bool)
    }

    /// The leftmost key; rounded down to a C.
    public let lowestNote: Int
    public let octaves: Int

    public init(lowestNote: Int, octaves: Int) {
        let c = lowestNote - ((lowestNote % 12) + 12) % 12
        self.lowestNote = max(0, c)
        // The MIDI range ends at G9 (127), inside the octave of C9 (120).
        self.octaves = max(1, min(octaves, (132 - self.lowestNote) / 12))
    }

    /// Columns the view takes.
    public var width: Int { octaves * 14 }

    /// The white keys shown, left to right.
    public var whiteNotes: [Int] {
        (lowestNote..<(lowestNote + 12 * octaves)).filter { !NoteName.isBlackKey($0) }
    }

    /// The upper row's cells (white tops and black keys) and the lower row's (white keys).
    public func rows(pressed: (Int) -> Bool) -> (upper: [Cell], lower: [Cell]) {
        var upper: [Cell] = [], lower: [Cell] = []
        for note in whiteNotes {
            let white = Cell.white(note: note, pressed: pressed(note))
            upper.append(white)
            if NoteName.isBlackKey(note + 1) && note + 1 < lowestNote + 12 * octaves {
                upper.append(.black(note: note + 1, pressed: pressed(note + 1)))
            } else {
                upper.append(white)
            }
            lower.append(white)
            lower.append(white)
        }
        return (upper, lower)
    }

    /// The label row: each C's name ("C4" or "Do4") under its key.
    public func labels(style: NoteName.Style) -> String {
        var line = [Character](repeating: " ", count: width)
        for (index, note) in whiteNotes.enumerated() where note % 12 == 0 {
            for (offset, character) in NoteName.name(of: note, style: style).enumerated() where index * 2 + offset < width {
                line[index * 2 + offset] = character
            }
        }
        return String(line)
    }

    /// The three lines with ANSI colours: white keys on white, black on black,
    /// pressed keys in yellow (white) or magenta (black).
    public func render(pressed: (Int) -> Bool, style: NoteName.Style) -> [String] {
        let (upper, lower) = rows(pressed: pressed)
        func paint(_ cells: [Cell]) -> String {
            var out = ""
            for cell in cells {
                switch cell {
                case .white(_, let down): out += down ? "\u{1B}[43m \u{1B}[0m" : "\u{1B}[47m \u{1B}[0m"
                case .black(_, let down): out += down ? "\u{1B}[45m \u{1B}[0m" : "\u{1B}[40m \u{1B}[0m"
                }
            }
            return out
        }
        return [paint(upper), paint(lower), labels(style: style)]
    }
}
