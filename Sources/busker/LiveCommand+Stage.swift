import Chains
import CommandLineInterface
import Foundation
import Sessions

/// `busker live` with instruments: the stage. The mic's strips, the
/// player's instruments (played from MIDI keyboards and pads) and a backing
/// song, each on a strip of the one bus.
extension LiveCommand {
    static let stageHelp = """
    the stage (the mic, instruments and a backing song at once; any of these makes one):
      --instrument NAME      the keyboard's sampler: a General MIDI name or number (piano,
                             "Electric Piano 1", 4…) or a preset of the SoundFont
      --song FILE            a backing song, starting with the audio: a MIDI file on a sampler
                             of its own (the SoundFont's drums on its channel 10), or audio
                             (WAV, FLAC, Ogg, MP3 at any rate) streamed from disk
      --loop                 start the song again when it ends (a MIDI song)
      --tempo SCALE          a MIDI song faster (2) or slower (0.5), 0.125…8 (default 1)
      --from BAR             start a MIDI song at bar BAR (1 is the top), its programs and
                             controllers as they are there
      --transpose N          a MIDI song N semitones up or down, −24…24 (channel 10 stays)
      --part NAME:KEY=VALUE,…
                             a part's strip (repeatable): NAME keys, drums or song; keys
                             level (dB, −60…12), pan, mute, solo (on|off), reverb (send %)
      --control-midi auto|none|CLIENT:PORT
                             on a stage, the source that drives the live controls (a footswitch:
                             CC 64 toggles the mic); --midi and --midi-in play the instruments,
                             and a keyboard's pedal sustains, never toggling the mic (default none)
      --control-midi-in PATH the same, raw MIDI bytes from a device, FIFO or file
      on files, --midi-in FILE.mid is what the player plays (a Standard MIDI File, at its times)
    \(InstrumentRig.Options.help)
    """

    /// The options that make `busker live` a stage.
    static let stageOptions = ["instrument", "soundfont", "kit", "song", "program", "bank", "polyphony", "drums"]


    /// The stage's instruments from the command line, or nil when none is asked for.
    /// - Throws: `CommandLineError.usage` for a bad value.
    static func stageInstruments(_ args: ArgumentScanner, onFiles: Bool) throws -> SessionSources.Instruments? {
        guard stageOptions.contains(where: { args.string($0) != nil }) || args.has("no-drums") else {
            for option in ["loop", "tempo", "part", "control-midi", "control-midi-in", "from", "transpose"] where args.has(option) || args.string(option) != nil {
                throw CommandLineError.usage("--\(option) is for the stage: add --instrument NAME (or --song, --kit)")
            }
            return nil
        }
        var instruments = SessionSources.Instruments(options: try InstrumentRig.Options(args: args), settings: VoiceSettings(),
                                                     songPath: args.string("song"))
        instruments.loop = args.has("loop")
        if let tempo = try args.float("tempo") {
            guard (0.125...8).contains(tempo) else { throw CommandLineError.usage("--tempo \(tempo) is out of range 0.125…8") }
            instruments.tempo = tempo
        }
        instruments.fromBar = try args.int("from", in: 1...100_000)
        instruments.transpose = try args.int("transpose", in: -24...24) ?? 0
        if let path = instruments.songPath, !SongFile.looksLikeMIDI(path: path) {
            for option in ["from", "transpose", "tempo"] where args.string(option) != nil {
                throw CommandLineError.usage("--\(option) is for a MIDI song; '\(path)' is audio")
            }
            if instruments.loop { throw CommandLineError.usage("--loop is for a MIDI song; '\(path)' is audio") }
        }
        if onFiles { instruments.performancePath = args.string("midi-in") }
        return instruments
    }

    /// `--part NAME:KEY=VALUE,…` over `settings`.
    /// - Throws: `CommandLineError.usage` naming the part and key.
    static func applyParts(_ args: ArgumentScanner, to settings: inout LiveSettings) throws {
        for given in args.strings("part") {
            guard let colon = given.firstIndex(of: ":") else {
                throw CommandLineError.usage("--part \(given): expected NAME:KEY=VALUE, as in keys:level=-6")
            }
            let name = String(given[..<colon])
            guard ["keys", "drums", "song"].contains(name) else {
                throw CommandLineError.usage("--part \(name): the parts are keys, drums and song")
            }
            var part = settings.parts[name] ?? PartSettings()
            for pair in given[given.index(after: colon)...].split(separator: ",") {
                let words = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard words.count == 2 else { throw CommandLineError.usage("--part \(given): expected KEY=VALUE, not '\(pair)'") }
                try set(&part, key: words[0], value: words[1], part: name)
            }
            do {
                try part.validate(part: name)
            } catch {
                throw CommandLineError.usage("--part \(error)")
            }
            settings.parts[name] = part
        }
    }

    private static func set(_ part: inout PartSettings, key: String, value: String, part name: String) throws {
        func number() throws -> Float {
            guard let x = Float(value), x.isFinite else { throw CommandLineError.usage("--part \(name): \(key) needs a number, not '\(value)'") }
            return x
        }
        func flag() throws -> Bool {
            switch value.lowercased() {
            case "on", "yes", "true", "1": return true
            case "off", "no", "false", "0": return false
            default: throw CommandLineError.usage("--part \(name): \(key) is on or off, not '\(value)'")
            }
        }
        switch key {
        case "level": part.levelDB = try number()
        case "pan": part.pan = try number()
        case "reverb": part.reverbSendPercent = try number()
        case "mute": part.mute = try flag()
        case "solo": part.solo = try flag()
        default: throw CommandLineError.usage("--part \(name): no key '\(key)' (level, pan, mute, solo, reverb)")
        }
    }
}
