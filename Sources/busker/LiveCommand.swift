import AudioCore
import FileIO

/// `busker live`: the live voice chain. With `file:` endpoints it runs offline
/// over a file as fast as the machine allows, with the graph the live driver uses.
enum LiveCommand {
    static let help = """
    usage: busker live --input file:IN.wav --output file:OUT.wav [options]

    Runs the voice chain: high-pass → bass → treble → boost → reverb → mixer
    → limiter (−1 dBFS) → meter. Mono or stereo in, stereo out. Input at any
    sample rate is converted to the engine rate.

    endpoints:
      --input file:PATH      read the input from an audio file (WAV, FLAC, Ogg, AIFF…)
      --output file:PATH     write the output to a file (.wav, .flac, .ogg, .aiff)

    voice controls:
      --bass DB              low shelf at 150 Hz, −12…12 dB (default 0)
      --treble DB            high shelf at 6 kHz, −12…12 dB (default 0)
      --boost DB             gain, −24…24 dB (default 0)
      --reverb PERCENT       reverb wet amount, 0…100 (default 0)
      --room NAME            small | medium | large | hall (default medium)
      --volume LEVEL         master volume, 0…1 (default 0.3: start quiet)
      --high-pass HZ         rumble filter corner, 20…500 Hz (default 80)

    engine:
      --rate HZ              engine sample rate, 8000…192000 (default 48000)
      --period FRAMES        block size, 1…8192 (default 64)
      --format FMT           output samples: s16 | s24 | s32 | f32 (default s24)
      --help                 show this help
    """

    static func run(_ arguments: [String]) throws {
        let args = try ArgumentScanner(arguments,
            valued: ["input", "output", "bass", "treble", "boost", "reverb", "room", "volume", "high-pass",
                     "rate", "period", "format"],
            flags: ["help"])
        if args.has("help") {
            print(help)
            return
        }
        if let extra = args.positionals.first { throw CommandLineError.usage("unexpected argument '\(extra)'") }
        let settings = try voiceSettings(from: args)
        guard let input = args.string("input"), let output = args.string("output") else {
            throw CommandLineError.usage("live needs --input file:IN.wav and --output file:OUT.wav")
        }
        guard input.hasPrefix("file:"), output.hasPrefix("file:") else {
            throw CommandLineError.usage("only file: endpoints are available in this build (ALSA devices come with the live driver); try --input file:IN.wav --output file:OUT.wav")
        }
        var options = FileRenderDriver.Options(inputPath: String(input.dropFirst(5)), outputPath: String(output.dropFirst(5)))
        guard !options.inputPath.isEmpty, !options.outputPath.isEmpty else {
            throw CommandLineError.usage("file: needs a path, as in file:voice.wav")
        }
        options.engineRate = try args.int("rate", in: 8000...192_000) ?? 48000
        options.blockSize = try args.int("period", in: 1...8192) ?? 64
        if let f = args.string("format") {
            guard let format = SampleFormat(rawValue: f) else {
                throw CommandLineError.usage("--format must be s16, s24, s32 or f32, not '\(f)'")
            }
            options.sampleFormat = format
        }
        let report = try renderFile(options: options, settings: settings)
        print("busker live: \(options.inputPath) → \(options.outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz"
              + (report.inputRate != report.engineRate ? " (resampled from \(report.inputRate) Hz)" : "")
              + ", \(Int(report.realtimeFactor.rounded()))× real time on thread \(report.renderThreadName)")
    }

    /// Runs the voice chain over a file; shared with the benchmark.
    static func renderFile(options: FileRenderDriver.Options, settings: VoiceSettings) throws -> FileRenderDriver.Report {
        let driver = FileRenderDriver(options: options)
        do {
            return try driver.run { channels, spec in
                let chain = try VoiceChain(inputChannelCount: channels, settings: settings)
                let plan = try chain.compile(spec: spec)
                return (plan, chain.latencyFrames)
            }
        } catch let error as AudioFileError {
            throw CommandLineError.runtime(error.description)
        } catch let error as GraphError {
            throw CommandLineError.runtime(error.description)
        }
    }

    /// The voice controls from the command line, each checked against its range.
    static func voiceSettings(from args: ArgumentScanner) throws -> VoiceSettings {
        var s = VoiceSettings()
        if let v = try args.float("bass") { s.bassDB = v }
        if let v = try args.float("treble") { s.trebleDB = v }
        if let v = try args.float("boost") { s.boostDB = v }
        if let v = try args.float("reverb") { s.reverbPercent = v }
        if let v = try args.float("volume") { s.volume = v }
        if let v = try args.float("high-pass") { s.highPassHz = v }
        if let room = args.string("room") {
            guard let preset = RoomPreset(rawValue: room) else {
                throw CommandLineError.usage("--room must be one of \(RoomPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(room)'")
            }
            s.room = preset
        }
        do {
            try s.validate()
        } catch {
            throw CommandLineError.usage("--\(error.description)")
        }
        return s
    }
}

func formatSeconds(_ s: Double) -> String {
    let tenths = (s * 10).rounded() / 10
    return String(tenths)
}
