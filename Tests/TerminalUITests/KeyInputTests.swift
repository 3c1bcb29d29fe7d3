import TerminalUI
import XCTest

final class KeyInputTests: XCTestCase {
    private func events(_ reads: String...) -> [KeyEvent] {
        var input = KeyInput()
        return reads.flatMap { input.feed(Array($0.utf8)) } + input.flush()
    }

    func testLegacyLettersArrowsAndALoneEscape() {
        XCTAssertEqual(events("zq\u{1B}[A\u{1B}OD"), [
            KeyEvent(.character("z"), keyCode: 122), KeyEvent(.character("q"), keyCode: 113),
            KeyEvent(.up, keyCode: 0x11_0000), KeyEvent(.left, keyCode: 0x11_0003),
        ])
        XCTAssertEqual(events("\u{1B}").map(\.key), [.escape], "a lone Esc at the end of a read is the Esc key")
        XCTAssertEqual(events("\u{1B}\u{1B}").map(\.key), [.escape, .escape])
    }

    /// F5, Ctrl-Right, Alt-z, F1 (SS3), an unknown CSI with parameters and
    /// intermediates, a device attributes reply: nothing, and no letter leaks
    /// out of any of them (`~`, `C`, `z`, `P`, `q`, `c` would all be keys).
    func testUnknownSequencesGiveNothing() {
        let unknown = ["\u{1B}[15~", "\u{1B}[1;5C", "\u{1B}z", "\u{1B}OP", "\u{1B}[2;3;4 q", "\u{1B}[?62;22c",
                       "\u{1B}[57441u", "\u{1B}[97;3u", "\u{1B}[1;2A", "\u{1B}[3~"]
        for sequence in unknown {
            XCTAssertEqual(events(sequence), [], sequence.debugDescription)
            XCTAssertEqual(events(sequence + "x").map(\.key), [.character("x")], "the next key after \(sequence.debugDescription)")
        }
        XCTAssertEqual(Key.parse(Array("\u{1B}[15~\u{1B}[1;5Cz".utf8)), [.character("z")])
    }

    func testASequenceSplitBetweenReadsWaitsForItsEnd() {
        XCTAssertEqual(events("\u{1B}[1", "5~"), [])
        XCTAssertEqual(events("\u{1B}", "[1;5C"), [])
        XCTAssertEqual(events("\u{1B}[122;1", ":3u"), [KeyEvent(.character("z"), .release, keyCode: 122)])
        XCTAssertEqual(events("\u{1B}O", "A"), [KeyEvent(.up, keyCode: 0x11_0000)])
        var input = KeyInput()
        XCTAssertEqual(input.feed(Array("\u{1B}[1".utf8)), [])
        XCTAssertEqual(input.flush(), [], "an incomplete sequence is not the Esc key")
        XCTAssertEqual(input.feed(Array("5~".utf8)), [])
    }

    func testKittyEventsCarryTheirActionModifiersAndKeyCode() {
        XCTAssertEqual(events("\u{1B}[122u\u{1B}[122;1:2u\u{1B}[122;1:3u"), [
            KeyEvent(.character("z"), .press, keyCode: 122),
            KeyEvent(.character("z"), .repeat, keyCode: 122),
            KeyEvent(.character("z"), .release, keyCode: 122),
        ])
        // Shift with the shifted key reported (flag 4), and without it.
        XCTAssertEqual(events("\u{1B}[49:33;2u\u{1B}[113;2u"), [
            KeyEvent(.character("!"), keyCode: 49), KeyEvent(.character("Q"), keyCode: 113),
        ])
        // Caps Lock and Num Lock (64, 128) change nothing; Ctrl-R is the control character.
        XCTAssertEqual(events("\u{1B}[122;193u\u{1B}[114;5u").map(\.key), [.character("z"), .character("\u{12}")])
        XCTAssertEqual(events("\u{1B}[27u\u{1B}[13u\u{1B}[127u\u{1B}[9u\u{1B}[32u").map(\.key),
                       [.escape, .character("\r"), .character("\u{7F}"), .character("\t"), .character(" ")])
        XCTAssertEqual(events("\u{1B}[1;1:3C\u{1B}[A"), [
            KeyEvent(.right, .release, keyCode: 0x11_0002), KeyEvent(.up, keyCode: 0x11_0000),
        ])
        XCTAssertEqual(events("\u{1B}[122;1:4u\u{1B}[122;0u\u{1B}[99999999999u"), [], "no such event type or modifiers")
    }
}
