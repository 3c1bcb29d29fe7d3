import Chains
import CommandLineInterface
import Engine
import FeedbackGuard
import Foundation
import Sessions
import Session
import TerminalUI
import XCTest

/// The live screen's long messages at the usual terminal sizes: the xrun
/// storm's advice, the take's path, an OSC refusal and a refused preset save
/// all show whole (wrapped between words, the path shortened from the left),
/// and the title, every key and the quit key stay on screen.
final class LiveScreenMessageTests: XCTestCase {
    static let storm = "xrun storm: 8 xruns in 5 s; this machine cannot keep up with 64-frame periods, try a larger JACK buffer (jack_bufsize 128)"
    static let oscRefusal = "OSC: /busker/preset no-such-preset: refused, preset 'no-such-preset': no such preset in /home/busker/.config/busker/presets"
    static let refusedSave = "not saved: preset name 'a/b': has a slash: a preset is named, not a path (files live in the config folder)"
    static let takePath = "/home/busker/Music/takes/2026-12-07/a-rather-long-folder-name-for-the-evening-set/take-0001.wav"

    private func status(strips count: Int) throws -> LiveStatus {
        var status = try liveStatus(["--inputs", count == 1 ? "1" : "1,2"], xruns: 9, notice: Self.storm,
                                    latency: "48000 Hz · period 64 · round trip 128 frames = 2.7 ms", devices: "busker_in → busker_out",
                                    recording: "● REC 00:12 · 576000 frames → \(Self.takePath)")
        status.midi = Self.oscRefusal
        status.message = Self.refusedSave
        status.bottomLine = "  save preset as: a/b█  Enter saves, Esc cancels"
        status.shortTermLUFS = -20
        return status
    }

    private func lines(_ screen: String) -> [String] { screenLines(screen) }

    /// The words of `message` appear on consecutive lines, in order, none cut.
    private func assertWhole(_ message: String, in screen: [String], _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        let words = screen.joined(separator: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(words.contains(message), "'\(message)' is not whole on the screen (\(context)):\n\(screen.joined(separator: "\n"))",
                      file: file, line: line)
    }

    func testEveryLongMessageShowsWholeAt80x24And120x40() throws {
        for strips in [1, 2] {
            let status = try status(strips: strips)
            for (columns, rows) in [(80, 24), (120, 40)] {
                let screen = lines(LiveScreen.draw(status, columns: columns, rows: rows))
                let context = "\(columns)×\(rows), \(strips) strip(s)"
                let text = screen.joined(separator: "\n")
                XCTAssertLessThanOrEqual(screen.count, rows, context)
                for line in screen { XCTAssertLessThan(line.count, columns, "\(context): \(line)") }
                XCTAssertTrue(screen[0].hasPrefix("BUSKER LIVE"), "\(context):\n\(text)")
                for (key, label) in LiveScreen.keyHelp { XCTAssertTrue(text.contains("\(key) \(label)"), "\(key) \(label), \(context):\n\(text)") }
                XCTAssertTrue(text.contains("q quit"), context)
                assertWhole(Self.storm, in: screen, context)
                assertWhole(Self.refusedSave, in: screen, context)
                XCTAssertTrue(text.contains("save preset as: a/b"), context)
                // The take's line keeps its file name, the path shortened from the left when it must be.
                let take = try XCTUnwrap(screen.first { $0.contains("● REC 00:12") }, text)
                XCTAssertTrue(take.hasSuffix("/take-0001.wav"), take)
                XCTAssertTrue(take.contains("→ …") || take.contains(Self.takePath), take)
                XCTAssertTrue(text.contains("MIC  ON") && text.contains("out R"), text)
            }
        }
        // The OSC line goes before the controls on a crowded short screen; where it shows, it is whole.
        let wide = lines(LiveScreen.draw(try status(strips: 1), columns: 120, rows: 40))
        assertWhole(Self.oscRefusal, in: wide, "120×40")
        let tall = lines(LiveScreen.draw(try status(strips: 1), columns: 80, rows: 40))
        assertWhole(Self.oscRefusal, in: tall, "80×40")
        var quieter = try status(strips: 2)
        quieter.notice = nil
        quieter.message = nil
        quieter.bottomLine = nil
        let usual = lines(LiveScreen.draw(quieter, columns: 80, rows: 24))
        assertWhole(Self.oscRefusal, in: usual, "80×24, two strips, a take, no storm")
        XCTAssertLessThanOrEqual(usual.count, 24)
    }
}
