import Control
import Foundation
import Sessions
import TerminalUI
import XCTest

/// Quitting `busker live` is deliberate and no key is a silent dead end: with
/// the mic on, q asks once; Esc never quits; keys that can do nothing in this
/// session say why on the message line.
final class LiveQuitKeysTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeSessionFolder("busker-quit-keys") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func testWithTheMicOnQAsksOnceAndAnyOtherKeyStays() throws {
        let s = try makeOfflineLiveSession([], in: work)
        XCTAssertTrue(s.micOn)
        XCTAssertTrue(s.handle(.character("q")))
        XCTAssertEqual(s.message, "q again to quit, any other key to stay")
        XCTAssertTrue(LiveScreen.draw(s.status(), columns: 80).contains("q again to quit, any other key to stay"))
        // Any other key stays and does nothing else: the volume is where it was.
        let volume = s.settings.volume
        XCTAssertTrue(s.handle(.up))
        XCTAssertEqual(s.settings.volume, volume)
        XCTAssertNil(s.message)
        XCTAssertTrue(s.handle(.character("q")))
        XCTAssertTrue(s.handle(.escape), "Esc answers the question: stay")
        XCTAssertTrue(s.handle(.character("q")))
        XCTAssertFalse(s.handle(.character("q")), "q twice quits")
    }

    func testWithTheMicOffQQuitsAtOnceAndEscNever() throws {
        let s = try makeOfflineLiveSession([], in: work)
        s.setMic(on: false)
        for _ in 0..<3 { XCTAssertTrue(s.handle(.escape)) }
        XCTAssertEqual(s.message, "Esc does not quit: q quits")
        XCTAssertFalse(s.handle(.character("q")))
    }

    func testVWithoutVoiceProcessingSaysWhy() throws {
        let s = try makeOfflineLiveSession([], in: work)
        XCTAssertTrue(s.handle(.character("v")))
        XCTAssertFalse(s.settings.strips[0].voiceProcessing)
        XCTAssertEqual(s.message, "v: voice processing is not loaded in this session; start busker live with --voice-processing")
        XCTAssertTrue(s.handle(.character("x")))
        XCTAssertNil(s.message, "the next key clears it")
    }

    func testLearnWithNoMIDISourceSaysSoAndStaysOff() throws {
        let s = try makeOfflineLiveSession([], in: work)
        s.midi = try LiveMIDIControl(midi: "none", midiIn: nil)
        XCTAssertTrue(s.handle(.character("l")))
        XCTAssertFalse(s.status().learning)
        XCTAssertEqual(s.message, LiveSession.noMIDISourceMessage)
        XCTAssertTrue(s.message?.contains("learn mode is off") == true)
        // Without any MIDI control at all, the same.
        s.midi = nil
        XCTAssertTrue(s.handle(.character("l")))
        XCTAssertEqual(s.message, LiveSession.noMIDISourceMessage)
    }
}
