import Chains
import CommandLineInterface
import Foundation
import Instruments
import Sessions

/// `busker instruments [FONT]`: a SoundFont's presets, bank, program and
/// name, one a line: what `--instrument`, `--program`, `--bank` and the play
/// screen's `{ }` keys choose from.
enum InstrumentsCommand {
    static let help = """
    usage: busker instruments [FONT.sf2]

    Lists the presets of a SoundFont (SF2/SF3): bank, program and name, one a
    line, by bank then program; bank 128 holds the drum kits. FONT defaults to
    the one busker play uses: $BUSKER_SOUNDFONT, then /usr/share/sounds/sf2/default-GM.sf2,
    FluidR3_GM.sf2. Reads the font's index only: no sample is loaded.
    Play one with busker play --bank B --program P, or step through them
    in busker play with { and }.

      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        guard args.positionals.count <= 1 else { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        let presets: SoundFontPresets
        let location: SoundFontLocator.Location
        do {
            location = try SoundFontLocator().locate(explicitPath: args.positionals.first)
            presets = try SoundFontPresets(path: location.path)
        } catch let error as SamplerError {
            // A missing FONT given here is the argument's, not --soundfont's.
            if case .soundFontNotFound(let path, _) = error { throw CommandLineError.runtime("SoundFont \(path): no such file") }
            throw CommandLineError.runtime(error.description)
        }
        printEscaped("\(location): \(presets.presets.count) presets")
        printEscaped("bank  program  name")
        for preset in presets.presets {
            printEscaped("\(pad(preset.bank, 4))  \(pad(preset.program, 7))  \(preset.name)")
        }
        let silence = SoundFontSilence.check(path: location.path)
        if !silence.isEmpty { printError("busker instruments: warning: \(InstrumentRig.describe(silence))") }
    }

    private static func pad(_ number: Int, _ width: Int) -> String {
        let text = String(number)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
