import TerminalUI
import XCTest

final class ANSITextTests: XCTestCase {
    func testEscapeSequencesTakeNoColumns() {
        XCTAssertEqual(ANSIText.visibleWidth("\u{1B}[1;30;42mMIC\u{1B}[0m on"), 6)
        XCTAssertEqual(ANSIText.visibleWidth("██·"), 3)
    }

    func testClipKeepsColoursAndCutsOnlyVisibleText() {
        let line = "\u{1B}[1mBUSKER\u{1B}[0m PLAY"
        XCTAssertEqual(ANSIText.clip(line, columns: 8), "\u{1B}[1mBUSKER\u{1B}[0m P")
        XCTAssertEqual(ANSIText.clip(line, columns: 3), "\u{1B}[1mBUS\u{1B}[0m")
        XCTAssertEqual(ANSIText.clip("short", columns: 80), "short")
    }
}
