import AudioCore
import FileIO
import Foundation
import Instruments
import MIDI

/// `busker render SONG.mid -o SONG.wav`: the play graph offline, as fast as
/// the machine allows, with a progress bar and an ETA on a terminal.
enum RenderCommand {
    static let help = """
    usage: busker render SONG.mid -o OUT.wav [options]

    Plays a Standard MIDI File (formats 0, 1, 2 and .kar) through the sampler
    (every channel but 10), the drum kit (channel 10), the tone controls,
    reverb and limiter, and writes the result, as fast as the machine allows.
    The file ends 50 ms after the song's last sound above −90 dBFS (reverb
    and release tails are kept, up to 10 s past the song's end).

      -o, --output PATH      the audio file to write (.wav, .flac, .ogg, .aiff); replaced if it exists
      --rate HZ              sample rate, 8000…192000 (default 48000)
      --format FMT           samples: s16 | s24 | s32 | f32 (default s24)
      --tempo SCALE          play faster (2) or slower (0.5), 0.125…8 (default 1)
      --period FRAMES        frames per block, 16…8192 (default 1024; the output does not depend on it)
      --no-progress          no progress bar

    \(InstrumentRig.Options.help)

    tone (as in busker live):
      --bass DB  --treble DB  --boost DB  --reverb PERCENT  --room NAME
      --volume LEVEL         master volume, 0…1 (default 0.8 for renders)
      --help                 show this help
    """

    static func run(_ arguments: [String]) throws {
        let args = try ArgumentScanner(arguments,
            valued: InstrumentRig.Options.valued.union(["output", "rate", "format", "tempo", "period",
                                                        "bass", "treble", "boost", "reverb", "room", "volume"]),
            flags: InstrumentRig.Options.flags.union(["help", "no-progress"]),
            aliases: ["o": "output"])
        if args.has("help") {
            print(help)
            return
        }
        guard let songPath = args.positionals.first else { throw CommandLineError.usage("render needs a MIDI file: busker render SONG.mid -o OUT.wav") }
        if args.positionals.count > 1 { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        guard let outputPath = args.string("output"), !outputPath.isEmpty else {
            throw CommandLineError.usage("render needs an output file: -o OUT.wav")
        }
        var settings = try LiveCommand.voiceSettings(from: args)
        if args.string("volume") == nil { settings.volume = 0.8 }
        let instruments = try InstrumentRig.Options(args: args)
        var options = SongRenderDriver.Options(outputPath: outputPath)
        options.engineRate = try args.int("rate", in: 8000...192_000) ?? 48000
        options.blockSize = try args.int("period", in: 16...8192) ?? FileRenderDriver.defaultBlockSize
        if let f = args.string("format") {
            guard let format = SampleFormat(rawValue: f) else {
                throw CommandLineError.usage("--format must be s16, s24, s32 or f32, not '\(f)'")
            }
            options.sampleFormat = format
        }
        let tempo = try args.float("tempo") ?? 1
        guard (0.125...8).contains(tempo) else { throw CommandLineError.usage("--tempo \(tempo) is out of range 0.125…8") }

        let player = try SongFile.player(path: songPath, sampleRate: options.engineRate)
        player.tempoScale = Double(tempo)
        let rig = try InstrumentRig(options: instruments, ports: [], player: player, sampleRate: Double(options.engineRate),
                                    settings: settings, limiterLookaheadMilliseconds: 1)
        for warning in rig.warnings { printError("busker render: warning: \(warning)") }
        let spec = ProcessSpec(sampleRate: Double(options.engineRate), maximumBlockSize: options.blockSize)
        let plan = try rig.chain.compile(spec: spec)
        let driver = SongRenderDriver(options: options)
        driver.engine.attach(rig.scheduler)
        player.play()

        let songSeconds = Double(player.lengthFrames) / Double(options.engineRate) / Double(tempo)
        StopSignals.install()
        let bar = !args.has("no-progress") && isatty(STDERR_FILENO) == 1 ? ProgressBar(totalSeconds: songSeconds) : nil
        let report: SongRenderDriver.Report
        do {
            let songFrames = Int((Double(player.lengthFrames) / Double(tempo)).rounded(.up))
            report = try driver.run(plan: plan, latencyFrames: rig.chain.latencyFrames, songFrames: songFrames,
                                    isCancelled: { StopSignals.pending != nil }) { written in
                bar?.update(seconds: Double(written) / Double(options.engineRate))
            }
        } catch let error as AudioFileError {
            bar?.finish()
            throw CommandLineError.runtime(error.description)
        } catch is SongRenderDriver.Cancelled {
            bar?.finish()
            throw CommandLineError.runtime("interrupted; \(outputPath) was not written")
        }
        bar?.finish()
        rig.collectRetired()
        print("busker render: \(songPath) → \(outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz, "
              + "\(rig.summary); \(String(format: "%.2f", report.wallSeconds)) s, \(Int(report.realtimeFactor.rounded()))× real time "
              + "on thread \(report.renderThreadName)")
    }
}
