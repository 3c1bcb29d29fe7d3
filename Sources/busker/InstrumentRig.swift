import AudioCore
import Foundation
import Instruments
import MIDI

/// The instruments as `busker play` and `busker render` build them: a MIDI
/// scheduler fed by the sources, the FluidSynth sampler on every channel but
/// 10, the drum kit on channel 10, and the instrument chain (mixer, EQ,
/// reverb, limiter) behind them.
final class InstrumentRig {
    /// The instrument options both commands share.
    struct Options {
        var soundFont: String?
        var instrument: String?
        var program: Int?
        var bank: Int?
        var polyphony: Int?
        var kit: String?
        var drums = true
        var watchdogSeconds = 30.0

        static let valued: Set<String> = ["soundfont", "instrument", "program", "bank", "polyphony", "kit", "note-watchdog"]
        static let flags: Set<String> = ["no-drums"]

        static let help = """
        instruments:
          --soundfont PATH       SF2/SF3 for the sampler (default: $BUSKER_SOUNDFONT, then
                                 /usr/share/sounds/sf2/default-GM.sf2, FluidR3_GM.sf2)
          --instrument NAME      General MIDI name or number: piano, xylophone, "Church Organ", 13… (default piano)
          --program N            program 0…127 (the same as a number for --instrument)
          --bank N               bank 0…16383 (default 0)
          --polyphony N          sampler voices, 1…4096 (default 256; the quietest are stolen beyond)
          --kit PATH             drum kit manifest (kit.json) or its folder (default: the shipped kit)
          --no-drums             no drum kit; channel 10 is silent
          --note-watchdog S      end notes held longer than S seconds, 0 = never (default 30)
        """

        init(args: ArgumentScanner) throws {
            soundFont = args.string("soundfont")
            instrument = args.string("instrument")
            program = try args.int("program", in: 0...127)
            bank = try args.int("bank", in: 0...16383)
            polyphony = try args.int("polyphony", in: 1...4096)
            kit = args.string("kit")
            drums = !args.has("no-drums")
            if drums == false && kit != nil { throw CommandLineError.usage("--kit and --no-drums contradict each other") }
            if let seconds = try args.float("note-watchdog") {
                guard (0...3600).contains(seconds) else {
                    throw CommandLineError.usage("--note-watchdog \(seconds) s is out of range 0…3600")
                }
                watchdogSeconds = Double(seconds)
            }
        }
    }

    let scheduler: MIDIScheduler
    let sampler: SamplerNode
    let synth: SamplerSynth
    let soundFont: SoundFontLocator.Location
    let drums: DrumKitNode?
    let kit: DrumKit?
    let chain: InstrumentChain

    /// Loads the SoundFont and the kit (slow: seconds for FluidR3_GM) and builds the graph.
    /// - Throws: `CommandLineError` with the one-line reason.
    init(options: Options, ports: [MIDIInputPort], player: MIDIFilePlayer?, sampleRate: Double,
         settings: VoiceSettings, limiterLookaheadMilliseconds: Float) throws {
        scheduler = MIDIScheduler(ports: ports, filePlayer: player, watchdogSeconds: options.watchdogSeconds)
        do {
            soundFont = try SoundFontLocator().locate(explicitPath: options.soundFont)
            let instrument = try SamplerInstrument.resolve(instrument: options.instrument, program: options.program, bank: options.bank)
            let configuration = SamplerConfiguration(soundFontPath: soundFont.path, instrument: instrument,
                                                     polyphony: options.polyphony ?? SamplerConfiguration.defaultPolyphony)
            sampler = SamplerNode(events: scheduler.events, sampleRate: sampleRate)
            synth = try sampler.load(configuration)
        } catch let error as SamplerError {
            throw CommandLineError.runtime(error.description)
        }
        if options.drums {
            do {
                let path = try options.kit.map(Self.manifestPath) ?? DrumKitLocation.defaultManifestPath()
                let loaded = try DrumKit.load(manifestAt: path, sampleRate: sampleRate)
                let node = DrumKitNode(events: scheduler.events)
                try node.install(loaded)
                kit = loaded
                drums = node
            } catch let error as DrumKitError {
                throw CommandLineError.runtime(error.description)
            }
        } else {
            kit = nil
            drums = nil
        }
        chain = try InstrumentChain(sources: [sampler] + (drums.map { [$0] } ?? []), settings: settings,
                                    limiterLookaheadMilliseconds: limiterLookaheadMilliseconds)
    }

    /// `--kit` takes the manifest or the folder that holds `kit.json`.
    private static func manifestPath(_ given: String) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: given, isDirectory: &isDirectory), isDirectory.boolValue {
            return URL(fileURLWithPath: given).appendingPathComponent(DrumKitLocation.manifestName).path
        }
        return given
    }

    /// One line per kit problem (a pad skipped, a layer missing), for the user.
    var warnings: [String] { kit?.problems.map(\.description) ?? [] }

    /// What plays, for the first line of output.
    var summary: String {
        var text = "\(synth.presetName) from \(soundFont)"
        if let kit { text += "; drums: \(kit.name) (\(kit.pads.count) pads)" }
        return text
    }

    /// Frees what the audio thread has retired. Control loop.
    func collectRetired() {
        _ = sampler.collectRetired()
        _ = drums?.collectRetired()
    }
}
