import Chains
import CommandLineInterface
import FeedbackGuard
import Foundation
import Rig
import TerminalUI
import XCTest

/// The live screen's short-term loudness: under the output meters, on the
/// `--no-tui` line, and the screen still fits 80×24 with two strips.
final class LiveScreenLoudnessTests: XCTestCase {
    private func status(lufs: Double?) throws -> LiveStatus {
        let settings = try LiveSettings(commandLine: ["--inputs", "1,2"])
        let strips = settings.strips.enumerated().map { index, strip in
            StripStatus(number: index + 1, source: strip.sourceLabel, peakDB: -12, settings: strip,
                        selected: index == 0, voiceProcessingAvailable: false)
        }
        var status = LiveStatus(micOn: true, settings: settings, strips: strips, selectedStrip: 0,
                                outputPeakDB: [-20, -21], outputRMSDB: [-30, -31], limiterReductionDB: 0,
                                howl: HowlGuardStatus(enabled: true, feedbackWarning: false, notches: [], gainReductionDB: 0,
                                                      detectionCount: 0, firstDetectionFrame: nil),
                                xruns: 0, state: "running", notice: nil, hint: nil, latency: "48000 Hz · period 64",
                                devices: "hw:1 → hw:1", seconds: 3)
        status.shortTermLUFS = lufs
        return status
    }

    private func lines(_ screen: String) -> [String] {
        screen.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression).components(separatedBy: "\r\n")
    }

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
