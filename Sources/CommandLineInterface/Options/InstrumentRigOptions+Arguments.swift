import Chains
import Instruments

/// The instrument options `busker play` and `busker render` share, read from the command line.
extension InstrumentRig.Options {
    public static let valued: Set<String> = ["soundfont", "instrument", "program", "bank", "polyphony", "kit", "drums", "note-watchdog"]
    public static let flags: Set<String> = ["no-drums"]

    public static let help = """
    instruments:
      --soundfont PATH       SF2/SF3 for the sampler (default: $BUSKER_SOUNDFONT, then
                             /usr/share/sounds/sf2/default-GM.sf2, FluidR3_GM.sf2)
      --instrument NAME      General MIDI name or number: piano, xylophone, "Church Organ", 13… (default piano)
      --program N            program 0…127 (the same as a number for --instrument)
      --bank N               bank 0…16383 (default 0)
      --polyphony N          sampler voices, 1…4096 (default 256; the quietest are stolen beyond)
      --kit KIT              drum kit: a kit.json or its folder, a Hydrogen kit folder (drumkit.xml),
                             or an installed kit's name (busker kits lists them; default: the shipped kit)
      --drums kit|soundfont|both
                             what plays channel 10: the kit only (notes without a pad are silent),
                             the SoundFont's percussion only (bank 128, the kit the song's program
                             change selects), or both (default): the kit's pads where it has them,
                             the SoundFont for every other note (the start-up line lists which)
      --no-drums             nothing plays channel 10
      --note-watchdog S      end notes held longer than S seconds, 0 = never (default 30)
    """

    /// - Throws: `CommandLineError.usage` for a bad value or options that contradict each other.
    public init(args: ArgumentScanner) throws {
        self.init()
        soundFont = args.string("soundfont")
        instrument = args.string("instrument")
        program = try args.int("program", in: 0...127)
        bank = try args.int("bank", in: 0...16383)
        polyphony = try args.int("polyphony", in: 1...4096)
        kit = args.string("kit")
        drums = !args.has("no-drums")
        if drums == false && kit != nil { throw CommandLineError.usage("--kit and --no-drums contradict each other") }
        if let value = args.string("drums") {
            if !drums { throw CommandLineError.usage("--drums and --no-drums contradict each other") }
            drumSource = try DrumSource(option: value)
            if drumSource == .soundFont && kit != nil {
                throw CommandLineError.usage("--kit and --drums soundfont contradict each other")
            }
        }
        if let seconds = try args.float("note-watchdog") {
            guard (0...3600).contains(seconds) else {
                throw CommandLineError.usage("--note-watchdog \(seconds) s is out of range 0…3600")
            }
            watchdogSeconds = Double(seconds)
        }
        // An instrument several General MIDI names match, or a bad number, is a usage
        // error before anything opens; one no General MIDI name matches may be a
        // name the SoundFont gives its preset (`resolveFiles()`).
        do {
            _ = try SamplerInstrument.resolve(instrument: instrument, program: program, bank: bank)
        } catch SamplerError.unknownInstrument {
        } catch let error as SamplerError {
            throw CommandLineError.usage(error.description)
        }
    }
}

extension DrumSource {
    /// `--drums NAME`.
    /// - Throws: `CommandLineError.usage` naming the choices.
    public init(option value: String) throws {
        guard let source = DrumSource(rawValue: value.lowercased()) else {
            throw CommandLineError.usage("--drums must be kit, soundfont or both, not '\(value)'")
        }
        self = source
    }
}
