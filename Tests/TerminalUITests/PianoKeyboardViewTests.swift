import TerminalUI
import XCTest

final class PianoKeyboardViewTests: XCTestCase {
    func testBlackKeysSitOnTheSeamsAndPressedKeysAreMarked() {
        let view = PianoKeyboardView(lowestNote: 62, octaves: 1)  // rounded down to C4
        XCTAssertEqual(view.lowestNote, 60)
        XCTAssertEqual(view.width, 14)
        let (upper, lower) = view.rows { $0 == 61 || $0 == 64 }
        XCTAssertEqual(upper.count, 14)
        XCTAssertEqual(lower.count, 14)
        XCTAssertEqual(upper[0], .white(note: 60, pressed: false))
        XCTAssertEqual(upper[1], .black(note: 61, pressed: true))
        XCTAssertEqual(upper[3], .black(note: 63, pressed: false))
        XCTAssertEqual(upper[5], .white(note: 64, pressed: true), "no black key between E and F")
        XCTAssertEqual(upper[13], .white(note: 71, pressed: false), "no black key after the last B")
        XCTAssertEqual(lower[4], .white(note: 64, pressed: true))
        XCTAssertEqual(lower[5], .white(note: 64, pressed: true))
        let blacks = upper.compactMap { if case .black(let n, _) = $0 { return n } else { return nil } }
        XCTAssertEqual(blacks, [61, 63, 66, 68, 70])
    }

    func testLabelsNameEachCInLettersOrSolfege() {
        let view = PianoKeyboardView(lowestNote: 48, octaves: 3)
        let letters = view.labels(style: .letters)
        XCTAssertTrue(letters.hasPrefix("C3"))
        XCTAssertEqual(letters.range(of: "C4").map { letters.distance(from: letters.startIndex, to: $0.lowerBound) }, 14)
        XCTAssertEqual(letters.range(of: "C5").map { letters.distance(from: letters.startIndex, to: $0.lowerBound) }, 28)
        let solfege = view.labels(style: .solfege)
        XCTAssertTrue(solfege.hasPrefix("Do3"))
        XCTAssertTrue(solfege.contains("Do5"))
        XCTAssertLessThanOrEqual(solfege.count, view.width)
    }

    func testTheFullPianoFitsAndStopsAtTheMIDIRange() {
        let top = PianoKeyboardView(lowestNote: 120, octaves: 4)
        XCTAssertEqual(top.octaves, 1, "C9's octave holds the last MIDI note, G9")
        let full = PianoKeyboardView(lowestNote: 24, octaves: 7)
        XCTAssertEqual(full.whiteNotes.count, 49)
    }
}
