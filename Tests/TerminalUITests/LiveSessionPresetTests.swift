import AudioFiles
import Control
import Engine
import Foundation
import Sessions
import Session
import TerminalUI
import XCTest

/// `w` in the live screen: a name typed on the bottom line saves every strip,
/// the bus and the MIDI mapping as a preset; Esc saves nothing. The session
/// runs on an offline file driver that is never started.
final class LiveSessionPresetTests: XCTestCase {
    private var work: URL!
    private var presets: PresetStore!

    override func setUpWithError() throws {
        work = try makeSessionFolder("busker-session-presets")
        presets = try PresetStore(environment: ["XDG_CONFIG_HOME": work.path + "/config"])
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    private func session(_ arguments: [String]) throws -> LiveSession {
        let session = try makeOfflineLiveSession(arguments, in: work)
        session.presets = presets
        return session
    }

    private func type(_ session: LiveSession, _ text: String) {
        for key in Key.parse(Array(text.utf8)) { XCTAssertTrue(session.handle(key), "no key quits while a name is typed") }
    }

    func testWAsksForANameAndEnterSavesEverything() throws {
        let s = try session(["--inputs", "1,2", "--room", "hall"])
        s.midiPresetEntries = { [PresetEntry("cc64", "mic"), PresetEntry("cc20", "mute 2")] }
        type(s, "BB2pppx↑".replacingOccurrences(of: "↑", with: "\u{1B}[A"))
        type(s, "w")
        XCTAssertNotNil(s.namePrompt)
        XCTAssertTrue(s.status().bottomLine?.contains("save preset as: ") ?? false)
        XCTAssertTrue(LiveScreen.draw(s.status(), columns: 80).contains("save preset as"), "the prompt is on the screen")
        type(s, "gig q\r")  // q is part of the name here, not quit
        XCTAssertNil(s.namePrompt)
        XCTAssertEqual(s.message, "saved gig q")
        XCTAssertEqual(s.presetName, "gig q")
        XCTAssertTrue(LiveScreen.draw(s.status(), columns: 80).contains("saved gig q"))
        let saved = try presets.load("gig q")
        XCTAssertEqual(saved.settings, s.settings, "every strip and the bus, exactly")
        XCTAssertEqual(saved.settings.strips.map(\.bassDB), [2, 0])
        XCTAssertEqual(saved.settings.strips[1].pan, -0.3)
        XCTAssertTrue(saved.settings.strips[1].mute)
        XCTAssertEqual(saved.settings.volume, 0.35)
        XCTAssertEqual(saved.settings.room, .hall)
        XCTAssertEqual(saved.midi, [PresetEntry("cc64", "mic"), PresetEntry("cc20", "mute 2")])
        // The next key clears the message; w offers the name saved last.
        type(s, "w")
        XCTAssertEqual(s.namePrompt?.text, "gig q")
        XCTAssertNil(s.message)
    }

    func testEscCancelsAndNothingIsWritten() throws {
        let s = try session([])
        s.presetName = "gig"
        type(s, "w")
        XCTAssertEqual(s.namePrompt?.text, "gig", "the preset loaded is offered")
        type(s, "2\u{1B}")
        XCTAssertNil(s.namePrompt)
        XCTAssertEqual(s.message, "not saved")
        XCTAssertEqual(presets.names(), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: presets.folder))
        XCTAssertTrue(s.handle(.character("q")), "with no prompt, q is the quit key again: it asks (the mic is on)")
        XCTAssertEqual(s.message, LiveSession.quitQuestion)
        XCTAssertFalse(s.handle(.character("q")))
    }

    /// A refused name leaves the prompt open with why on the message line: the
    /// name can be corrected, or Esc cancels the prompt and the session goes on.
    func testABadNameIsShownThePromptStaysAndEscOnlyCancelsIt() throws {
        let s = try session([])
        type(s, "wa/b\r")
        XCTAssertEqual(s.message, "not saved: preset name 'a/b': has a slash: a preset is named, not a path (files live in the config folder)")
        XCTAssertEqual(s.namePrompt?.text, "a/b", "the prompt stays open with the name typed")
        XCTAssertNil(s.presetName)
        let screen = LiveScreen.draw(s.status(), columns: 80)
        XCTAssertTrue(screen.contains("save preset as") && screen.contains("has a slash"), "the prompt and why, together")
        XCTAssertTrue(s.handle(.escape), "Esc cancels the prompt")
        XCTAssertNil(s.namePrompt)
        XCTAssertEqual(s.message, "not saved")
        XCTAssertTrue(s.handle(.escape), "a second Esc does not end the session either")
        // Corrected: the same prompt saves.
        type(s, "wa/b\r")
        type(s, "\u{7F}\u{7F}\r")
        XCTAssertEqual(s.message, "saved a")
        XCTAssertNil(s.namePrompt)
    }

    func testWithNoPresetFolderWSaysSoAtOnce() throws {
        let s = try session([])
        s.presets = nil
        s.presetProblem = "presets: no folder for them: set HOME or XDG_CONFIG_HOME"
        type(s, "w")
        XCTAssertNil(s.namePrompt, "no prompt for a save that cannot happen")
        XCTAssertEqual(s.message, "w cannot save a preset here: presets: no folder for them: set HOME or XDG_CONFIG_HOME")
    }
}
