import CommandLineInterface
import Sessions
import TerminalUI

/// `busker help`: the top-level help, a command's help, and the man page and
/// bash completion made from the same texts (`ManPage`, `BashCompletion`).
enum HelpCommand {
    static let version = "0.1.0"

    static let help = """
    usage: busker help [COMMAND]
           busker help --man | --completion | --commands

    Prints the help of COMMAND (the same as busker COMMAND --help), or of busker.
    The man page and the completion script are made from these help texts;
    Tools/install-cli-docs installs both.

      --man                  print busker(1) in troff (man -l <(busker help --man) reads it)
      --completion           print the bash completion script
      --commands             print the command names, one a line
      -h, --help             show this help
    """

    static let description = """
    Busker is a real-time audio engine for Linux: live voice amplification with
    EQ, reverb and a limiter, instruments over MIDI, and recording.
    """

    static let epilogue = """
    EXIT STATUS:
    0 success, 1 runtime failure (a device, a file), 2 usage error (a bad option or value).

    ENVIRONMENT:
    BUSKER_SOUNDFONT: the SoundFont busker play and busker render load when none is given.
    XDG_CONFIG_HOME: presets go in $XDG_CONFIG_HOME/busker (else ~/.config/busker).
    XDG_MUSIC_DIR: takes go in $XDG_MUSIC_DIR/Busker (else ~/Music/Busker).
    JACK_DEFAULT_SERVER: the JACK server --driver jack connects to.

    SEE ALSO:
    aplay(1), arecord(1), fluidsynth(1), jackd(1); the README and docs/ of Busker's source.
    """

    /// The keys of both screens, from the tables the screens draw their key help from.
    static var screenKeys: [(title: String, keys: [(key: String, action: String)])] {
        [("busker live", LiveScreen.keyHelp.map { (key: $0.0, action: $0.1) }),
         ("busker live: the selected strip", LiveScreen.stripKeyHelp.map { (key: $0.0, action: $0.1) }),
         ("busker live on a stage", LiveScreen.stageKeyHelp.map { (key: $0.0, action: $0.1) }),
         ("busker live on a stage: the selected part", LiveScreen.partKeyHelp.map { (key: $0.0, action: $0.1) }),
         ("busker live on a stage: keys mode", LiveScreen.keysModeHelp.map { (key: $0.0, action: $0.1) }),
         ("busker play", PlayScreen.keyHelp.map { (key: $0.0, action: $0.1) })]
    }

    static var topLevelHelp: String {
        let width = BuskerCommand.all.map(\.name.count).max() ?? 0
        let lines = BuskerCommand.all.map { "  " + $0.name.padding(toLength: width + 2) + $0.help.summary }
        return """
        usage: busker <command> [options]

        \(description)

        commands:
        \(lines.joined(separator: "\n"))

        Every command takes -h or --help. Exit status: 0 success, 1 failure, 2 usage error.
        """
    }

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        let asked = ["man", "completion", "commands"].filter { args.has($0) }
        if asked.count + (args.positionals.isEmpty ? 0 : 1) > 1 {
            throw CommandLineError.usage("busker help takes one of COMMAND, --man, --completion, --commands")
        }
        if args.has("man") {
            print(ManPage(version: version, tagline: "live voice, instruments and recording from a terminal",
                          description: description, commands: BuskerCommand.all.map(\.help), epilogue: epilogue,
                          keys: screenKeys).troff, terminator: "")
        } else if args.has("completion") {
            print(BashCompletion(commands: BuskerCommand.all.map(\.help), topLevelOptions: ["-h", "--help", "--version"]).script, terminator: "")
        } else if args.has("commands") {
            for command in BuskerCommand.all { print(command.name) }
        } else if let name = args.positionals.first {
            guard args.positionals.count == 1 else { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
            guard let command = BuskerCommand.named(name) else {
                throw CommandLineError.usage("no help for unknown command '\(name)'")
            }
            print(command.help.text)
        } else {
            print(topLevelHelp)
        }
    }
}

private extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: " ", count: length - count)
    }
}
