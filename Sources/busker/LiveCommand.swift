import ALSAIO
import AudioCore
import FileIO
import Foundation
import SpeechProcessing
import Session

/// `busker live`: the live voice chain. On ALSA devices it runs in real time
/// with a terminal UI (or headless); with `file:` endpoints it runs offline
/// over a file as fast as the machine allows, with the same graph.
enum LiveCommand {
    static let help = """
    usage: busker live [--device PCM | --input PCM --output PCM] [options]
           busker live --input file:IN.wav --output file:OUT.wav [options]

    Mic → high-pass → [voice processing] → noise gate → compressor → bass →
    treble → boost → reverb → howl guard → mixer → limiter (−1 dBFS) → speaker,
    at the lowest latency the devices allow. Starts at volume 0.3 with the mic
    on; a terminal UI shows meters and every control (space turns the mic off,
    q quits). Mono or stereo in, stereo out.

    devices (ALSA PCM names, as in aplay -D; see busker devices):
      --device PCM           capture and playback on one PCM (default: default)
      --input PCM            capture PCM, or file:PATH to read an audio file
      --output PCM           playback PCM, or file:PATH to write a file (.wav, .flac, .ogg, .aiff)
      --period FRAMES        frames per period, 1…8192 (default 64, JACK's -p; files: 1024)
      --periods N            periods per buffer, 2…16 (default 2; JACK's -n)
      --periods-ahead N      periods of playback queued ahead of capture, 0…15 (default 1:
                             round trip 2 periods; 0 saves a period where the device
                             keeps time itself, as a JACK or pipewire PCM does, at more risk of xruns)
      --rate HZ              sample rate, 8000…192000 (default 48000)
      --no-tui               no screen: a status line every second; stops on SIGINT/SIGTERM
      --limiter-lookahead MS the output limiter's look-ahead (= its latency), 0…5 ms
                             (default 0 on devices: no added delay; 1 for files)

    \(RecordCommand.sessionHelp)

    when devices misbehave (Busker never moves the mic to another output by itself):
      --auto-resume          after a suspend or Ctrl-Z, start again by itself if the mic was on
                             (default: audio stays off until you press space; with
                             --no-tui, where no key can, stop with exit status 1)
      --reconnect            when the device is lost, wait for it and restart on it when it
                             is back (default: stop with exit status 1)

    voice controls:
      --bass DB              low shelf at 150 Hz, −12…12 dB (default 0)
      --treble DB            high shelf at 6 kHz, −12…12 dB (default 0)
      --boost DB             gain, −24…24 dB (default 0)
      --reverb PERCENT       reverb wet amount, 0…100 (default 0)
      --room NAME            small | medium | large | hall (default medium)
      --volume LEVEL         master volume, 0…1 (default 0.3: start quiet)
      --high-pass HZ         rumble filter corner, 20…500 Hz (default 80)
      --no-howl-guard        no feedback protection (on by default: howling is found as it
                             starts and notched out; the screen shows FEEDBACK and the notches)

    voice clean-up (all off by default: they change the sound of music):
      --gate                 noise gate: quiet passages turned down 40 dB (key n)
      --gate-threshold DB    where the gate opens, −80…0 dBFS (default −50)
      --compressor           compressor (3:1 above −24 dB, soft knee) with make-up gain (key c)
      --makeup DB            the compressor's make-up gain, −12…24 dB (default 6)
      --voice-processing     speexdsp noise suppression and automatic gain control,
                             adds 20 ms (key v)

    files only:
      --format FMT           output samples: s16 | s24 | s32 | f32 (default s24)
      --help                 show this help

    No sound card? Tools/virtual-soundcard starts a virtual one (JACK dummy driver).
    """

    static func run(_ arguments: [String]) throws {
        let (recording, arguments) = try RecordingRequest.extract(from: arguments, formatOptions: ["record-format"])
        let args = try ArgumentScanner(arguments,
            valued: ["input", "output", "device", "bass", "treble", "boost", "reverb", "room", "volume", "high-pass",
                     "rate", "period", "periods", "periods-ahead", "format", "limiter-lookahead", "gate-threshold", "makeup"],
            flags: ["help", "no-tui", "gate", "compressor", "voice-processing", "auto-resume", "reconnect", "no-howl-guard"])
        if args.has("help") {
            print(help)
            return
        }
        if let extra = args.positionals.first { throw CommandLineError.usage("unexpected argument '\(extra)'") }
        let settings = try voiceSettings(from: args)
        let input = args.string("input"), output = args.string("output")
        let inputIsFile = input?.hasPrefix("file:") ?? false
        let outputIsFile = output?.hasPrefix("file:") ?? false
        if inputIsFile || outputIsFile {
            guard let input, let output, inputIsFile, outputIsFile, args.string("device") == nil else {
                throw CommandLineError.usage("file: endpoints go together: --input file:IN.wav --output file:OUT.wav")
            }
            if recording.enabled || recording.force || recording.stems {
                throw CommandLineError.usage("--record is for devices; with file: endpoints the output file is the recording")
            }
            try runOnFiles(input: input, output: output, args: args, settings: settings)
        } else {
            if args.string("format") != nil { throw CommandLineError.usage("--format is for file: outputs (the take's is --record-format)") }
            try runOnDevices(args: args, settings: settings, recording: recording)
        }
    }

    private static func runOnFiles(input: String, output: String, args: ArgumentScanner, settings: VoiceSettings) throws {
        var options = FileRenderDriver.Options(inputPath: String(input.dropFirst(5)), outputPath: String(output.dropFirst(5)))
        guard !options.inputPath.isEmpty, !options.outputPath.isEmpty else {
            throw CommandLineError.usage("file: needs a path, as in file:voice.wav")
        }
        options.engineRate = try args.int("rate", in: 8000...192_000) ?? 48000
        options.blockSize = try args.int("period", in: 1...8192) ?? FileRenderDriver.defaultBlockSize
        if let f = args.string("format") {
            guard let format = SampleFormat(rawValue: f) else {
                throw CommandLineError.usage("--format must be s16, s24, s32 or f32, not '\(f)'")
            }
            options.sampleFormat = format
        }
        let report = try renderFile(options: options, settings: settings,
                                    limiterLookaheadMilliseconds: try lookaheadOption(args) ?? 1)
        print("busker live: \(options.inputPath) → \(options.outputPath): \(formatSeconds(report.audioSeconds)) s at \(report.engineRate) Hz"
              + (report.inputRate != report.engineRate ? " (resampled from \(report.inputRate) Hz)" : "")
              + ", \(Int(report.realtimeFactor.rounded()))× real time on thread \(report.renderThreadName)")
    }

    /// The live mic on ALSA devices: open, build the chain for what was
    /// granted, start, and hand over to the session until q, a signal or a
    /// device problem. Exit status 1 when the device stopped us.
    private static func runOnDevices(args: ArgumentScanner, settings: VoiceSettings, recording: RecordingRequest) throws {
        var options: DuplexDriver.Options
        if let device = args.string("device") {
            guard args.string("input") == nil, args.string("output") == nil else {
                throw CommandLineError.usage("use --device for both directions, or --input and --output, not both")
            }
            options = DuplexDriver.Options(device: device)
        } else {
            options = DuplexDriver.Options(capture: args.string("input") ?? "default", playback: args.string("output") ?? "default")
        }
        options.periodFrames = try args.int("period", in: 1...8192) ?? 64
        options.periodCount = try args.int("periods", in: 2...16) ?? 2
        options.periodsAhead = try args.int("periods-ahead", in: 0...15) ?? 1
        options.sampleRate = try args.int("rate", in: 8000...192_000) ?? 48000
        let useTUI = !args.has("no-tui") && Terminal.isInteractive
        let lookahead = try lookaheadOption(args)
        // A take's folder and name are checked before any device opens.
        let firstTake = recording.enabled ? try recording.resolvePath() : nil

        StopSignals.install(jobControl: true)
        let driver: DuplexDriver
        do {
            driver = try DuplexDriver(options: options)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
        let engine = RenderEngine()
        // A duplex driver always grants a capture side; only playback-only drivers have none.
        let chain = try makeVoiceChain(inputChannelCount: driver.granted.capture?.channels ?? 1, settings: settings,
                                       limiterLookaheadMilliseconds: lookahead ?? 0)
        // The recording tap ends the chain: a take holds exactly what the speaker gets.
        let tap = TakeControl.makeTap(channels: 2, sampleRate: Double(driver.granted.sampleRate))
        try tap.install(atEndOf: chain.graph)
        // --stems: the dry mic on a side branch of the capture input (nodes off the output path still run).
        var stems: [TakeControl.Stem] = []
        if recording.stems {
            let dry = TakeControl.makeTap(channels: driver.granted.capture?.channels ?? 1, sampleRate: Double(driver.granted.sampleRate), sharing: tap)
            try chain.graph.connect(chain.graph.input, to: chain.graph.add(dry))
            stems.append((name: "mic", tap: dry))
        }
        engine.install(try chain.compile(spec: driver.processSpec))
        // The session opens again only this route (`--reconnect`), with the same options.
        let runner = SessionRunner(command: "live", driver: driver, engine: engine, policy: try sessionPolicy(args),
                                   reopen: { [options] in try DuplexDriver(options: options) })
        let takes = TakeControl(tap: tap, request: recording, firstPath: firstTake, sampleRate: driver.granted.sampleRate)
        takes.stems = stems
        runner.rebuildGraph = { driver in
            engine.releaseAll()
            engine.install(try chain.compile(spec: driver.processSpec))
            // A take cannot change rate midway: the one in progress ends here, later ones use the new rate.
            if takes.sampleRate != driver.granted.sampleRate {
                takes.stop(audioHasStopped: true)
                takes.sampleRate = driver.granted.sampleRate
            }
        }
        runner.send(.userStart)
        if runner.isOver {
            runner.close()
            try runner.report(quitKey: "q", consequence: "")
            return
        }
        if firstTake != nil {
            do {
                try takes.start()
            } catch {
                runner.close()
                throw CommandLineError.runtime(error.description)
            }
        }
        let extra = chain.latencyFrames > 0 ? " + chain latency \(chain.latencyFrames) frames" : ""
        print("busker live: \(driver.granted)\(extra)")
        if let notice = driver.realtime?.notice { print("busker live: \(notice)") }

        if let path = takes.recorder?.path { print("busker live: recording to \(path)") }
        // Every stop or loss closes the take (the state machine's finalize effect comes after the audio stopped).
        runner.finalizeRecording = { takes.stop(audioHasStopped: true) }
        let session = LiveSession(chain: chain, runner: runner, settings: settings, useTUI: useTUI)
        session.takes = takes
        _ = session.run()
        runner.close()
        takes.stop(audioHasStopped: true)
        try RecordCommand.reportTakes(takes, command: "live") {
            try runner.report(quitKey: "q", consequence: "; the mic is off")
        }
    }

    /// `--auto-resume` and `--reconnect` (shared with busker play). Without a
    /// screen (`--no-tui`, or no terminal) no key can restart audio: the
    /// policy is headless.
    static func sessionPolicy(_ args: ArgumentScanner) throws -> SessionPolicy {
        SessionPolicy(autoResume: args.has("auto-resume"), reconnect: args.has("reconnect"),
                      headless: args.has("no-tui") || !Terminal.isInteractive)
    }

    /// `--limiter-lookahead`, checked, or nil when not given.
    private static func lookaheadOption(_ args: ArgumentScanner) throws -> Float? {
        guard let ms = try args.float("limiter-lookahead") else { return nil }
        guard (0...5).contains(ms) else { throw CommandLineError.usage("--limiter-lookahead \(ms) ms is out of range 0…5 ms") }
        return ms
    }

    /// Runs the voice chain over a file; shared with the benchmark.
    static func renderFile(options: FileRenderDriver.Options, settings: VoiceSettings,
                           limiterLookaheadMilliseconds: Float = 1) throws -> FileRenderDriver.Report {
        let driver = FileRenderDriver(options: options)
        do {
            return try driver.run { channels, spec in
                let chain = try makeVoiceChain(inputChannelCount: channels, settings: settings,
                                               limiterLookaheadMilliseconds: limiterLookaheadMilliseconds)
                let plan = try chain.compile(spec: spec)
                return (plan, chain.latencyFrames)
            }
        } catch let error as AudioFileError {
            throw CommandLineError.runtime(error.description)
        } catch let error as GraphError {
            throw CommandLineError.runtime(error.description)
        }
    }

    /// The voice chain, with speexdsp's voice processing in it when the settings ask for it
    /// (only then: it adds 20 ms, so it is not carried switched off).
    static func makeVoiceChain(inputChannelCount: Int, settings: VoiceSettings,
                               limiterLookaheadMilliseconds: Float = 1) throws -> VoiceChain {
        try VoiceChain(inputChannelCount: inputChannelCount, settings: settings,
                       limiterLookaheadMilliseconds: limiterLookaheadMilliseconds,
                       voiceProcessor: settings.voiceProcessing ? VoiceProcessingNode() : nil)
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
        s.noiseGate = args.has("gate")
        if let v = try args.float("gate-threshold") {
            guard s.noiseGate else { throw CommandLineError.usage("--gate-threshold goes with --gate") }
            s.gateThresholdDB = v
        }
        s.compressor = args.has("compressor")
        if let v = try args.float("makeup") {
            guard s.compressor else { throw CommandLineError.usage("--makeup goes with --compressor") }
            s.compressorMakeupDB = v
        }
        s.voiceProcessing = args.has("voice-processing")
        if args.has("no-howl-guard") { s.howlGuard = false }
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
