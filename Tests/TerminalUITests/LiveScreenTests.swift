import Chains
import CommandLineInterface
import Engine
import FeedbackGuard
import Foundation
import Sessions
import Session
import TerminalUI
import XCTest

/// A running live session's status with the strips of `commandLine` (`busker live`'s
/// options), strip `selected` selected, the output at −20/−21 dBFS peak and the guard
/// on with nothing found; `peakDB` gives each strip's peak by its index.
func liveStatus(_ commandLine: [String], selected: Int = 0, peakDB: (Int) -> Float = { _ in -12 }, xruns: Int = 0,
                notice: String? = nil, latency: String, devices: String, recording: String? = nil) throws -> LiveStatus {
    let settings = try LiveSettings(commandLine: commandLine)
    let strips = settings.strips.enumerated().map { index, strip in
        StripStatus(number: index + 1, source: strip.sourceLabel, peakDB: peakDB(index), settings: strip,
                    selected: index == selected, voiceProcessingAvailable: false)
    }
    return LiveStatus(micOn: true, settings: settings, strips: strips, selectedStrip: selected,
                      outputPeakDB: [-20, -21], outputRMSDB: [-30, -31], limiterReductionDB: 0,
                      howl: HowlGuardStatus(enabled: true, feedbackWarning: false, notches: [], gainReductionDB: 0,
                                            detectionCount: 0, firstDetectionFrame: nil),
                      xruns: xruns, state: "running", notice: notice, hint: nil, latency: latency, devices: devices,
                      seconds: 3, recording: recording)
}

/// A drawn screen's text without its escape sequences, one entry per line.
func screenLines(_ screen: String) -> [String] {
    let plain = screen.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
    return plain.components(separatedBy: "\r\n")
}

/// The live screen with channel strips: every strip's meter under the input
/// channel(s) it reads, the selected strip's controls, the strip keys.
final class LiveScreenTests: XCTestCase {
    private func status(selected: Int) throws -> LiveStatus {
        try liveStatus(["--inputs", "1,2+3", "--strip", "1:pan=-0.4,bass=3", "--strip", "2:mute=on,gain=-6"], selected: selected,
                       peakDB: { $0 == 0 ? -12 : -.infinity }, latency: "48000 Hz", devices: "hw:1 → hw:1")
    }

    private func lines(_ screen: String) -> [String] { screenLines(screen) }

    func testEveryStripsMeterShowsTheChannelsItReads() throws {
        let screen = lines(LiveScreen.draw(try status(selected: 0), columns: 120))
        let stripOne = try XCTUnwrap(screen.first { $0.contains("1 in 1 ") })
        XCTAssertTrue(stripOne.contains("▸"), "strip 1 is marked as selected: \(stripOne)")
        XCTAssertTrue(stripOne.contains("-12.0 dBFS"), stripOne)
        let stripTwo = try XCTUnwrap(screen.first { $0.contains("2 in 2+3") })
        XCTAssertTrue(stripTwo.contains("-inf dBFS"), stripTwo)
        XCTAssertTrue(stripTwo.contains(" M "), "strip 2's mute shows by its meter: \(stripTwo)")
        XCTAssertTrue(screen.contains { $0.contains("out L") } && screen.contains { $0.contains("out R") })
    }

    func testTheSelectedStripsControlsAreShown() throws {
        let first = lines(LiveScreen.draw(try status(selected: 0), columns: 160)).joined(separator: "\n")
        XCTAssertTrue(first.contains("strip 1 (in 1):  gain +0 dB  pan L 40"), first)
        XCTAssertTrue(first.contains("bass +3 dB"), first)
        let second = lines(LiveScreen.draw(try status(selected: 1), columns: 160)).joined(separator: "\n")
        XCTAssertTrue(second.contains("strip 2 (in 2+3):  gain -6 dB  pan C  MUTED"), second)
        for (key, _) in LiveScreen.keyHelp + LiveScreen.stripKeyHelp {
            XCTAssertTrue(second.contains(key), "key \(key) is on the screen")
        }
    }

    /// At 80×24 and 120×40, with a notice and a take running: every key's
    /// label is drawn, no line is wider than the terminal, no more lines than rows.
    func testEverythingFitsTheUsualTerminalSizes() throws {
        var status = try status(selected: 1)
        status.notice = "a device appeared: USB Audio CODEC"
        status.recording = "● REC 00:12  take-001.wav"
        status.latency = "48000 Hz · period 64 · round trip 128 frames = 2.7 ms · drift +250 ppm · now 128 fr"
        status.dspLoad = RenderLoadMeter.Reading(average: 12.34, peak: 87.6)
        for (columns, rows) in [(80, 24), (120, 40), (100, 30)] {
            let screen = lines(LiveScreen.draw(status, columns: columns, rows: rows))
            let text = screen.joined(separator: "\n")
            XCTAssertLessThanOrEqual(screen.count, rows, text)
            for line in screen { XCTAssertLessThan(line.count, columns, "\(columns)×\(rows): \(line)") }
            for (key, label) in LiveScreen.keyHelp + LiveScreen.stripKeyHelp {
                XCTAssertTrue(text.contains("\(key) \(label)"), "\(key) \(label) at \(columns)×\(rows):\n\(text)")
            }
            XCTAssertTrue(text.contains("MIC  ON") && text.contains("REC 00:12"), text)
            XCTAssertTrue(text.contains("drift +250 ppm") && text.contains("xruns 0"), "two clocks' drift and the xruns at \(columns)×\(rows):\n\(text)")
            XCTAssertTrue(text.contains("DSP 12 % (peak 88 %)"), "the DSP load at \(columns)×\(rows):\n\(text)")
        }
        // One clock, 120 columns: the DSP load joins the timing line (at 80 it wraps to the next, as above).
        status.latency = "48000 Hz · period 64 · round trip 128 frames = 2.7 ms"
        let wide = lines(LiveScreen.draw(status, columns: 120, rows: 40))
        XCTAssertTrue(wide.contains { $0.contains("xruns 0") && $0.contains("DSP 12 % (peak 88 %)") }, wide.joined(separator: "\n"))
    }

    /// A terminal too short for everything keeps the meters and the keys and drops the tip first.
    func testAShortTerminalDropsTheTipBeforeTheKeys() throws {
        let tall = lines(LiveScreen.draw(try status(selected: 0), columns: 80, rows: 40)).joined(separator: "\n")
        XCTAssertTrue(tall.contains("Tip:"), tall)
        let short = lines(LiveScreen.draw(try status(selected: 0), columns: 80, rows: 17))
        XCTAssertFalse(short.joined().contains("Tip:"))
        XCTAssertTrue(short.joined().contains("q quit") && short.joined().contains("out R"), short.joined(separator: "\n"))
    }

    func testTheStatusLineNamesEachStripsInput() throws {
        let line = try status(selected: 0).statusLine
        XCTAssertTrue(line.contains("in 1 -12.0 dBFS · in 2+3 -inf dBFS"), line)
    }

    /// `--no-tui` on two clocks says what the screen says: the drift and the latency held.
    func testTheStatusLineShowsTheDriftOnTwoClocks() throws {
        var two = try status(selected: 0)
        XCTAssertFalse(two.statusLine.contains("ppm"), "one clock: no drift shown")
        two.clockCorrection = ClockCorrection(setPointFrames: 128, latencyFrames: 129.4, driftPPM: -251.6, sampleRate: 48000)
        XCTAssertTrue(two.statusLine.contains("xruns 0 · drift −252 ppm · now 129 fr"), two.statusLine)
    }

    /// `--no-tui` gives the DSP load once a second of audio has been measured, after the xruns.
    func testTheStatusLineGivesTheDSPLoad() throws {
        var loaded = try status(selected: 0)
        XCTAssertFalse(loaded.statusLine.contains("DSP"), "no second measured yet: nothing shown")
        loaded.dspLoad = RenderLoadMeter.Reading(average: 2.94, peak: 11.2)
        XCTAssertTrue(loaded.statusLine.contains("xruns 0 · DSP 2.9 % (peak 11 %)"), loaded.statusLine)
    }
}
