import Foundation
import RenderTestSupport
import TerminalUI
import XCTest

/// `busker live`'s screen in a real terminal (tmux) of the usual size, 80×24,
/// and a roomier 120×40, on the virtual sound card: every key's label is on
/// screen, the screen starts at its title line (nothing scrolled it away) and
/// no line wraps into the next (each meter line ends with its reading).
final class LiveScreenSizeTests: XCTestCase {
    private var card: VirtualSoundCardFixture?

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        card = try VirtualSoundCardFixture(name: "busker-screen-test")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    func testEveryKeyIsOnScreenAt80x24() throws {
        try checkScreen(columns: 80, rows: 24, extraArguments: [])
    }

    func testTwoStripsFitAt80x24() throws {
        try checkScreen(columns: 80, rows: 24, extraArguments: ["--inputs", "1,2"])
    }

    func testEveryKeyIsOnScreenAt120x40() throws {
        try checkScreen(columns: 120, rows: 40, extraArguments: ["--inputs", "1,2"])
    }

    private func checkScreen(columns: Int, rows: Int, extraArguments: [String]) throws {
        let card = try XCTUnwrap(card)
        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) JACK_NO_START_SERVER=1 TERM=xterm-256color"
        let tmux = try TmuxSession(socket: "busker-screen-\(getpid())-\(columns)", columns: columns, rows: rows,
                                   arguments: [buskerPath, "live", "--input", "busker_in", "--output", "busker_out"] + extraArguments,
                                   environment: environment)
        defer { tmux.stop() }

        // Wait (bounded) for a full screen: the title and the tip at its end.
        var screen: [String] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            usleep(200_000)
            screen = try tmux.screen()
        } while !(screen.first?.hasPrefix("BUSKER LIVE") == true && screen.contains { $0.contains("quit") }) && Date() < deadline
        usleep(500_000)  // a few more redraws with the meters running
        screen = try tmux.screen()
        let text = screen.joined(separator: "\n")

        XCTAssertTrue(screen.first?.hasPrefix("BUSKER LIVE") == true, "the title line scrolled away:\n\(text)")
        XCTAssertLessThanOrEqual(screen.count, rows)
        for line in screen { XCTAssertLessThanOrEqual(line.count, columns, line) }
        for (key, label) in LiveScreen.keyHelp + LiveScreen.stripKeyHelp {
            XCTAssertTrue(text.contains("\(key) \(label)"), "'\(key) \(label)' is not on the \(columns)×\(rows) screen:\n\(text)")
        }
        // Meter lines carry their reading at their end: a wrapped one would not.
        let meters = screen.filter { $0.contains("█") || $0.contains("·····") }
        XCTAssertFalse(meters.isEmpty, text)
        for line in meters { XCTAssertTrue(line.hasSuffix("dBFS"), "a meter line wrapped: '\(line)'\n\(text)") }
        XCTAssertTrue(text.contains(" LUFS  short-term loudness"), "the output's loudness under its meters:\n\(text)")

        // Quit from the keyboard (the mic is on: q asks, a second q quits): the screen is
        // given back, with the command line that starts the same sound again (compared
        // without spaces: the terminal wraps it at any space, and the capture drops a
        // line's trailing ones).
        try tmux.sendKey("q")
        XCTAssertTrue(tmux.waitForLine(within: 10) { $0.contains(LiveSession.quitQuestion) }, "q asks while the mic is on")
        try tmux.sendKey("q")
        // The card's environment first, then busker by the path that was run.
        let restart = "startthesamesoundagainwith:ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        let quitDeadline = Date().addingTimeInterval(10)
        repeat {
            usleep(200_000)
            screen = try tmux.screen()
        } while !screen.joined().filter({ !$0.isWhitespace }).contains(restart) && Date() < quitDeadline
        let after = screen.joined().filter { !$0.isWhitespace }
        XCTAssertTrue(after.contains(restart), screen.joined(separator: "\n"))
        XCTAssertTrue(after.contains("\(buskerPath)live--inputbusker_in--outputbusker_out"), screen.joined(separator: "\n"))
        if extraArguments == ["--inputs", "1,2"] {
            XCTAssertTrue(after.contains("--inputs1,2"), "the restart line keeps the strips: \(screen.joined(separator: "\n"))")
        }
    }
}
