import Foundation
import RenderTestSupport
import TerminalUI
import XCTest

/// Both screens in a real terminal (tmux) at 80×24 and 120×40 on the virtual
/// sound card, with what used to be cut: a long take path, a refused preset
/// save, keys that can do nothing here. The title stays on the first row,
/// every key label and the quit key are on screen, no line is wider than the
/// terminal, and every message shows whole (its words in order, none cut).
/// Quitting is deliberate: Esc never quits `busker live`, q asks while the
/// mic is on, and the last line says what ended the session.
final class ScreenFitTests: XCTestCase {
    private var card: VirtualSoundCardFixture?
    private var work: URL!

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        card = try VirtualSoundCardFixture(name: "busker-fit")
        work = try makeWorkFolder("busker-fit")
    }

    override func tearDownWithError() throws {
        try card?.stop()
        removeWorkFolder(work)
    }

    func testLiveAt80x24() throws { try checkLive(columns: 80, rows: 24) }
    func testLiveAt120x40() throws { try checkLive(columns: 120, rows: 40) }
    func testXrunStormAt80x24() throws { try checkXrunStorm(columns: 80, rows: 24) }
    func testXrunStormAt120x40() throws { try checkXrunStorm(columns: 120, rows: 40) }
    func testPlayAt80x24() throws { try checkPlay(columns: 80, rows: 24) }
    func testPlayAt120x40() throws { try checkPlay(columns: 120, rows: 40) }

    /// Space pauses the song where it is and every voice ends; space again goes
    /// on from there; Enter rewinds it.
    func testPlaySpacePausesAndResumesTheSongAndEnterRewindsIt() throws {
        let card = try XCTUnwrap(card)
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let song = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sounds/demo/busker-demo.mid").path
        let tmux = try TmuxSession(socket: "busker-fit-song-\(getpid())", columns: 80, rows: 24,
                                   arguments: [buskerPath, "play", "--output", "busker_out", "--midi", "none", "--soundfont", font, song],
                                   environment: environment(card))
        defer { tmux.stop() }
        let context = "busker play SONG at 80×24"
        _ = try waitForScreen(tmux, title: "BUSKER PLAY", showing: "· playing", context: context)
        usleep(1_500_000)
        try tmux.sendKey("Space")
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.contains("· paused") }, "\(context): space pauses")
        let paused = try songPosition(tmux, context: context)
        XCTAssertGreaterThan(paused, 1, context)
        // Every note ends on the pause: the voices fall to none (their releases may take a moment).
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.hasPrefix("  voices 0/") && $0.contains("drum voices 0 ") },
                      "\(context): voices left sounding in the pause:\n\((try? tmux.screen())?.joined(separator: "\n") ?? "")")
        usleep(1_000_000)
        XCTAssertEqual(try songPosition(tmux, context: context), paused, "\(context): the pause keeps the place")
        try tmux.sendKey("Space")
        XCTAssertTrue(tmux.waitForLine(within: 5) { $0.contains("· playing") }, "\(context): space resumes")
        usleep(1_000_000)
        let resumed = try songPosition(tmux, context: context)
        XCTAssertGreaterThan(resumed, paused, context)
        XCTAssertLessThan(resumed, paused + 3, "\(context): it went on from the place, not from elsewhere")
        try tmux.sendKey("Enter")
        usleep(500_000)
        XCTAssertLessThan(try songPosition(tmux, context: context), 1, "\(context): Enter rewinds")
        try tmux.sendKey("Escape")
        XCTAssertTrue(tmux.waitForLine { $0.contains("busker play: stopped (esc)") }, context)
    }

    /// The song's place from "song: NAME 12.3 / 67.9 s · playing", in seconds.
    private func songPosition(_ tmux: TmuxSession, context: String) throws -> Double {
        let screen = try tmux.screen()
        let line = try XCTUnwrap(screen.first { $0.hasPrefix("  song: ") }, "\(context):\n\(screen.joined(separator: "\n"))")
        let words = line.split(separator: " ")
        let slash = try XCTUnwrap(words.firstIndex(of: "/"), line)
        return try XCTUnwrap(Double(words[slash - 1]), line)
    }

    private func environment(_ card: VirtualSoundCardFixture) -> String {
        "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) JACK_NO_START_SERVER=1 TERM=xterm-256color XDG_CONFIG_HOME=\(work.path)/config"
    }

    private func checkLive(columns: Int, rows: Int) throws {
        let card = try XCTUnwrap(card)
        let folder = work.appendingPathComponent("a-rather-long-folder-name-for-the-evening-set-at-the-market-square/second-half")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let take = folder.appendingPathComponent("take-0001.wav").path
        XCTAssertGreaterThan(take.count, 130, "a path longer than the wider screen")
        let tmux = try TmuxSession(socket: "busker-fit-live-\(getpid())-\(columns)", columns: columns, rows: rows,
                                   arguments: [buskerPath, "live", "--input", "busker_in", "--output", "busker_out", "--midi", "none",
                                               "--record=\(take)"],
                                   environment: environment(card))
        defer { tmux.stop() }
        let context = "busker live at \(columns)×\(rows)"
        var screen = try waitForScreen(tmux, title: "BUSKER LIVE", showing: "● REC", context: context)
        try assertFits(screen, columns: columns, rows: rows, title: "BUSKER LIVE",
                       keys: LiveScreen.keyHelp + LiveScreen.stripKeyHelp, context: context)
        // The take's line keeps its file name; the path gives way from the left.
        let takeLine = try XCTUnwrap(screen.first { $0.contains("● REC") }, screen.joined(separator: "\n"))
        XCTAssertTrue(takeLine.hasSuffix("/second-half/take-0001.wav") && takeLine.contains("→ …"), "\(context): '\(takeLine)'")

        // A refused preset name: why, whole, with the prompt still open; Esc cancels it and the session goes on.
        for key in ["w", "a", "/", "b", "Enter"] { try tmux.sendKey(key) }
        screen = try waitForWords("not saved: preset name 'a/b': has a slash: a preset is named, not a path (files live in the config folder)",
                                  tmux, columns: columns, rows: rows, context: context)
        XCTAssertTrue(screen.contains { $0.contains("save preset as: a/b") }, "\(context): the prompt stays open:\n\(screen.joined(separator: "\n"))")
        try tmux.sendKey("Escape")
        let closed = Date().addingTimeInterval(10)
        repeat {
            usleep(200_000)
            screen = try tmux.screen()
        } while screen.contains(where: { $0.contains("save preset as") }) && Date() < closed
        XCTAssertFalse(screen.contains { $0.contains("save preset as") }, "\(context): Esc closed the prompt")
        XCTAssertTrue(screen.contains { $0.hasSuffix("  not saved") }, "\(context): Esc says nothing was saved:\n\(screen.joined(separator: "\n"))")
        try tmux.sendKey("Escape")
        screen = try waitForWords("Esc does not quit: q quits", tmux, columns: columns, rows: rows, context: context)

        // Keys that can do nothing here say why.
        try tmux.sendKey("l")
        _ = try waitForWords(LiveSession.noMIDISourceMessage, tmux, columns: columns, rows: rows, context: context)
        try tmux.sendKey("v")
        _ = try waitForWords("v: voice processing is not loaded in this session; start busker live with --voice-processing",
                             tmux, columns: columns, rows: rows, context: context)

        // The mic is on and a take runs: q asks; another key stays; q twice quits.
        try tmux.sendKey("q")
        _ = try waitForWords(LiveSession.quitQuestion, tmux, columns: columns, rows: rows, context: context)
        try tmux.sendKey("z")
        XCTAssertTrue(tmux.waitForLine(within: 5) { !$0.contains(LiveSession.quitQuestion) && $0.hasPrefix("BUSKER LIVE") }, context)
        screen = try tmux.screen()
        XCTAssertFalse(screen.contains { $0.contains(LiveSession.quitQuestion) }, "\(context): z answered the question")
        try tmux.sendKey("q")
        _ = try waitForWords(LiveSession.quitQuestion, tmux, columns: columns, rows: rows, context: context)
        try tmux.sendKey("q")
        XCTAssertTrue(tmux.waitForLine { $0.contains("busker live: stopped (q)") }, "\(context): q q quits, and the last line says so")
    }

    /// An xrun storm, provoked for real: `busker live --driver jack` on the
    /// card's server, and another JACK client (jack_metro) stopped for 150 ms
    /// a dozen times, so the server misses its cycles and tells every client
    /// of the xruns. The storm's advice shows whole, with every key.
    private func checkXrunStorm(columns: Int, rows: Int) throws {
        let card = try XCTUnwrap(card)
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jack_metro"), "jack_metro is not installed (jackd2)")
        let take = work.appendingPathComponent("an-evening-of-songs-recorded-at-the-market-square/take-0001.wav").path
        try FileManager.default.createDirectory(atPath: (take as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let tmux = try TmuxSession(socket: "busker-fit-storm-\(getpid())-\(columns)", columns: columns, rows: rows,
                                   arguments: [buskerPath, "live", "--driver", "jack", "--midi", "none", "--record=\(take)"],
                                   environment: environment(card))
        defer { tmux.stop() }
        let context = "busker live --driver jack in an xrun storm at \(columns)×\(rows)"
        _ = try waitForScreen(tmux, title: "BUSKER LIVE", showing: "● REC", context: context)

        let metro = Process()
        metro.executableURL = URL(fileURLWithPath: "/usr/bin/jack_metro")
        metro.arguments = ["-b", "120", "-n", "busker-fit-metro"]
        metro.environment = ProcessInfo.processInfo.environment.merging(["JACK_DEFAULT_SERVER": card.serverName, "JACK_NO_START_SERVER": "1"]) { $1 }
        metro.standardOutput = FileHandle.nullDevice
        metro.standardError = FileHandle.nullDevice
        try metro.run()
        defer {
            kill(metro.processIdentifier, SIGCONT)
            metro.terminate()
            metro.waitUntilExit()
        }
        usleep(1_000_000)
        for _ in 0..<12 {
            kill(metro.processIdentifier, SIGSTOP)
            usleep(150_000)
            kill(metro.processIdentifier, SIGCONT)
            usleep(200_000)
        }
        let screen = try waitForWords("xrun storm: 8 xruns in 5 s; this machine cannot keep up with 64-frame periods, try a larger JACK buffer (jack_bufsize 128)",
                                      tmux, columns: columns, rows: rows, context: context)
        try assertFits(screen, columns: columns, rows: rows, title: "BUSKER LIVE", keys: LiveScreen.keyHelp, context: context)
        let takeLine = try XCTUnwrap(screen.first { $0.contains("● REC") }, "\(context):\n\(screen.joined(separator: "\n"))")
        XCTAssertTrue(takeLine.hasSuffix("/take-0001.wav"), "\(context): '\(takeLine)'")
    }

    private func checkPlay(columns: Int, rows: Int) throws {
        let card = try XCTUnwrap(card)
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let tmux = try TmuxSession(socket: "busker-fit-play-\(getpid())-\(columns)", columns: columns, rows: rows,
                                   arguments: [buskerPath, "play", "--output", "busker_out", "--midi", "none", "--soundfont", font],
                                   environment: environment(card))
        defer { tmux.stop() }
        let context = "busker play at \(columns)×\(rows)"
        var screen = try waitForScreen(tmux, title: "BUSKER PLAY", showing: "esc quit", context: context)
        try assertFits(screen, columns: columns, rows: rows, title: "BUSKER PLAY", keys: PlayScreen.keyHelp, context: context)

        // Space and Enter with no song say so.
        try tmux.sendKey("Space")
        _ = try waitForWords("no song: busker play SONG.mid", tmux, columns: columns, rows: rows, context: context)
        // } steps the instrument: the header names the new one as the channel line does.
        let before = try instrument(in: tmux.screen(), context: context)
        try tmux.sendKey("}")
        var after = before
        let deadline = Date().addingTimeInterval(10)
        while after == before && Date() < deadline {
            usleep(200_000)
            after = try instrument(in: tmux.screen(), context: context)
        }
        XCTAssertNotEqual(after, before, "\(context): } changed the instrument")
        screen = try tmux.screen()
        XCTAssertTrue(screen.contains { $0.hasPrefix("  \(after) from ") }, "\(context): the header names \(after):\n\(screen.joined(separator: "\n"))")
        XCTAssertFalse(screen.contains { $0.hasPrefix("  \(before) from ") }, "\(context): the header still names \(before)")
        try tmux.sendKey("Escape")
        XCTAssertTrue(tmux.waitForLine { $0.contains("busker play: stopped (esc)") }, "\(context): Esc quits busker play")
    }

    /// The keyboard channel's instrument, from "channel 1: NAME (bank B program P)".
    private func instrument(in screen: [String], context: String) throws -> String {
        let line = try XCTUnwrap(screen.first { $0.hasPrefix("  channel 1: ") }, "\(context):\n\(screen.joined(separator: "\n"))")
        let name = line.dropFirst("  channel 1: ".count)
        return String(name[..<(name.range(of: " (bank ")?.lowerBound ?? name.endIndex)])
    }

    /// Waits (bounded) for the first row to be the title and a line to hold `text`, then a few redraws more.
    private func waitForScreen(_ tmux: TmuxSession, title: String, showing text: String, context: String) throws -> [String] {
        var screen: [String] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            usleep(200_000)
            screen = try tmux.screen()
        } while !(screen.first?.hasPrefix(title) == true && screen.contains { $0.contains(text) }) && Date() < deadline
        usleep(500_000)
        screen = try tmux.screen()
        XCTAssertTrue(screen.contains { $0.contains(text) }, "\(context): no '\(text)':\n\(screen.joined(separator: "\n"))")
        return screen
    }

    /// Waits (bounded, 10 s) until the screen's words, read across its lines, hold `message`'s words in order;
    /// then checks the screen still fits.
    @discardableResult
    private func waitForWords(_ message: String, _ tmux: TmuxSession, columns: Int, rows: Int, context: String,
                              file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let wanted = message.split(separator: " ").joined(separator: " ")
        var screen: [String] = []
        let deadline = Date().addingTimeInterval(10)
        repeat {
            screen = try tmux.screen()
            if screen.joined(separator: " ").split(separator: " ").joined(separator: " ").contains(wanted) { break }
            usleep(200_000)
        } while Date() < deadline
        let words = screen.joined(separator: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(words.contains(wanted), "\(context): '\(message)' is not whole on screen:\n\(screen.joined(separator: "\n"))",
                      file: file, line: line)
        XCTAssertLessThanOrEqual(screen.count, rows, context, file: file, line: line)
        for text in screen { XCTAssertLessThanOrEqual(text.count, columns, "\(context): \(text)", file: file, line: line) }
        XCTAssertTrue(screen.first?.hasPrefix("BUSKER") == true, "\(context): the title scrolled away", file: file, line: line)
        return screen
    }

    private func assertFits(_ screen: [String], columns: Int, rows: Int, title: String, keys: [(String, String)], context: String) throws {
        let text = screen.joined(separator: "\n")
        XCTAssertTrue(screen.first?.hasPrefix(title) == true, "\(context): the title line scrolled away:\n\(text)")
        XCTAssertLessThanOrEqual(screen.count, rows, context)
        for line in screen { XCTAssertLessThanOrEqual(line.count, columns, "\(context): \(line)") }
        for (key, label) in keys {
            XCTAssertTrue(text.contains("\(key) \(label)"), "\(context): '\(key) \(label)' is not on screen:\n\(text)")
        }
    }
}
