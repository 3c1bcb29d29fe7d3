import AudioFiles
import Chains
import CommandLineInterface
import Engine
import Foundation
import Sessions
import Session
import TerminalUI
import XCTest

/// The live session's controls on a chain with two strips: keys act on the
/// selected strip, bus keys on the bus, the mic switch on every strip, and
/// `apply` (what a preset or a MIDI controller calls) only on a matching chain.
/// The session runs on an offline file driver that is never started: the
/// controls are parameters, read here as the audio thread would read them.
final class LiveSessionTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeSessionFolder("busker-session") }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    private func session(_ arguments: [String]) throws -> LiveSession {
        try makeOfflineLiveSession(arguments, in: work)
    }

    private func press(_ session: LiveSession, _ keys: String) {
        for k in keys { XCTAssertTrue(session.handle(.character(k))) }
    }

    func testStripKeysActOnTheSelectedStripAndBusKeysOnTheBus() throws {
        let s = try session(["--inputs", "1,2"])
        let chain = s.chain
        press(s, "II")  // strip 1 selected at start
        XCTAssertEqual(s.settings.strips.map(\.gainDB), [2, 0])
        XCTAssertEqual(chain.strips[0].inputGain.gainDB.value, 2)
        press(s, "2")
        XCTAssertEqual(s.selectedStrip, 1)
        press(s, "pppxBR")
        XCTAssertEqual(s.settings.strips[1].pan, -0.3)
        XCTAssertEqual(chain.busMixer.inputs[1].pan.value, -0.3)
        XCTAssertTrue(chain.busMixer.inputs[1].isMuted && chain.sendMixer.inputs[1].isMuted, "strip 2 muted, send and all")
        XCTAssertFalse(chain.busMixer.inputs[0].isMuted, "strip 1 plays on")
        XCTAssertEqual(chain.strips[1].tone.bass.gainDB.value, 1)
        XCTAssertEqual(s.settings.strips[1].reverbSendPercent, 5)
        XCTAssertEqual(chain.reverb.wet.value, 100, "a send is up: the return is on")
        XCTAssertEqual(s.settings.strips[0].bassDB, 0, "strip 1 untouched")
        press(s, "\t")
        XCTAssertEqual(s.selectedStrip, 0, "tab cycles")
        press(s, "9")
        XCTAssertEqual(s.selectedStrip, 0, "no strip 9: the selection stays")
        XCTAssertTrue(s.handle(.up))
        XCTAssertEqual(s.settings.volume, 0.35)
        XCTAssertEqual(chain.master.masterVolume.value, 0.35)
        press(s, "hm")
        XCTAssertFalse(chain.howlGuard.isEnabled)
        XCTAssertEqual(s.settings.room, .large)
        XCTAssertEqual(s.status().strips.map(\.source), ["in 1", "in 2"])
        XCTAssertEqual(s.status().strips.map(\.selected), [true, false])
        XCTAssertTrue(s.handle(.character("q")), "the mic is on: q asks first")
        XCTAssertFalse(s.handle(.character("q")))
    }

    func testTheMicSwitchMutesEveryStripAndLeavesTheirOwnMutes() throws {
        let s = try session(["--inputs", "1,2", "--strip", "2:mute=on"])
        let chain = s.chain
        s.setMic(on: false)
        XCTAssertFalse(s.micOn)
        XCTAssertTrue((0..<2).allSatisfy { chain.busMixer.inputs[$0].isMuted && chain.sendMixer.inputs[$0].isMuted })
        s.toggleMic()
        XCTAssertTrue(s.micOn)
        XCTAssertFalse(chain.busMixer.inputs[0].isMuted)
        XCTAssertTrue(chain.busMixer.inputs[1].isMuted, "strip 2's own mute stays")
    }

    func testApplyTakesSettingsForTheSameStripsOnly() throws {
        let s = try session(["--inputs", "1,2"])
        var preset = try LiveSettings(commandLine: ["--inputs", "1,2", "--bass", "4", "--strip", "2:pan=1", "--volume", "0.5"])
        XCTAssertTrue(s.apply(preset))
        XCTAssertEqual(s.settings, preset)
        XCTAssertEqual(s.chain.strips[1].tone.bass.gainDB.value, 4)
        XCTAssertEqual(s.chain.busMixer.inputs[1].pan.value, 1)
        preset.strips[1].channels = [1]
        XCTAssertFalse(s.apply(preset), "other channels need a new chain")
        XCTAssertFalse(s.apply(try LiveSettings(commandLine: ["--inputs", "1"])), "another strip count too")
        XCTAssertEqual(s.settings.volume, 0.5, "nothing changed by a refused apply")
    }
}
