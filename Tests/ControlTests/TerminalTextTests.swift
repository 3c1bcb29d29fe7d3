import Control
import XCTest

/// `TerminalText`: what reaches the terminal from files and packets.
final class TerminalTextTests: XCTestCase {
    func testControlCharactersAreWrittenAsHex() {
        XCTAssertEqual(TerminalText.escaped("a\u{1B}]0;x\u{07}b"), "a\\x1b]0;x\\x07b")
        XCTAssertEqual(TerminalText.escaped("del\u{7F} csi\u{9B} nul\u{0}"), "del\\x7f csi\\x9b nul\\x00")
        XCTAssertEqual(TerminalText.escaped("two\nlines\r"), "two\\x0alines\\x0d")
        XCTAssertEqual(TerminalText.escaped("two\nlines", keepingNewlines: true), "two\nlines")
        XCTAssertEqual(TerminalText.escaped("tab\tand ünïcode ♪"), "tab\tand ünïcode ♪", "tab and printable text pass")
    }

    func testLongValuesAreCutWithAnEllipsis() {
        let shown = TerminalText.shown(String(repeating: "9", count: 1_000_000))
        XCTAssertEqual(shown.count, TerminalText.valueLimit)
        XCTAssertTrue(shown.hasSuffix("…"))
        XCTAssertEqual(TerminalText.shown("0.3"), "0.3")
        XCTAssertEqual(TerminalText.shortened("abcdef", to: 4), "abc…")
    }
}
