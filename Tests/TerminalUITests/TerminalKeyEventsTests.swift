import Foundation
import Sessions
import Session
import TerminalUI
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The kitty keyboard protocol's query, push and pop, on a pseudo-terminal
/// whose master side plays the terminal's answers; what `Terminal` writes is captured.
final class TerminalKeyEventsTests: XCTestCase {
    private final class Screen {
        var written = ""
    }

    private struct PseudoTerminal {
        let master: Int32
        let slave: Int32

        init?() {
            typealias Unlock = @convention(c) (Int32) -> Int32
            typealias SlaveName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
            guard let unlockSymbol = dlsym(nil, "unlockpt"), let nameSymbol = dlsym(nil, "ptsname") else { return nil }
            let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard master >= 0 else { return nil }
            guard unsafeBitCast(unlockSymbol, to: Unlock.self)(master) == 0,
                  let name = unsafeBitCast(nameSymbol, to: SlaveName.self)(master) else {
                close(master)
                return nil
            }
            let slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
            guard slave >= 0 else {
                close(master)
                return nil
            }
            self.master = master
            self.slave = slave
        }

        func answer(_ text: String) {
            let bytes = Array(text.utf8)
            XCTAssertEqual(write(master, bytes, bytes.count), bytes.count)
        }

        func closeBoth() {
            Glibc.close(slave)
            Glibc.close(master)
        }
    }

    private func terminal() throws -> (Terminal, PseudoTerminal, Screen) {
        guard let pty = PseudoTerminal() else { throw XCTSkip("no pseudo-terminals here") }
        let screen = Screen()
        return (Terminal(input: pty.slave, output: { screen.written += $0 }), pty, screen)
    }

    private let query = "\u{1B}[?u\u{1B}[c"
    private let push = "\u{1B}[>15u"
    private let pop = "\u{1B}[<u"

    /// A terminal that answers the query: events pushed after the alternate
    /// screen is entered, popped before it is left, pushed again after Ctrl-Z
    /// and `fg` (restore, enter); a key typed during the query is kept.
    func testAnsweredQueryPushesAndEveryRestorePops() throws {
        let (terminal, pty, screen) = try terminal()
        defer { pty.closeBoth() }
        terminal.enter()
        pty.answer("\u{1B}[?0u\u{1B}[?62;22cz")
        XCTAssertTrue(terminal.requestKeyEvents(timeout: 5))
        XCTAssertTrue(terminal.reportsKeyReleases)
        XCTAssertTrue(screen.written.hasSuffix(query + push), screen.written.debugDescription)
        XCTAssertEqual(terminal.readEvents(), [KeyEvent(.character("z"), keyCode: 122)])
        pty.answer("\u{1B}[122;1:3u")
        XCTAssertEqual(terminal.readEvents(), [KeyEvent(.character("z"), .release, keyCode: 122)])

        screen.written = ""
        terminal.restore()
        XCTAssertEqual(screen.written, pop + "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        screen.written = ""
        terminal.enter()
        XCTAssertEqual(screen.written, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J" + push, "SIGCONT's enter pushes again")
        screen.written = ""
        terminal.restore()
        terminal.restore()
        XCTAssertEqual(screen.written, pop + "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l", "popped once, however often restored")
    }

    /// With key events on, the terminal sends Ctrl-C and Ctrl-Z as key
    /// events, not signals: the read raises them, so they quit and suspend as
    /// everywhere else (the sessions' handlers only record them).
    func testCtrlCAndCtrlZAsKeyEventsAreRaisedAsSignals() throws {
        let (terminal, pty, _) = try terminal()
        defer { pty.closeBoth() }
        StopSignals.install(jobControl: true)
        defer {
            for number in [SIGINT, SIGTERM, SIGTSTP, SIGCONT] { signal(number, SIG_DFL) }
            _ = StopSignals.take()
        }
        _ = StopSignals.take()
        terminal.enter()
        defer { terminal.restore() }
        pty.answer("\u{1B}[?0u\u{1B}[?62c")
        XCTAssertTrue(terminal.requestKeyEvents(timeout: 5))
        pty.answer("\u{1B}[99;5u\u{1B}[99;5:3u\u{1B}[122;5u\u{1B}[114;5u")
        XCTAssertEqual(terminal.readEvents().map(\.key), [.character("\u{03}"), .character("\u{12}")],
                       "Ctrl-C's release stays an event; Ctrl-R is a key")
        XCTAssertEqual(StopSignals.take(), [.interrupt, .terminalStop])
    }

    /// A terminal without the protocol answers only the device attributes:
    /// no push, no pop, the timing rules stay. (tmux answers so.)
    func testDeviceAttributesAloneLeaveLegacyKeys() throws {
        let (terminal, pty, screen) = try terminal()
        defer { pty.closeBoth() }
        terminal.enter()
        pty.answer("\u{1B}[?1;2c")
        XCTAssertFalse(terminal.requestKeyEvents(timeout: 5))
        XCTAssertFalse(screen.written.contains(push))
        terminal.restore()
        XCTAssertFalse(screen.written.contains(pop))
        XCTAssertTrue(screen.written.hasSuffix("\u{1B}[?1049l"))
    }

    /// No answer at all: the wait ends at its bound, legacy keys.
    func testSilenceLeavesLegacyKeys() throws {
        let (terminal, pty, screen) = try terminal()
        defer { pty.closeBoth() }
        terminal.enter()
        XCTAssertFalse(terminal.requestKeyEvents(timeout: 0.05))
        terminal.restore()
        XCTAssertFalse(screen.written.contains(push))
        XCTAssertFalse(screen.written.contains(pop))
    }
}
