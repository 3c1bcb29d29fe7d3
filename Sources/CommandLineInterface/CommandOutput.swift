import Control
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error: the commands' one-line errors and
/// warnings. Control characters (a file's or a packet's) are escaped, so the
/// line stays one line and cannot drive the terminal.
public func printError(_ line: String) {
    writeUnchecked(TerminalText.escaped(line) + "\n", to: STDERR_FILENO)
}

/// Writes `text` to the descriptor, all of it unless the descriptor refuses:
/// a pipe whose reader is gone (EPIPE; SIGPIPE is ignored), a terminal that
/// hung up (EIO). Output that cannot be shown is dropped rather than ending
/// the process with a take or an output file unfinished.
/// - Thread: control
/// - Realtime: unsafe (a system call that may block)
public func writeUnchecked(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + done, $0.count - done) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}

/// Seconds with one decimal, as the commands' summary lines print them.
public func formatSeconds(_ s: Double) -> String {
    let tenths = (s * 10).rounded() / 10
    return String(tenths)
}

/// Writes `text` to standard output with control characters escaped
/// (newlines kept): for output that quotes what files hold (kit, pad and
/// preset names), which must not drive the terminal.
public func printEscaped(_ text: String) {
    print(TerminalText.escaped(text, keepingNewlines: true))
}
