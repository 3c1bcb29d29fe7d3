import Chains
import CommandLineInterface
import FeedbackGuard
import Foundation
import Sessions
import TerminalUI
import XCTest

/// The live screen's short-term loudness: under the output meters, on the
/// `--no-tui` line, and the screen still fits 80×24 with two strips.
final class LiveScreenLoudnessTests: XCTestCase {
    private func status(lufs: Double?) throws -> LiveStatus {
        var status = try liveStatus(["--inputs", "1,2"], latency: "48000 Hz · period 64", devices: "hw:1 → hw:1")
        status.shortTermLUFS = lufs
        return status
    }

    private func lines(_ screen: String) -> [String] { screenLines(screen) }

    func testTheShortTermLoudnessIsUnderTheOutputMeters() throws {
        let screen = lines(LiveScreen.draw(try status(lufs: -18.26), columns: 80, rows: 24))
        let outR = try XCTUnwrap(screen.firstIndex { $0.contains("out R") })
        XCTAssertTrue(screen[outR + 1].contains("S -18.3 LUFS"), screen[outR + 1])
        XCTAssertTrue(screen[outR].hasSuffix("dBFS"), "the meter line keeps its reading at its end")
        XCTAssertLessThanOrEqual(screen.count, 24)
        for line in screen { XCTAssertLessThan(line.count, 80, line) }
        let text = screen.joined(separator: "\n")
        for (key, label) in LiveScreen.keyHelp + LiveScreen.stripKeyHelp {
            XCTAssertTrue(text.contains("\(key) \(label)"), "\(key) \(label) at 80×24:\n\(text)")
        }
        XCTAssertTrue(lines(LiveScreen.draw(try status(lufs: -.infinity), columns: 80)).contains { $0.contains("S -inf LUFS") })
        XCTAssertFalse(lines(LiveScreen.draw(try status(lufs: nil), columns: 80)).contains { $0.contains("LUFS") },
                       "no audio yet, no loudness line")
    }

    func testTheStatusLineGivesTheShortTermLoudness() throws {
        XCTAssertTrue(try status(lufs: -23.04).statusLine.contains(" · out -20.0/-21.0 dBFS · S -23.0 LUFS · "))
        XCTAssertFalse(try status(lufs: nil).statusLine.contains("LUFS"))
    }
}
