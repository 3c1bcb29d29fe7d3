import Chains
import CommandLineInterface
import Control
import XCTest

/// What each OSC message changes in the live settings, what it answers,
/// and what it counts.
final class OSCControlResponderTests: XCTestCase {
    private func twoStrips() throws -> LiveSettings {
        try LiveSettings(commandLine: ["--inputs", "1,2"])
    }

    func testASetChangesThatControlAloneAndAnswersNothing() throws {
        var responder = OSCControlResponder()
        let before = try twoStrips()
        var s = before
        XCTAssertEqual(responder.respond(to: OSCMessage("/busker/strip/2/bass", [.float32(6)]), settings: &s, micOn: true, presetName: nil),
                       .changed(.bass(strip: 2)))
        var expected = before
        expected.strips[1].bassDB = 6
        XCTAssertEqual(s, expected)
        XCTAssertEqual(responder.respond(to: OSCMessage("/busker/strip/1/mute", [.true]), settings: &s, micOn: true, presetName: nil),
                       .changed(.mute(strip: 1)))
        expected.strips[0].mute = true
        XCTAssertEqual(s, expected)
        XCTAssertEqual(responder.respond(to: OSCMessage("/busker/mic", [.int32(0)]), settings: &s, micOn: true, presetName: nil), .mic(on: false))
        XCTAssertEqual(s, expected, "the mic is the session's to switch")
        XCTAssertEqual(responder.counts.applied, 3)
        XCTAssertEqual(responder.counts.answered, 0)
    }

    func testRefusedAndUnknownMessagesChangeNothingAndAreCounted() throws {
        var responder = OSCControlResponder()
        let before = try twoStrips()
        var s = before
        let messages = [OSCMessage("/busker/volume", [.float32(2)]), OSCMessage("/busker/strip/3/gain", [.float32(1)]),
                        OSCMessage("/busker/volume", [.string("x")]), OSCMessage("/other"), OSCMessage("/busker/strip/1/boost", [.float32(1)])]
        for message in messages { _ = responder.respond(to: message, settings: &s, micOn: true, presetName: nil) }
        XCTAssertEqual(s, before)
        XCTAssertEqual(responder.counts.received, 5)
        XCTAssertEqual(responder.counts.refused, 3)
        XCTAssertEqual(responder.counts.unknownAddresses, 2)
        XCTAssertEqual(responder.counts.applied, 0)
    }

    func testQueriesAnswerTheCurrentValues() throws {
        var responder = OSCControlResponder()
        var s = try twoStrips()
        s.volume = 0.25
        s.strips[1].pan = -0.5
        s.strips[1].mute = true
        func ask(_ address: String) -> OSCControlResponder.Outcome {
            responder.respond(to: OSCMessage(address), settings: &s, micOn: false, presetName: "gig")
        }
        XCTAssertEqual(ask("/busker/volume"), .reply([OSCMessage("/busker/volume", [.float32(0.25)])]))
        XCTAssertEqual(ask("/busker/mic"), .reply([OSCMessage("/busker/mic", [.int32(0)])]))
        XCTAssertEqual(ask("/busker/strip/2/pan"), .reply([OSCMessage("/busker/strip/2/pan", [.float32(-0.5)])]))
        XCTAssertEqual(ask("/busker/strip/2/mute"), .reply([OSCMessage("/busker/strip/2/mute", [.int32(1)])]))
        XCTAssertEqual(ask("/busker/preset"), .reply([OSCMessage("/busker/preset", [.string("gig")])]))
        guard case let .reply(state) = ask("/busker/state") else { return XCTFail("no state") }
        XCTAssertEqual(state.count, 4 + 6 * 2)
        XCTAssertEqual(state.first, OSCMessage("/busker/strips", [.int32(2)]))
        XCTAssertTrue(state.contains(OSCMessage("/busker/strip/2/gain", [.float32(0)])))
        XCTAssertEqual(responder.counts.answered, 6)
    }
}
