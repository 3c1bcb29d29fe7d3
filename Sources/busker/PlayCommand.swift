import ALSA
import Chains
import CommandLineInterface
import Foundation
import Sessions
import Session
import TerminalUI

/// `busker play`: the sampler and the drum kit played live over MIDI (and
/// from the computer keyboard), or a MIDI file, to an ALSA output or as a
/// JACK client:
/// `AudioSession` opens and starts it, `PlaySession` runs it.
enum PlayCommand {
    static let help = """
    usage: busker play [SONG.mid] [FONT.sf2] [options]
           busker play [SONG.mid] [FONT.sf2] --driver jack [--name NAME] [--connect auto|none|PORT=OTHER,…] [options]

    Plays the piano (or any General MIDI instrument of a SoundFont) on every
    MIDI channel and the drum kit on channel 10 (see --drums), through the
    tone controls, reverb and a limiter (−1 dBFS), to an ALSA output or JACK.
    Each channel's CC 91 and CC 93 feed a reverb (in the --room room) and a
    chorus; --reverb is the master reverb over the whole mix. With no
    MIDI hardware the computer keyboard plays: two octaves on the letter rows,
    drum pads on the number row; the screen shows which key plays what.
    Esc quits. A song and a SoundFont may be given in either order, as to
    fluidsynth: Busker tells them apart by their content.

    \(MIDISources.help)

    song:
      SONG.mid               play a Standard MIDI File (formats 0, 1, 2, .kar); space pauses and resumes it, Enter rewinds it
      FONT.sf2               the sampler's SoundFont (SF2 or SF3; the same as --soundfont)
      --loop                 start the song again when it ends
      --tempo SCALE          play faster (2) or slower (0.5), 0.125…8 (default 1)

    \(InstrumentRig.Options.help)

    \(RecordingRequest.sessionHelp)
      (busker play also writes the performance as a MIDI file next to the take: TAKE.mid)
      --format FMT           the same as --record-format

    driver (the start-up line says which runs, and why):
    \(AudioDriverChoice.help)
                             With JACK, busker play has out_L, out_R and midi_in: each event
                             sent to midi_in plays on its own frame of the cycle; --midi
                             sources play beside it. Patch MIDI with --connect
                             midi_in=CLIENT:PORT (with out_L=…,out_R=…) or jack_connect.

    output:
      -D, --output, --device PCM
                             ALSA playback PCM (default: default; see busker devices)
      --period FRAMES        frames per period, 16…8192 (default 128)
      --periods N            periods per buffer, 2…16 (default 2)
      -r, --rate HZ          sample rate, 8000…192000 (default 48000)
      --no-tui               no screen: a status line every second; ends with the song, or on SIGINT/SIGTERM
      --limiter-lookahead MS the output limiter's look-ahead, 0…5 ms (default 1)
      --auto-resume          after a suspend or Ctrl-Z, start again by itself (default: wait for space;
                             with --no-tui, stop with exit status 1)
      --reconnect            when the output is lost, wait for it and restart on it (default: exit 1)

    tone (as in busker live):
      --bass DB  --treble DB  --boost DB  --reverb PERCENT  --room NAME
      --volume LEVEL         master volume, 0…1 (default 0.5)

      -v, --verbose          say in detail what Busker asked the device for and got, and what it loaded
      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        let (recording, arguments) = try RecordingRequest.extract(from: arguments, formatOptions: ["record-format", "format"])
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        let files = try PositionalFiles(args.positionals, soundFontOption: args.string("soundfont"))
        var settings = try VoiceSettings(arguments: args)
        if args.string("volume") == nil { settings.volume = 0.5 }
        var instruments = try InstrumentRig.Options(args: args)
        if let font = files.soundFont { instruments.soundFont = font }
        let (driver, why) = try AudioDriverChoice.parse(args, inputChannels: 0) {
            var driver = DuplexDriver.Options(playback: args.string("output") ?? "default")
            driver.periodFrames = try args.int("period", in: 16...8192) ?? 128
            driver.periodCount = try args.int("periods", in: 2...16) ?? 2
            driver.sampleRate = try args.int("rate", in: 8000...192_000) ?? 48000
            return driver
        }
        let useTUI = !args.has("no-tui") && Terminal.isInteractive
        if files.song == nil && (args.has("loop") || args.string("tempo") != nil) {
            throw CommandLineError.usage("--loop and --tempo are for a song: busker play SONG.mid")
        }
        var song = SessionSources.Instruments(options: instruments, settings: settings, songPath: files.song)
        song.tempo = try args.tempoScale()
        song.loop = args.has("loop")
        let lookahead = try args.limiterLookaheadMilliseconds() ?? 1
        let policy = SessionPolicy(arguments: args, interactive: Terminal.isInteractive)
        let midi = try MIDISources(midi: args.strings("midi"), midiIn: args.string("midi-in"))
        var setup = SessionDescription(command: "play", driver: driver,
                                       sources: SessionSources(instruments: song, midi: midi, limiterLookaheadMilliseconds: lookahead),
                                       recording: recording, policy: policy, quitKey: "esc")
        setup.driverLine = why
        let session = try AudioSession(setup)
        guard case let .instruments(rig) = session.chain else { return try session.finish() }
        try session.start()
        if args.has("verbose") {
            for line in session.runner.driver.verboseLines + VerboseReport.lines(for: rig) + ["MIDI in: \(midi.summary)"] {
                print("busker play: \(line)")
            }
        }
        if session.audioStarted, let screen = PlaySession(session: session, settings: settings, useTUI: useTUI) {
            _ = screen.run()
            if let load = screen.load.session() { print("busker play: \(load.summary)") }
        }
        try session.finish()
    }
}
