/// An error the command line reports in one line, with its exit code:
/// 2 for a usage error (bad option or value), 1 for a runtime failure.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String
    let exitCode: Int32

    static func usage(_ message: String) -> CommandLineError { CommandLineError(description: message, exitCode: 2) }
    static func runtime(_ message: String) -> CommandLineError { CommandLineError(description: message, exitCode: 1) }
}
