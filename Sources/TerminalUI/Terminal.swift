import Foundation
import Session
#if canImport(Glibc)
import Glibc
#endif

/// The terminal in full-screen mode: raw keys, no echo, the alternate screen,
/// no cursor. `restore()` puts everything back exactly as it was, and runs on
/// every way out (q, SIGINT, SIGTERM, errors), so the shell is left as it was.
public final class Terminal {
    private var original = termios()
    private var active = false

    /// Whether standard input and output are a terminal we can take over.
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    public func enter() {
        guard !active, tcgetattr(STDIN_FILENO, &original) == 0 else { return }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON)
        // Non-blocking reads: VMIN 0, VTIME 0.
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    public func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    deinit { restore() }

    /// Rows and columns, or 24×80 when unknown.
    public var size: (rows: Int, columns: Int) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0 {
            return (Int(ws.ws_row), Int(ws.ws_col))
        }
        return (24, 80)
    }

    public func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Keys typed since the last call.
    public func readKeys() -> [Key] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(STDIN_FILENO, &buffer, buffer.count)
        guard n > 0 else { return [] }
        return Key.parse(Array(buffer[0..<n]))
    }
}

/// A key press as the live screens understand it.
public enum Key: Equatable {
    case character(Character)
    case up, down, left, right
    case escape

    /// Splits raw terminal input into keys; arrow keys arrive as ESC [ A…D (or ESC O A…D).
    public static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                if i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
                    switch bytes[i + 2] {
                    case UInt8(ascii: "A"): keys.append(.up)
                    case UInt8(ascii: "B"): keys.append(.down)
                    case UInt8(ascii: "C"): keys.append(.right)
                    case UInt8(ascii: "D"): keys.append(.left)
                    default: break
                    }
                    i += 3
                    continue
                }
                keys.append(.escape)
                i += 1
                continue
            }
            if b < 0x80 { keys.append(.character(Character(Unicode.Scalar(b)))) }
            i += 1
        }
        return keys
    }
}

extension Terminal: SessionScreen {}
