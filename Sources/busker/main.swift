import Chains
import CommandLineInterface
import Foundation
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

// `busker … | head`: a write to the closed pipe fails (EPIPE) instead of
// killing busker with a take or an output file unfinished.
StopSignals.ignoreBrokenPipes()
do {
    try runCommand(Array(CommandLine.arguments.dropFirst()))
    exit(0)
} catch let error as CommandLineError {
    printError("busker: \(error.description)")
    exit(error.exitCode)
} catch let error as SessionError {
    // A request the session cannot carry out is the command line's mistake (exit 2); a failure is 1.
    printError("busker: \(error.description)")
    if case .invalidRequest = error { exit(2) }
    exit(1)
} catch let chainError as ChainError {
    let error = CommandLineError(chainError)
    printError("busker: \(error.description)")
    exit(error.exitCode)
} catch {
    printError("busker: \(error)")
    exit(1)
}
