import TerminalUI
import XCTest

final class NamePromptTests: XCTestCase {
    private func type(_ bytes: String, into prompt: inout NamePrompt) -> [NamePrompt.Outcome] {
        Key.parse(Array(bytes.utf8)).map { prompt.handle($0) }
    }

    func testTypedCharactersWithBackspaceAndEnterGiveTheName() {
        var prompt = NamePrompt(label: "save as")
        let outcomes = type("gigx\u{7F} 2\r", into: &prompt)
        XCTAssertEqual(outcomes.last, .accepted("gig 2"))
        XCTAssertEqual(Array(outcomes.dropLast()), Array(repeating: .editing, count: outcomes.count - 1))
    }

    func testTheDefaultNameCanBeKeptClearedOrCancelled() {
        var kept = NamePrompt(label: "save as", text: "gig")
        XCTAssertEqual(type("\r", into: &kept), [.accepted("gig")])
        var cleared = NamePrompt(label: "save as", text: "gig")
        XCTAssertEqual(type("\u{15}\r", into: &cleared), [.editing, .editing], "Enter on nothing keeps asking")
        XCTAssertEqual(type("pub\r", into: &cleared).last, .accepted("pub"))
        var cancelled = NamePrompt(label: "save as", text: "gig")
        XCTAssertEqual(type("x\u{1B}", into: &cancelled), [.editing, .cancelled])
    }

    func testControlCharactersAndArrowsAreNotTyped() {
        var prompt = NamePrompt(label: "save as")
        _ = type("a\u{1B}[A\u{01}b", into: &prompt)
        XCTAssertEqual(prompt.text, "ab")
        XCTAssertTrue(prompt.line.contains("save as: "))
    }
}
