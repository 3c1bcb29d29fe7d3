#if canImport(Glibc)
import Glibc
#endif

/// Names of MIDI notes as players read them: letters with octave numbers
/// (middle C, note 60, is "C4", as in scientific pitch notation) or fixed-do
/// solfège ("Do4"), the convention in much of Europe and Latin America.
public enum NoteName {
    public enum Style: Sendable {
        case letters, solfege
    }

    private static let letters = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
    private static let solfege = ["Do", "Do#", "Re", "Re#", "Mi", "Fa", "Fa#", "Sol", "Sol#", "La", "La#", "Si"]

    /// "C4" or "Do4" for note 60; note 21 (the piano's lowest A) is "A0", note 0 "C-1".
    public static func name(of note: Int, style: Style = .letters) -> String {
        let pitchClass = ((note % 12) + 12) % 12
        let octave = (note - pitchClass) / 12 - 1
        let names = style == .letters ? letters : solfege
        return names[pitchClass] + String(octave)
    }

    /// Whether `note` is a black key on a piano.
    public static func isBlackKey(_ note: Int) -> Bool {
        [1, 3, 6, 8, 10].contains(((note % 12) + 12) % 12)
    }

    /// The equal-tempered frequency of `note` with A4 (note 69) at `a4` hertz.
    public static func frequency(of note: Int, a4: Double = 440) -> Double {
        a4 * pow(2, Double(note - 69) / 12)
    }
}
