/// An error the command line reports in one line, with its exit code:
/// 2 for a usage error (bad option or value), 1 for a runtime failure.
public struct CommandLineError: Error, CustomStringConvertible {
    public let description: String
    public let exitCode: Int32

    public static func usage(_ message: String) -> CommandLineError { CommandLineError(description: message, exitCode: 2) }
    public static func runtime(_ message: String) -> CommandLineError { CommandLineError(description: message, exitCode: 1) }
}
