import Foundation
import Rig

/// busker: live voice, instruments and recording from a terminal.
/// Exit codes: 0 success, 1 runtime failure, 2 usage error.

let topLevelHelp = """
usage: busker <command> [options]

Busker is a real-time audio engine for Linux: live voice amplification with
EQ, reverb and a limiter, instruments over MIDI, and recording.

commands:
  live     the live mic: mic → EQ → reverb → limiter → speaker, on ALSA
           devices, or offline over files (--input file:IN.wav --output file:OUT.wav)
  play     play the piano and drums over MIDI, from the computer keyboard, or a MIDI file
  render   render a MIDI file through the instruments to an audio file, offline
  kits     list the drum kits installed (Busker's and Hydrogen's) and their pads
  instruments  list a SoundFont's presets (bank, program, name)
  record   record an input as it is to WAV/FLAC/Ogg (crash-safe; live and play record with --record)
  repair   fix the header of a WAV cut short by a crash or a full disk
  devices  list sound cards and ALSA PCM names
  bench    measure the voice chain's speed, and compare it with sox
  help     show help for a command (busker help live)

Every command takes --help. Exit status: 0 success, 1 failure, 2 usage error.
"""

func runCommand(_ arguments: [String]) throws {
    guard let command = arguments.first else {
        print(topLevelHelp)
        throw CommandLineError.usage("no command given")
    }
    let rest = Array(arguments.dropFirst())
    switch command {
    case "live": try LiveCommand.run(rest)
    case "bench": try BenchCommand.run(rest)
    case "render": try RenderCommand.run(rest)
    case "play": try PlayCommand.run(rest)
    case "devices": try DevicesCommand.run(rest)
    case "kits": try KitsCommand.run(rest)
    case "instruments": try InstrumentsCommand.run(rest)
    case "record": try RecordCommand.run(rest)
    case "repair": try RepairCommand.run(rest)
    case "help", "--help", "-h":
        switch rest.first {
        case nil: print(topLevelHelp)
        case "live": print(LiveCommand.help)
        case "bench": print(BenchCommand.help)
        case "render": print(RenderCommand.help)
        case "play": print(PlayCommand.help)
        case "devices": print(DevicesCommand.help)
        case "kits": print(KitsCommand.help)
        case "instruments": print(InstrumentsCommand.help)
        case "record": print(RecordCommand.help)
        case "repair": print(RepairCommand.help)
        case let other?: throw CommandLineError.usage("no help for unknown command '\(other)'")
        }
    case "--version": print("busker 0.1.0")
    default:
        throw CommandLineError.usage("unknown command '\(command)' (try busker --help)")
    }
}


do {
    try runCommand(Array(CommandLine.arguments.dropFirst()))
    exit(0)
} catch let error as CommandLineError {
    printError("busker: \(error.description)")
    exit(error.exitCode)
} catch {
    printError("busker: \(error)")
    exit(1)
}
