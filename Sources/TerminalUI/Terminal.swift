import CommandLineInterface
import Foundation
import Sessions
import Session
#if canImport(Glibc)
import Glibc
#endif

/// The terminal in full-screen mode: raw keys, no echo, the alternate screen,
/// no cursor, and (where the terminal speaks the kitty keyboard protocol and
/// the screen asked for it) key press, repeat and release events.
/// `restore()` puts everything back exactly as it was, and runs on every way
/// out (Esc, SIGINT, SIGTERM, SIGHUP, Ctrl-Z, errors), so the shell is left as it was;
/// `enter()` after Ctrl-Z's SIGCONT takes the terminal again, key events included.
public final class Terminal {
    private let input: Int32
    private let output: (String) -> Void
    private var original = termios()
    private var active = false
    private var keys = KeyInput()
    /// Keys typed while the key-event query was answered, handed out by the next read.
    private var typedAhead: [KeyEvent] = []
    /// Whether the terminal answered the kitty keyboard protocol's query and
    /// reports key releases (set by `requestKeyEvents`).
    public private(set) var reportsKeyReleases = false

    /// The kitty protocol's enhancements Busker turns on: disambiguate (1),
    /// event types (2), alternate keys (4: the shifted key), all keys as escape
    /// codes (8: without it, letters send no release).
    public static let keyEventFlags = 1 | 2 | 4 | 8
    /// The kitty protocol's query, followed by a primary device attributes
    /// query that every terminal answers, so one without the protocol answers
    /// only the second and nothing waits for a reply that never comes.
    static let keyEventQuery = "\u{1B}[?u\u{1B}[c"
    static let pushKeyEvents = "\u{1B}[>\(keyEventFlags)u"
    static let popKeyEvents = "\u{1B}[<u"

    /// Whether standard input and output are a terminal we can take over.
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// - Parameters:
    ///   - input: the terminal's file descriptor to read keys from.
    ///   - output: where the screen's bytes go (standard output; tests capture them).
    public init(input: Int32 = STDIN_FILENO,
                output: @escaping (String) -> Void = { writeUnchecked($0, to: STDOUT_FILENO) }) {
        self.input = input
        self.output = output
    }

    public func enter() {
        guard !active, tcgetattr(input, &original) == 0 else { return }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        // Non-blocking reads: VMIN 0, VTIME 0.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSAFLUSH, &raw)
        active = true
        // The alternate screen keeps its own stack of key modes: push after entering it.
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J" + (reportsKeyReleases ? Self.pushKeyEvents : ""))
    }

    public func restore() {
        guard active else { return }
        active = false
        write((reportsKeyReleases ? Self.popKeyEvents : "") + "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(input, TCSAFLUSH, &original)
    }

    deinit { restore() }

    /// Asks the terminal whether it speaks the kitty keyboard protocol and, if
    /// it answers within `timeout` seconds, turns on press, repeat and release
    /// events (`reportsKeyReleases`). Call it after `enter()`; keys typed
    /// meanwhile are kept for the next read.
    /// - Returns: whether key releases are reported now.
    @discardableResult
    public func requestKeyEvents(timeout: Double = 0.3) -> Bool {
        guard active, !reportsKeyReleases else { return reportsKeyReleases }
        write(Self.keyEventQuery)
        var answer: [UInt8] = []
        var replies = TerminalReplies()
        let deadline = monotonicSeconds() + timeout
        while !replies.deviceAttributes {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { break }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32((left * 1000).rounded(.up))) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = read(input, &buffer, buffer.count)
            guard n > 0 else { break }
            answer += buffer[0..<n]
            replies = TerminalReplies(answer)
        }
        typedAhead += keys.feed(replies.rest)
        if replies.keyboardProtocol {
            reportsKeyReleases = true
            write(Self.pushKeyEvents)
        }
        return reportsKeyReleases
    }

    /// Rows and columns, or 24×80 when unknown.
    public var size: (rows: Int, columns: Int) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 {
            return (Int(ws.ws_row), Int(ws.ws_col))
        }
        return (24, 80)
    }

    public func write(_ text: String) {
        output(text)
    }

    /// Key events since the last call. With key events on, the terminal sends
    /// Ctrl-C and Ctrl-Z as key events rather than signals: they are raised
    /// here (SIGINT, SIGTSTP), so they work as they do everywhere else.
    public func readEvents() -> [KeyEvent] {
        var events = typedAhead
        typedAhead.removeAll()
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(input, &buffer, buffer.count)
        events += n > 0 ? keys.feed(buffer[0..<n]) : keys.flush()
        guard reportsKeyReleases else { return events }
        return events.filter { event in
            guard event.action == .press else { return true }
            switch event.key {
            case .character("\u{03}"): raise(SIGINT)
            case .character("\u{1A}"): raise(SIGTSTP)
            default: return true
            }
            return false
        }
    }

    /// Keys pressed since the last call (releases left out).
    public func readKeys() -> [Key] {
        readEvents().filter { $0.action != .release }.map(\.key)
    }
}

extension Terminal: SessionScreen {}
