import CommandLineInterface
import Sessions

/// One of busker's commands: its help (from which `--help`, the man page and
/// the completion come) and what runs it. A new command is one entry in `all`.
struct BuskerCommand: Sendable {
    let help: CommandHelp
    let run: @Sendable ([String]) throws -> Void

    var name: String { help.name }

    init(_ name: String, _ summary: String, help text: String, positionals: CompletionKind = .none, run: @escaping @Sendable ([String]) throws -> Void) {
        help = CommandHelp(name: name, summary: summary, text: text, positionals: positionals)
        self.run = run
    }

    /// Every command, in the order `busker --help` lists them.
    static let all: [BuskerCommand] = [
        BuskerCommand("live", "the live mic: mic → EQ → reverb → limiter → speaker, on devices or over files",
                      help: LiveCommand.help, run: LiveCommand.run),
        BuskerCommand("play", "play the piano and drums over MIDI, from the computer keyboard, or a MIDI file",
                      help: PlayCommand.help, positionals: .files(extensions: CompletionKind.songExtensions + CompletionKind.soundFontExtensions),
                      run: PlayCommand.run),
        BuskerCommand("render", "render a MIDI file through the instruments to an audio file, offline",
                      help: RenderCommand.help, positionals: .files(extensions: CompletionKind.songExtensions + CompletionKind.soundFontExtensions),
                      run: RenderCommand.run),
        BuskerCommand("kits", "list the drum kits installed (Busker's and Hydrogen's) and their pads",
                      help: KitsCommand.help, positionals: .kit, run: KitsCommand.run),
        BuskerCommand("instruments", "list a SoundFont's presets (bank, program, name)",
                      help: InstrumentsCommand.help, positionals: .files(extensions: CompletionKind.soundFontExtensions),
                      run: InstrumentsCommand.run),
        BuskerCommand("record", "record an input as it is to WAV/FLAC/Ogg (crash-safe)",
                      help: RecordCommand.help, positionals: .files(extensions: CompletionKind.audioExtensions), run: RecordCommand.run),
        BuskerCommand("repair", "fix the header of a WAV cut short by a crash or a full disk",
                      help: RepairCommand.help, positionals: .files(extensions: ["wav"]), run: RepairCommand.run),
        BuskerCommand("analyze", "print a sound file's loudness (EBU R 128: LUFS, loudness range, true peak)",
                      help: AnalyzeCommand.help, positionals: .files(extensions: CompletionKind.audioExtensions), run: AnalyzeCommand.run),
        BuskerCommand("devices", "list sound cards, ALSA PCM names, MIDI inputs and JACK ports",
                      help: DevicesCommand.help, run: DevicesCommand.run),
        BuskerCommand("bench", "measure the voice chain's speed against sox, or the whole stage's cost",
                      help: BenchCommand.help, run: BenchCommand.run),
        BuskerCommand("help", "show help for a command (busker help live), the man page or the completion script",
                      help: HelpCommand.help, positionals: .commands, run: HelpCommand.run),
    ]

    static func named(_ name: String) -> BuskerCommand? { all.first { $0.name == name } }
}
