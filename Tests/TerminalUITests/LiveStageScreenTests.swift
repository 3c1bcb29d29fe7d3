import Chains
import Engine
import Foundation
import TerminalUI
import XCTest

/// The live screen on a stage: a meter for every mic strip and every part
/// (keys, drums, song), the song's position, which mode the keyboard is in,
/// the selected part's controls and keys, and in keys mode the keys that
/// play; at 80×24 nothing that matters is cut.
final class LiveStageScreenTests: XCTestCase {
    private func status(selectedPart: Int? = nil, keysMode: Bool = false) throws -> LiveStatus {
        var status = try liveStatus(["--inputs", "1,2"], selected: 0, peakDB: { $0 == 0 ? -12 : -30 },
                                    latency: "48000 Hz · period 64 · round trip 128 frames = 2.7 ms", devices: "busker_in → busker_out")
        status.notice = "a device appeared: USB Audio CODEC"
        status.recording = "● REC 00:12  take-001.wav"
        status.dspLoad = RenderLoadMeter.Reading(average: 12.34, peak: 87.6)
        let parts = [("keys", PartSettings(levelDB: -6, pan: -0.4, solo: true, reverbSendPercent: 25), Float(-9)),
                     ("drums", PartSettings(mute: true), Float(-20)),
                     ("song", PartSettings(), -Float.infinity)]
        status.parts = parts.enumerated().map { index, part in
            PartStatus(name: part.0, peakDB: part.2, settings: part.1, selected: index == selectedPart)
        }
        if selectedPart != nil {
            status.strips = status.strips.map { var s = $0; s.selected = false; return s }
        }
        status.song = "song 12.3 / 95.0 s · playing · loop"
        status.keysMode = KeysModeStatus(on: keysMode, octave: "C4", midiEvents: 7,
                                         legend: ["piano  z=C4 x=D4", "drums  1=kick 2=snare"])
        return status
    }

    private func text(_ status: LiveStatus, _ columns: Int, _ rows: Int) -> (lines: [String], text: String) {
        let lines = screenLines(LiveScreen.draw(status, columns: columns, rows: rows))
        XCTAssertLessThanOrEqual(lines.count, rows)
        for line in lines { XCTAssertLessThan(line.count, columns, "\(columns)×\(rows): \(line)") }
        return (lines, lines.joined(separator: "\n"))
    }

    private func assertKeys(_ help: [(String, String)], in text: String, _ context: String) {
        for (key, label) in help { XCTAssertTrue(text.contains("\(key) \(label)"), "\(key) \(label), \(context):\n\(text)") }
    }

    func testEveryStripAndPartHasItsMeterAndTheSongItsPosition() throws {
        for (columns, rows) in [(80, 24), (120, 40)] {
            let (lines, text) = text(try status(), columns, rows)
            let context = "\(columns)×\(rows)"
            for (label, reading) in [("1 in 1", "-12.0 dBFS"), ("2 in 2", "-30.0 dBFS"), ("keys S", "-9.0 dBFS"),
                                     ("drums M", "-20.0 dBFS"), ("song", "-inf dBFS"), ("out L", "-20.0 dBFS"), ("out R", "-21.0 dBFS")] {
                XCTAssertTrue(lines.contains { $0.hasPrefix("  ") && ($0.contains(" \(label) ") || $0.contains("▸\(label) ")) && $0.hasSuffix(reading) },
                              "the \(label) meter reading \(reading) at \(context):\n\(text)")
            }
            XCTAssertTrue(text.contains("song 12.3 / 95.0 s · playing · loop"), context + ":\n" + text)
            XCTAssertTrue(text.contains("control keys · ` plays the instruments"), "the mode shows at \(context):\n\(text)")
            assertKeys(LiveScreen.keyHelp + LiveScreen.stageKeyHelp + LiveScreen.stripKeyHelp, in: text, context)
            XCTAssertTrue(text.contains("MIC  ON") && text.contains("REC 00:12"), text)
        }
        let wide = text(try status(), 120, 40).text
        XCTAssertTrue(wide.contains("Tip:") && wide.contains("DSP 12 %") && wide.contains("strip 1 (in 1):"),
                      "at 120×40 more: the timing, the controls, the tip:\n\(wide)")
    }

    func testASelectedPartShowsItsControlsAndKeys() throws {
        for (columns, rows) in [(80, 24), (120, 40)] {
            let (lines, text) = text(try status(selectedPart: 0), columns, rows)
            let context = "\(columns)×\(rows)"
            XCTAssertTrue(lines.contains { $0.contains("▸keys S") }, "the selected part is marked at \(context):\n\(text)")
            XCTAssertFalse(lines.contains { $0.contains("▸1 in 1") }, "one selection at a time at \(context):\n\(text)")
            XCTAssertTrue(text.contains("keys:  level -6 dB  pan L 40  mute off  SOLO  reverb 25 %"), context + ":\n" + text)
            assertKeys(LiveScreen.keyHelp + LiveScreen.stageKeyHelp + LiveScreen.partKeyHelp, in: text, context)
            XCTAssertFalse(text.contains("b B bass"), "no mic-strip keys for a part at \(context):\n\(text)")
        }
    }

    func testKeysModeShowsItselfAndTheKeysThatPlay() throws {
        for (columns, rows) in [(80, 24), (120, 40)] {
            let (lines, text) = text(try status(keysMode: true), columns, rows)
            let context = "\(columns)×\(rows)"
            XCTAssertTrue(text.contains("KEYS MODE  the keyboard plays · octave C4 · MIDI events 7 · ` back"), context + ":\n" + text)
            assertKeys(LiveScreen.keysModeHelp, in: text, context)
            XCTAssertFalse(text.contains("w save preset"), "w plays a note in keys mode: no control keys offered at \(context):\n\(text)")
            for label in ["1 in 1 ", " keys S ", " drums M ", " song ", " out R "] {
                XCTAssertTrue(lines.contains { $0.contains(label) && $0.hasSuffix("dBFS") }, "\(label) at \(context):\n\(text)")
            }
        }
        XCTAssertTrue(text(try status(keysMode: true), 120, 40).text.contains("piano  z=C4 x=D4"), "the note layout at 120×40")
    }

    func testOffAStageTheScreenIsAsBefore() throws {
        let status = try liveStatus(["--inputs", "1,2"], latency: "48000 Hz", devices: "hw:1 → hw:1")
        let text = text(status, 80, 24).text
        XCTAssertFalse(text.contains("song") || text.contains("KEYS MODE") || text.contains("` keys mode") || text.contains("control keys"), text)
    }

    func testTheStatusLineNamesEveryPart() throws {
        let line = try status().statusLine
        XCTAssertTrue(line.contains("· keys -9.0 dBFS · drums -20.0 dBFS · song -inf dBFS"), line)
        XCTAssertTrue(line.contains("· song 12.3 / 95.0 s · playing · loop"), line)
    }
}
