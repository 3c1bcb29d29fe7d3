import Chains
import CommandLineInterface
import Foundation
import Session
import Sessions

/// busker: live voice, instruments and recording from a terminal.
/// Exit codes: 0 success, 1 runtime failure, 2 usage error.

func runCommand(_ arguments: [String]) throws {
    guard let name = arguments.first else {
        print(HelpCommand.topLevelHelp)
        throw CommandLineError.usage("no command given")
    }
    let rest = Array(arguments.dropFirst())
    switch name {
    case "--help", "-h": try HelpCommand.run(rest)
    case "--version": print("busker \(HelpCommand.version)")
    default:
        guard let command = BuskerCommand.named(name) else {
            throw CommandLineError.usage("unknown command '\(name)' (try busker --help)")
        }
        try command.run(rest)
    }
}

/// Leaves with `status`, standard output and error flushed, every take
/// already finalized by the command. A device close still running on its
/// `device-release` thread (libasound or libjack waiting on a dead sound
/// server) may be inside that library: `exit` would run the libraries' exit
/// handlers under it, which may wait on that close or free what it uses, so
/// the process then leaves with `_exit`, running none.
func leave(_ status: Int32) -> Never {
    fflush(nil)  // every output stream
    if DriverReleases.closesRunning > 0 { _exit(status) }
    exit(status)
}

// `busker … | head`: a write to the closed pipe fails (EPIPE) instead of
// killing busker with a take or an output file unfinished.
StopSignals.ignoreBrokenPipes()
do {
    try runCommand(Array(CommandLine.arguments.dropFirst()))
    leave(0)
} catch let error as CommandLineError {
    printError("busker: \(error.description)")
    leave(error.exitCode)
} catch let error as SessionError {
    // A request the session cannot carry out is the command line's mistake (exit 2); a failure is 1.
    printError("busker: \(error.description)")
    if case .invalidRequest = error { leave(2) }
    leave(1)
} catch let chainError as ChainError {
    let error = CommandLineError(chainError)
    printError("busker: \(error.description)")
    leave(error.exitCode)
} catch {
    printError("busker: \(error)")
    leave(1)
}
