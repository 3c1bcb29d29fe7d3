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
      --section A-B          play bars A to B of a MIDI song over and over (seconds A to B of
                             an audio song), seamlessly
      --part NAME:KEY=VALUE,…
                             a part's strip (repeatable): NAME keys, drums or song; keys
                             level (dB, −60…12), pan, mute, solo (on|off), reverb (send %)
      --control-midi auto|none|CLIENT:PORT
                             on a stage, the source that drives the live controls (a footswitch:
                             CC 64 toggles the mic); --midi and --midi-in play the instruments,
                             and a keyboard's pedal sustains, never toggling the mic (default none)
      --control-midi-in PATH the same, raw MIDI bytes from a device, FIFO or file
      on files, --midi-in FILE.mid is what the player plays (a Standard MIDI File, at its times)
      keys on a stage: tab selects the mic strips, then keys, drums and song; on a part
                             i I level, p P pan, x mute, o solo, r R reverb send;
                             s plays or pauses the song, Enter takes it to the top;
                             ` (keys mode) plays the keys part from the computer keyboard as
                             busker play does (z…/ and q…p notes, 1…= drum pads, [ ] octave);
                             q is a note there: ` again returns to the control keys
    \(InstrumentRig.Options.help)
    """

    /// The options that make `busker live` a stage.
    static let stageOptions = ["instrument", "soundfont", "kit", "song", "program", "bank", "polyphony", "drums"]


    /// The stage's instruments from the command line, or nil when none is asked for.
    /// - Throws: `CommandLineError.usage` for a bad value.
    static func stageInstruments(_ args: ArgumentScanner, onFiles: Bool) throws -> SessionSources.Instruments? {
        guard stageOptions.contains(where: { args.string($0) != nil }) || args.has("no-drums") else {
            for option in ["loop", "tempo", "part", "control-midi", "control-midi-in", "from", "transpose", "section"] where args.has(option) || args.string(option) != nil {
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
        if let text = args.string("section") {
            let ends = text.split(separator: "-", maxSplits: 1).compactMap { Double($0) }
            guard ends.count == 2, ends[0].isFinite, ends[1].isFinite, ends[0] >= 0, ends[0] < ends[1] else {
                throw CommandLineError.usage("--section \(text): expected A-B with A before B, as in 9-16")
            }
            instruments.section = ends[0]...ends[1]
        }
        if let path = instruments.songPath, !SongFile.looksLikeMIDI(path: path) {
            for option in ["from", "transpose", "tempo"] where args.string(option) != nil {
                throw CommandLineError.usage("--\(option) is for a MIDI song; '\(path)' is audio")
            }
            if instruments.loop { throw CommandLineError.usage("--loop is for a MIDI song; '\(path)' is audio") }
        }
        if onFiles { instruments.performancePath = args.string("midi-in") }
        return instruments
    }
}
