import Control
import Sessions
import TerminalUI
import XCTest

/// Learn mode's keys: each key of the live screen that moves a control MIDI
/// can drive chooses that control (strip controls on the selected strip);
/// the key that starts learning is free among the screen's keys.
final class LiveLearnKeysTests: XCTestCase {
    func testAControlsKeyChoosesItOnTheSelectedStrip() {
        let expected: [(Key, LiveControl?)] = [
            (.character(" "), .mic),
            (.up, .volume), (.down, .volume), (.character("+"), .volume), (.character("-"), .volume),
            (.character("r"), .reverb(strip: 2)), (.character("R"), .reverb(strip: 2)),
            (.character("x"), .mute(strip: 2)),
            (.character("i"), .gain(strip: 2)), (.character("P"), .pan(strip: 2)),
            (.character("b"), .bass(strip: 2)), (.character("T"), .treble(strip: 2)),
            (.character("m"), nil), (.character("q"), nil), (.escape, nil), (.character("g"), nil),
        ]
        for (key, control) in expected {
            XCTAssertEqual(LiveSession.learnableControl(for: key, strip: 2), control, "\(key)")
        }
    }

    func testTheLearnKeyIsInTheKeyHelpAndTakenByNothingElse() {
        XCTAssertEqual(LiveSession.learnKey, .character("l"))
        let keys = (LiveScreen.keyHelp + LiveScreen.stripKeyHelp).map(\.0)
        XCTAssertEqual(keys.filter { $0.split(separator: " ").contains("l") || $0.split(separator: " ").contains("L") }, ["l"])
    }
}
