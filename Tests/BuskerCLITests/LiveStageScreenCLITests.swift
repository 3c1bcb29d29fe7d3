import Foundation
import MIDI
import RenderTestSupport
import TerminalUI
import XCTest

/// The stage's live screen in a real terminal (tmux) at 80×24 and 120×40 on
/// the virtual sound card: `busker live --instrument piano --song …` shows a
/// meter for the mic strip and for every part (keys, drums, song) with the
/// song's position, every key label and the quit key; tab reaches the parts;
/// `s` and Enter move the song; the mode key turns the computer keyboard
/// into the keys part's keyboard (a key press plays a note: the MIDI events
/// rise, and the take's MIDI file holds the note) where q does not quit.
final class LiveStageScreenCLITests: XCTestCase {
    private var card: VirtualSoundCardFixture?
    private var work: URL!
    private let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        card = try VirtualSoundCardFixture(name: "busker-stagefit")
        work = try makeWorkFolder("busker-stagefit")
    }

    override func tearDownWithError() throws {
        try card?.stop()
        removeWorkFolder(work)
    }

    func testStageAt80x24() throws { try checkStage(columns: 80, rows: 24) }
    func testStageAt120x40() throws { try checkStage(columns: 120, rows: 40) }

    private func checkStage(columns: Int, rows: Int) throws {
        let card = try XCTUnwrap(card)
        // A minute of song: a note a second on the piano's channel, so the song's part sounds while it plays.
        var song = GMTestSong()
        for second in 0..<60 { song.note(Double(second), channel: 0, 67, length: 0.5) }
        let songPath = work.appendingPathComponent("song.mid").path
        try song.write(to: songPath, endSeconds: 60)
        let take = work.appendingPathComponent("take-\(columns).wav").path
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName)"
            + " JACK_NO_START_SERVER=1 TERM=xterm-256color XDG_CONFIG_HOME=\(work.path)/config"
        let tmux = try TmuxSession(socket: "busker-stagefit-\(getpid())-\(columns)", columns: columns, rows: rows,
                                   arguments: [buskerPath, "live", "--input", "busker_in", "--output", "busker_out", "--midi", "none",
                                               "--soundfont", font, "--instrument", "piano", "--song", songPath, "--record=\(take)"],
                                   environment: environment)
        defer { tmux.stop() }
        let context = "busker live on a stage at \(columns)×\(rows)"
        var screen = try wait(tmux, context: context, for: "song playing") { $0.contains { $0.contains("· playing") } }
        assertFits(screen, columns: columns, rows: rows, keys: LiveScreen.keyHelp + LiveScreen.stageKeyHelp + LiveScreen.stripKeyHelp,
                   context: context)
        for label in ["1 in 1", "keys", "drums", "song", "out L", "out R"] {
            XCTAssertTrue(screen.contains { $0.hasPrefix("  ") && ($0.contains(" \(label) ") || $0.contains("▸\(label) ")) && $0.hasSuffix("dBFS") },
                          "\(context): no meter for \(label):\n\(screen.joined(separator: "\n"))")
        }
        XCTAssertTrue(screen.contains { $0.contains("control keys · ` plays the instruments") }, "\(context): the mode:\n\(screen.joined(separator: "\n"))")
        // The song plays on its part: its meter rises above silence.
        screen = try wait(tmux, context: context, for: "the song's meter") { meterDB($0, "song").map { $0 > -60 } ?? false }

        // s pauses the song where it is; Enter takes it to the top, stopped; s plays it again.
        try tmux.sendKey("s")
        screen = try wait(tmux, context: context, for: "paused") { $0.contains { $0.contains("· paused") } }
        let paused = try songPosition(screen, context: context)
        XCTAssertGreaterThan(paused, 0, context)
        try tmux.sendKey("Enter")
        screen = try wait(tmux, context: context, for: "stopped") { $0.contains { $0.contains("· stopped") } }
        XCTAssertLessThan(try songPosition(screen, context: context), paused, "\(context): Enter rewinds")
        try tmux.sendKey("s")
        _ = try wait(tmux, context: context, for: "playing again") { $0.contains { $0.contains("· playing") } }

        // Tab goes over the mic strip to the parts: the keys part's controls and keys.
        try tmux.sendKey("Tab")
        screen = try wait(tmux, context: context, for: "keys selected") { $0.contains { $0.contains("▸keys") } }
        assertFits(screen, columns: columns, rows: rows, keys: LiveScreen.keyHelp + LiveScreen.stageKeyHelp + LiveScreen.partKeyHelp,
                   context: context + ", keys selected")
        try tmux.sendKey("x")
        _ = try wait(tmux, context: context, for: "keys muted") { $0.contains { $0.contains("▸keys M ") } }
        try tmux.sendKey("x")
        _ = try wait(tmux, context: context, for: "keys unmuted") { $0.contains { $0.contains("▸keys ") && !$0.contains("▸keys M") } }

        // Keys mode: the screen says so, z and q play notes (q does not quit), Esc stays.
        try tmux.sendKey("`")
        screen = try wait(tmux, context: context, for: "keys mode") { $0.contains { $0.contains("KEYS MODE") } }
        assertFits(screen, columns: columns, rows: rows, keys: LiveScreen.keysModeHelp, context: context + ", keys mode")
        let before = try midiEvents(screen, context: context)
        try tmux.sendKey("z")
        screen = try wait(tmux, context: context, for: "the note played") { (try? midiEvents($0, context: context)).map { $0 > before } ?? false }
        try tmux.sendKey("q")
        try tmux.sendKey("Escape")
        screen = try wait(tmux, context: context, for: "Esc stays") { $0.joined(separator: " ").contains("Esc does not quit") }
        XCTAssertTrue(screen.contains { $0.contains("KEYS MODE") }, "\(context): q and Esc leave keys mode on:\n\(screen.joined(separator: "\n"))")
        XCTAssertFalse(screen.joined().contains(LiveSession.quitQuestion), context)
        try tmux.sendKey("`")
        _ = try wait(tmux, context: context, for: "control keys") { $0.contains { $0.contains("control keys · ` plays") } }

        // q asks (a take runs), q quits; the take's MIDI holds the keys played: C4 (z) and C5 (q).
        try tmux.sendKey("q")
        _ = try wait(tmux, context: context, for: "the quit question") { $0.joined(separator: " ").contains("q again to quit") }
        try tmux.sendKey("q")
        XCTAssertTrue(tmux.waitForLine { $0.contains("busker live: stopped (q)") }, "\(context): q q quits")
        let midi = (take as NSString).deletingPathExtension + ".mid"
        XCTAssertTrue(tmux.waitForLine { _ in FileManager.default.fileExists(atPath: midi) }, midi)
        let file = try StandardMIDIFile(contentsOfFile: midi, mode: .strict)
        var struck: [UInt8] = []
        for event in file.timedEvents(ofTrack: 0) {
            if case .message(.noteOn(_, let note, let velocity)) = event.kind, velocity > 0 { struck.append(note) }
        }
        XCTAssertEqual(struck, [60, 72], "\(context): the take holds the notes the keys played, in order")
    }

    /// A meter's reading in dBFS, from the line labelled `label`; nil when absent or -inf.
    private func meterDB(_ screen: [String], _ label: String) -> Double? {
        guard let line = screen.first(where: { $0.hasPrefix("  ") && ($0.contains(" \(label) ") || $0.contains("▸\(label) ")) && $0.hasSuffix("dBFS") })
        else { return nil }
        return line.split(separator: " ").dropLast().last.flatMap { Double($0) }
    }

    private func songPosition(_ screen: [String], context: String) throws -> Double {
        let line = try XCTUnwrap(screen.first { $0.hasPrefix("  song ") && $0.contains(" s · ") }, "\(context):\n\(screen.joined(separator: "\n"))")
        return try XCTUnwrap(Double(line.split(separator: " ")[1]), line)
    }

    private func midiEvents(_ screen: [String], context: String) throws -> Int {
        let line = try XCTUnwrap(screen.first { $0.contains("MIDI events ") }, "\(context):\n\(screen.joined(separator: "\n"))")
        let words = line.split(separator: " ")
        let index = try XCTUnwrap(words.firstIndex(of: "events"), line)
        return try XCTUnwrap(Int(words[index + 1]), line)
    }

    /// Waits (bounded, 20 s) until `condition` holds for the screen; fails naming `what` if it never does.
    private func wait(_ tmux: TmuxSession, context: String, for what: String, file: StaticString = #filePath, line: UInt = #line,
                      _ condition: ([String]) -> Bool) throws -> [String] {
        var screen: [String] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            screen = try tmux.screen()
            if screen.first?.hasPrefix("BUSKER LIVE") == true && condition(screen) { return screen }
            usleep(200_000)
        } while Date() < deadline
        XCTFail("\(context): never \(what):\n\(screen.joined(separator: "\n"))", file: file, line: line)
        return screen
    }

    private func assertFits(_ screen: [String], columns: Int, rows: Int, keys: [(String, String)], context: String) {
        let text = screen.joined(separator: "\n")
        XCTAssertTrue(screen.first?.hasPrefix("BUSKER LIVE") == true, "\(context): the title line scrolled away:\n\(text)")
        XCTAssertLessThanOrEqual(screen.count, rows, context)
        for line in screen { XCTAssertLessThanOrEqual(line.count, columns, "\(context): \(line)") }
        for (key, label) in keys {
            XCTAssertTrue(text.contains("\(key) \(label)"), "\(context): '\(key) \(label)' is not on screen:\n\(text)")
        }
    }
}
