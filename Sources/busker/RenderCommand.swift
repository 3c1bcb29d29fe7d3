import Chains
import CommandLineInterface
import Foundation
import OfflineDrivers
import Sessions
import Session
import TerminalUI

/// `busker render SONG.mid -o SONG.wav`: the play graph offline, as fast as
/// the machine allows, with a progress bar and an ETA on a terminal.
enum RenderCommand {
    static let help = """
    usage: busker render SONG.mid [FONT.sf2] -o OUT.wav [options]

    Plays a Standard MIDI File (formats 0, 1, 2 and .kar) through the sampler
    (every channel), the drum kit (channel 10: see --drums), the tone controls,
    reverb and limiter, and writes the result, as fast as the machine allows.
    Each channel's CC 91 and CC 93 feed a reverb (in the --room room) and a
    chorus; --reverb is the master reverb over the whole mix.
    The file ends 50 ms after the song's last sound above −90 dBFS (reverb
    and release tails are kept, up to 10 s past the song's end). The song and
    a SoundFont may be given in either order, as to fluidsynth: Busker tells
    them apart by their content.

      -o, --output PATH      the audio file to write (.wav, .flac, .ogg, .aiff; a WAV past 4 GiB
                             is RF64); an existing file is replaced only when the render
                             completes: a failure or Ctrl-C leaves it as it was
      -r, --rate HZ          sample rate, 8000…192000 (default 48000)
      -f, --sample-format, --format FMT
                             the file's samples: \(ArgumentScanner.sampleFormatNames);
                             default S24_3LE
      --tempo SCALE          play faster (2) or slower (0.5), 0.125…8 (default 1)
      --period FRAMES        frames per block, 16…8192 (default 1024; the output does not depend on it)
      --no-progress          no progress bar

    \(InstrumentRig.Options.help)

    tone (as in busker live):
      --bass DB  --treble DB  --boost DB  --reverb PERCENT  --room NAME
      --volume LEVEL         master volume, 0…1 (default 0.8 for renders)

      -v, --verbose          say in detail what Busker loaded and wrote
      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        let files = try PositionalFiles(args.positionals, soundFontOption: args.string("soundfont"))
        guard let songPath = files.song else { throw CommandLineError.usage("render needs a MIDI file: busker render SONG.mid -o OUT.wav") }
        guard let outputPath = args.string("output"), !outputPath.isEmpty else {
            throw CommandLineError.usage("render needs an output file: -o OUT.wav")
        }
        var settings = try VoiceSettings(arguments: args)
        if args.string("volume") == nil { settings.volume = 0.8 }
        var instruments = try InstrumentRig.Options(args: args)
        if let font = files.soundFont { instruments.soundFont = font }
        var driver = SongRenderDriver.Options(outputPath: outputPath)
        driver.engineRate = try args.int("rate", in: 8000...192_000) ?? 48000
        driver.blockSize = try args.int("period", in: 16...8192) ?? FileRenderDriver.defaultBlockSize
        if let format = try args.sampleFormat() { driver.sampleFormat = format }
        var song = SessionSources.Instruments(options: instruments, settings: settings, songPath: songPath)
        song.tempo = try args.tempoScale()
        let setup = SessionDescription(command: "render", driver: .song(driver),
                                       sources: SessionSources(instruments: song, limiterLookaheadMilliseconds: 1),
                                       recording: nil, policy: SessionPolicy(headless: true), quitKey: "Ctrl-C")
        let session = try AudioSession(setup)
        guard case let .instruments(rig) = session.chain else { throw SessionError.failed("render: the session built no instruments") }
        if args.has("verbose") {
            for line in VerboseReport.lines(for: rig)
                + ["output: \(outputPath), \(driver.sampleFormat.alsaName) at \(driver.engineRate) Hz, blocks of \(driver.blockSize) frames"] {
                print("busker render: \(line)")
            }
        }
        StopSignals.install()
        let bar = !args.has("no-progress") && isatty(STDERR_FILENO) == 1 ? ProgressBar(totalSeconds: session.songSeconds ?? 0) : nil
        let report: SongRenderDriver.Report
        do {
            report = try session.renderSong(interruption: { StopSignals.pending }) { bar?.update(seconds: $0) }
            bar?.finish()
        } catch {
            bar?.stopShort()
            throw error
        }
        let silenced = session.engine.silencedBlockCount > 0
            ? "; " + session.engine.silencedAudio().description(sampleRate: driver.engineRate) : ""
        print("busker render: \(songPath) → \(outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz, "
              + "\(rig.summary); \(String(format: "%.2f", report.wallSeconds)) s, \(Int(report.realtimeFactor.rounded()))× real time "
              + "on thread \(report.renderThreadName)" + silenced)
    }
}
