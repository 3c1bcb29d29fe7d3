import Foundation

/// Writes one line to standard error: the commands' one-line errors and
/// warnings. Control characters (a file's or a packet's) are escaped, so the
/// line stays one line and cannot drive the terminal.
public func printError(_ line: String) {
    FileHandle.standardError.write(Data((TerminalText.escaped(line) + "\n").utf8))
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
