import Foundation

/// Writes one line to standard error: the commands' one-line errors and warnings.
public func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Seconds with one decimal, as the commands' summary lines print them.
public func formatSeconds(_ s: Double) -> String {
    let tenths = (s * 10).rounded() / 10
    return String(tenths)
}
