import ALSA
import AudioFiles
import CommandLineInterface
import Foundation
import Recording
import Sessions

/// `busker record [PATH]`: an input, as it is (no processing), to a file:
/// an ALSA capture PCM or a JACK client's ports in real time, or an audio
/// file offline (`InputRecording`).
enum RecordCommand {
    static let help = """
    usage: busker record [PATH] [options]

    Records an input as it is, with no processing, until Ctrl-C (SIGINT,
    SIGTERM or SIGHUP), --duration, or the end of an input file. Without PATH the
    take goes to $XDG_MUSIC_DIR/Busker (else ~/Music/Busker) with a dated name;
    PATH may also be a folder. An existing file is never overwritten: an
    explicit PATH that exists is an error unless --force.

    The WAV header is brought up to date four times a second and the data
    flushed to the disk every second, so a crash or a power cut leaves a
    playable file with all but the last second (busker repair fixes the rest).
    A full disk stops the take with a clear error, the file valid up to the
    last complete write. Frames lost because the disk was too slow are
    counted, replaced by silence and logged with their positions in
    PATH.log, with the xruns; the log and the summary at the end give the
    take's loudness: integrated LUFS, loudness range and true peak (EBU
    R 128; busker analyze measures any file).

    options:
    \(AudioDriverChoice.help)
                             With JACK: --channels N ports in_1…in_N (default 2) are
                             recorded; out_L/out_R carry them, unpatched, for a monitor.
      -D, --input, --device PCM
                             capture PCM (default: default; see busker devices),
                             or file:IN.wav to record an audio file offline
      --output PCM           listen on this playback PCM while recording (default: none)
      -d, --duration SECONDS stop after exactly this long
      --record-format, --format FMT
                             \(RecordingFormat.names) (default wav24: 24-bit WAV;
                             float is 32-bit float WAV; flac is 24-bit)
      -f, --sample-format FMT
                             a WAV take's samples, as arecord -f: S16_LE (wav16), S24_3LE
                             (wav24) or FLOAT_LE (float)
      --force                overwrite PATH if it exists
      -c, --channels N       capture channels, 1…32 (default: the device's; files: the file's)
      -r, --rate HZ          sample rate, 8000…192000 (default 48000; files: the file's own)
      --period FRAMES        frames per period, 16…8192 (default 256)
      --periods N            periods per buffer, 2…16 (default 2)
      --no-tui               (accepted) busker record prints a status line every second
      -v, --verbose          say in detail what Busker asked the device for and got
      -h, --help             show this help
    """

    static func run(_ arguments: [String]) throws {
        guard let args = try ArgumentScanner.command(arguments, help: help) else { return }
        if args.positionals.count > 1 { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        var forRequest = args.positionals.first.map { ["--record=\($0)"] } ?? ["--record"]
        if let format = try recordFormat(args) { forRequest += ["--format", format] }
        if args.has("force") { forRequest.append("--force") }
        let (request, _) = try RecordingRequest.extract(from: forRequest, formatOptions: ["format"])
        var duration: Double?
        if let seconds = try args.float("duration") {
            guard seconds > 0 && seconds <= 7 * 24 * 3600 else { throw CommandLineError.usage("--duration \(seconds) s is out of range (0 s…7 days]") }
            duration = Double(seconds)
        }
        let channels = try args.int("channels", in: 1...32)
        let rate = try args.int("rate", in: 8000...192_000)
        let input = args.string("input") ?? "default"
        if input.hasPrefix("file:") {
            guard args.string("output") == nil else { throw CommandLineError.usage("--output is for recording from a device") }
            try InputRecording.recordFile(String(input.dropFirst(5)), request: request, duration: duration, channels: channels, rate: rate)
        } else {
            let (driver, why) = try AudioDriverChoice.parse(args, inputChannels: channels ?? 2) {
                // Without a monitor, playback goes to ALSA's null PCM: the capture device sets the pace.
                var options = DuplexDriver.Options(capture: input, playback: args.string("output") ?? "null")
                options.periodFrames = try args.int("period", in: 16...8192) ?? 256
                options.periodCount = try args.int("periods", in: 2...16) ?? 2
                options.sampleRate = rate ?? 48000
                options.captureChannels = channels
                return options
            }
            // The take's path is checked before the start-up line: a usage error prints only itself.
            _ = try request.resolvePath()
            print("busker record: \(why)")
            try InputRecording.recordDevice(driver: driver, request: request, duration: duration, verbose: args.has("verbose"))
        }
    }

    /// The take's format: `--record-format` (or `--format`), or what
    /// `--sample-format` names as arecord's `-f` does; nil when neither is given.
    private static func recordFormat(_ args: ArgumentScanner) throws -> String? {
        guard let sample = args.string("sample-format") else { return args.string("record-format") }
        if args.string("record-format") != nil {
            throw CommandLineError.usage("give --record-format or --sample-format, not both")
        }
        switch SampleFormat(name: sample) {
        case .s16: return "wav16"
        case .s24: return "wav24"
        case .f32: return "float"
        case .s32, nil:
            throw CommandLineError.usage("--sample-format for a take is S16_LE, S24_3LE or FLOAT_LE (16-bit, 24-bit or float WAV), not '\(sample)'")
        }
    }
}
