import TerminalUI
import XCTest

/// Long messages wrap between words and paths lose their beginning: what the
/// screens use so that nothing is cut where its meaning is.
final class ScreenTextTests: XCTestCase {
    private let storm = "xrun storm: 8 xruns in 5 s; this machine cannot keep up with 64-frame periods, try a larger JACK buffer (jack_bufsize 128)"

    func testWrapBreaksOnlyBetweenWordsAndKeepsEveryWord() {
        for width in [20, 37, 79, 119] {
            let lines = ScreenText.wrap(storm, width: width, indent: "  ", continuation: "    ")
            for line in lines { XCTAssertLessThanOrEqual(line.count, width, line) }
            XCTAssertTrue(lines[0].hasPrefix("  x"))
            for line in lines.dropFirst() { XCTAssertTrue(line.hasPrefix("    ") && !line.hasPrefix("     "), line) }
            // Joined again, the words are the message's, in order, none split.
            XCTAssertEqual(lines.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "), storm, "at \(width)")
        }
        XCTAssertEqual(ScreenText.wrap(storm, width: 200), [storm], "one line when it fits")
        XCTAssertEqual(ScreenText.wrap("", width: 80), [])
    }

    func testAWordLongerThanALineIsShortenedAPathFromTheLeft() {
        let path = "/home/busker/Music/takes/2026-12-07/the-long-evening-set/take-0001.wav"
        let lines = ScreenText.wrap("recording to \(path) now", width: 40, indent: "  ", continuation: "    ")
        XCTAssertEqual(lines, ["  recording to", "    …/the-long-evening-set/take-0001.wav", "    now"])
        XCTAssertEqual(ScreenText.shortened("abcdefghij", to: 5), "abcd…")
    }

    func testShortenedPathKeepsTheFileNameAndStartsAtASlash() {
        let path = "/home/busker/Music/takes/take-0001.wav"
        XCTAssertEqual(ScreenText.shortenedPath(path, to: 100), path)
        XCTAssertEqual(ScreenText.shortenedPath(path, to: 22), "…/takes/take-0001.wav")
        XCTAssertEqual(ScreenText.shortenedPath(path, to: 16), "…/take-0001.wav")
        XCTAssertEqual(ScreenText.shortenedPath(path, to: 10), "…-0001.wav", "no slash in reach: the end alone")
        XCTAssertEqual(ScreenText.shortenedPath("/tmp/a-long-folder-name-for-the-evening-set/take.wav", to: 30),
                       "…-for-the-evening-set/take.wav", "a folder too long to show whole shows its end, not nothing")
        for width in 1...40 { XCTAssertLessThanOrEqual(ScreenText.shortenedPath(path, to: width).count, width) }
    }

    func testFittedShortensOnlyThePathAfterTheMarker() {
        let line = "● REC 00:12 · 576000 frames → /home/busker/Music/takes/2026-12-07/take-0001.wav"
        let fitted = ScreenText.fitted(line, width: 60, pathAfter: "→ ")
        XCTAssertEqual(fitted, "● REC 00:12 · 576000 frames → …/2026-12-07/take-0001.wav")
        XCTAssertLessThanOrEqual(fitted.count, 60)
        XCTAssertEqual(ScreenText.fitted(line, width: 200, pathAfter: "→ "), line)
        XCTAssertEqual(ScreenText.fitted("REC FAILED at 00:12: disk full", width: 10, pathAfter: "→ "), "REC FAILED at 00:12: disk full",
                       "no path: left for wrapping")
    }
}
