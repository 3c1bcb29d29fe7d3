import CommandLineInterface

/// Where a session's words go. The session layer never prints: the
/// executable hands it `standard` (lines to standard output, warnings to
/// standard error, control characters escaped), a test may collect them.
public struct SessionOutput {
    /// A line of the session's own account: what runs, what was granted, the last line.
    public var line: (String) -> Void
    /// A warning: something skipped or doubtful that does not stop the session.
    public var warning: (String) -> Void

    public init(line: @escaping (String) -> Void, warning: @escaping (String) -> Void) {
        self.line = line
        self.warning = warning
    }

    /// The commands' own: standard output and standard error, escaped.
    public static var standard: SessionOutput { SessionOutput(line: { printEscaped($0) }, warning: { printError($0) }) }
}
