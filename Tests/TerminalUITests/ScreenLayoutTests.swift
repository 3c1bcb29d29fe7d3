import TerminalUI
import XCTest

/// A short terminal drops whole blocks, least needed first, and keeps the order of the rest.
final class ScreenLayoutTests: XCTestCase {
    private func layout() -> ScreenLayout {
        var screen = ScreenLayout()
        screen.add("title", rank: 100)
        screen.add(["timing"], rank: 50)
        screen.add("", rank: 10)
        screen.add(["meter 1", "meter 2"], rank: 80)
        screen.add("", rank: 10)
        screen.add(["keys 1", "keys 2"], rank: 96)
        screen.add("tip", rank: 0)
        return screen
    }

    func testBlocksGoByRankAndTheRestKeepTheirOrder() {
        XCTAssertEqual(layout().lines(rows: 10), ["title", "timing", "", "meter 1", "meter 2", "", "keys 1", "keys 2", "tip"])
        XCTAssertEqual(layout().lines(rows: 8), ["title", "timing", "", "meter 1", "meter 2", "", "keys 1", "keys 2"], "the tip first")
        XCTAssertEqual(layout().lines(rows: 7), ["title", "timing", "", "meter 1", "meter 2", "keys 1", "keys 2"],
                       "then the later of the two spacers")
        XCTAssertEqual(layout().lines(rows: 6), ["title", "timing", "meter 1", "meter 2", "keys 1", "keys 2"])
        XCTAssertEqual(layout().lines(rows: 5), ["title", "meter 1", "meter 2", "keys 1", "keys 2"])
        XCTAssertEqual(layout().lines(rows: 3), ["title", "keys 1", "keys 2"], "the title and the keys stay longest")
        XCTAssertEqual(layout().lines(rows: 1), ["title"])
    }

    func testTheDrawingNeverEndsInANewlineAndClipsEachLine() {
        let drawn = layout().draw(columns: 4, rows: 3)
        XCTAssertEqual(drawn, "\u{1B}[Htitl\u{1B}[K\r\nkeys\u{1B}[K\r\nkeys\u{1B}[K\u{1B}[J")
    }
}
