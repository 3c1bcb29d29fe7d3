import ALSAIO
import AudioCore
import FileIO
import Foundation
import Session
import Recording

/// `busker record [PATH]`: an input, as it is (no processing), to a file:
/// an ALSA capture PCM in real time, or an audio file offline.
enum RecordCommand {
    static let help = """
    usage: busker record [PATH] [options]

    Records an input as it is, with no processing, until Ctrl-C (SIGINT or
    SIGTERM), --duration, or the end of an input file. Without PATH the
    take goes to $XDG_MUSIC_DIR/Busker (else ~/Music/Busker) with a dated name;
    PATH may also be a folder. An existing file is never overwritten: an
    explicit PATH that exists is an error unless --force.

    The WAV header is brought up to date four times a second and the data
    flushed to the disk every second, so a crash or a power cut leaves a
    playable file with all but the last second (busker repair fixes the rest).
    A full disk stops the take with a clear error, the file valid up to the
    last complete write. Frames lost because the disk was too slow are
    counted, replaced by silence and logged with their positions in
    PATH.log, with the xruns; no log means nothing was lost.

    options:
      --input PCM            capture PCM (default: default; see busker devices),
                             or file:IN.wav to record an audio file offline
      --output PCM           listen on this playback PCM while recording (default: none)
      --duration SECONDS     stop after exactly this long
      --format FMT           \\(RecordingFormat.names) (default wav24: 24-bit WAV;
                             float is 32-bit float WAV; flac is 24-bit)
      --force                overwrite PATH if it exists
      --channels N           capture channels, 1…32 (default: the device's; files: the file's)
      --rate HZ              sample rate, 8000…192000 (default 48000; files: the file's own)
      --period FRAMES        frames per period, 16…8192 (default 256)
      --periods N            periods per buffer, 2…16 (default 2)
      --no-tui               (accepted) busker record prints a status line every second
      --help                 show this help
    """

    /// The recording options of busker live and busker play, for their help.
    static let sessionHelp = """
    recording (Ctrl-R starts and stops a take while running):
      --record [PATH]        record the session from the start: what the speaker plays, to PATH
                             (a .wav/.flac/.ogg file or a folder; default $XDG_MUSIC_DIR/Busker,
                             else ~/Music/Busker, with a dated name; --record=PATH is never ambiguous)
      --record-format FMT    \\(RecordingFormat.names) (default wav24)
      --force                overwrite the --record PATH (and busker play's PATH.mid) if it exists;
                             the song being played is never overwritten
      --stems                busker live: also record the dry mic, as it comes in, to TAKE-mic.wav
    """

    static func run(_ arguments: [String]) throws {
        let args = try ArgumentScanner(arguments,
            valued: ["input", "output", "duration", "format", "channels", "rate", "period", "periods"],
            flags: ["help", "force", "no-tui"])
        if args.has("help") {
            print(help)
            return
        }
        if args.positionals.count > 1 { throw CommandLineError.usage("unexpected argument '\(args.positionals[1])'") }
        var forRequest = args.positionals.first.map { ["--record=\($0)"] } ?? ["--record"]
        if let format = args.string("format") { forRequest += ["--format", format] }
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
            try recordFile(String(input.dropFirst(5)), request: request, duration: duration, channels: channels, rate: rate)
        } else {
            try recordDevice(input, args: args, request: request, duration: duration, channels: channels, rate: rate ?? 48000)
        }
    }

    // MARK: Live, from a capture PCM

    private static func recordDevice(_ input: String, args: ArgumentScanner, request: RecordingRequest, duration: Double?,
                                     channels: Int?, rate: Int) throws {
        // Without a monitor, playback goes to ALSA's null PCM: the capture device sets the pace.
        var options = DuplexDriver.Options(capture: input, playback: args.string("output") ?? "null")
        options.periodFrames = try args.int("period", in: 16...8192) ?? 256
        options.periodCount = try args.int("periods", in: 2...16) ?? 2
        options.sampleRate = rate
        options.captureChannels = channels
        let path = try request.resolvePath()

        StopSignals.install()
        let driver: DuplexDriver
        do {
            driver = try DuplexDriver(options: options)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
        let granted = driver.granted
        let captureChannels = granted.capture?.channels ?? 1
        let graph = AudioGraph(inputChannelCount: captureChannels)
        graph.output = graph.input
        let tap = RecordingTap(channelCount: captureChannels, sampleRate: Double(granted.sampleRate))
        try tap.install(atEndOf: graph)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: driver.processSpec))
        // The same state machine as live and play: a lost or stalled device ends
        // the take (everything before it kept); it never reopens by itself here.
        // Headless: no key restarts audio, so an interruption (suspend, Ctrl-Z) ends the take too.
        let runner = SessionRunner(command: "record", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   reopen: { [options] in try DuplexDriver(options: options) })
        runner.send(.userStart)
        if runner.isOver {
            // The take file was never created: with --force an old file is still there, whole.
            runner.close()
            try runner.report(quitKey: "Ctrl-C", consequence: "")
            return
        }
        // The file is created (or, with --force, replaced) only once the device runs.
        var recorderOptions = Recorder.Options()
        recorderOptions.frameLimit = duration.map { Int(($0 * Double(granted.sampleRate)).rounded()) }
        let recorder: Recorder
        do {
            recorder = try Recorder.start(tap: tap, path: path, format: request.format, sampleRate: granted.sampleRate,
                                          force: request.force, options: recorderOptions)
        } catch {
            runner.send(.userStop)
            runner.close()
            throw CommandLineError.runtime(error.description)
        }
        runner.finalizeRecording = { recorder.stop(audioHasStopped: true) }
        print("busker record: \(granted); recording \(captureChannels) channel(s) to \(path)")
        if let notice = driver.realtime?.notice { print("busker record: \(notice)") }
        fflush(nil)

        var lastSecond = -1
        let started = Date()
        while !runner.isOver {
            runner.poll()
            if runner.isOver { break }
            recorder.followXruns(total: runner.xruns)
            if recorder.hasFailed || recorder.isComplete { break }
            let second = Int(Date().timeIntervalSince(started))
            if second != lastSecond {
                lastSecond = second
                let s = recorder.status
                print("[\(String(format: "%6.1f", Date().timeIntervalSince(started))) s] \(runner.statusText) · \(s.indicator) · \(s.framesRecorded) frames · xruns \(runner.xruns)")
                fflush(nil)
            }
            usleep(20_000)
        }
        let deviceEnded = runner.isOver
        if !deviceEnded { runner.send(.userStop) }
        let report = recorder.stop(audioHasStopped: true)
        runner.close()
        let ending: String
        switch runner.state {
        case .stopped(.user): ending = "stopped"
        case let .stopped(.signal(s)): ending = "stopped by \(s)"
        default: ending = runner.state.statusText
        }
        print("busker record: \(ending). \(report.summary)")
        if let error = report.error {
            throw CommandLineError.runtime("recording stopped: \(error); \(String(format: "%.1f", report.seconds)) s kept in \(path)")
        }
        if deviceEnded, let status = runner.state.exitStatus, status != 0 {
            throw CommandLineError.runtime("\(runner.state.statusText); \(String(format: "%.1f", report.seconds)) s kept in \(path)")
        }
    }

    // MARK: Offline, from a file

    private static func recordFile(_ inputPath: String, request: RecordingRequest, duration: Double?, channels: Int?, rate: Int?) throws {
        guard !inputPath.isEmpty else { throw CommandLineError.usage("file: needs a path, as in file:voice.wav") }
        let reader: SoundFileReader
        do {
            reader = try SoundFileReader(path: inputPath)
        } catch {
            throw CommandLineError.runtime(error.description)
        }
        let path = try request.resolvePath()
        let engineRate = rate ?? reader.sampleRate
        var limit = engineRate == reader.sampleRate ? Int(reader.frameCount)
            : Int((Double(reader.frameCount) * Double(engineRate) / Double(reader.sampleRate)).rounded())
        if let duration { limit = min(limit, Int((duration * Double(engineRate)).rounded())) }
        // The file driver always writes an output; here it is only a by-product.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("busker-record-\(getpid())-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Ctrl-C (SIGINT, SIGTERM) ends the input where it is: the take is finalized with what was recorded.
        StopSignals.install()
        let taps = TapHolder()
        var options = FileRenderDriver.Options(inputPath: inputPath, outputPath: scratch)
        options.engineRate = engineRate
        options.sampleFormat = .s16
        options.isCancelled = {
            guard StopSignals.pending != nil else { return false }
            // No tail of silence after the last frame read: the take ends here.
            taps.tap?.disarm()
            return true
        }
        var recorder: Recorder?
        let driver = FileRenderDriver(options: options)
        var cancelled = false
        do {
            cancelled = try driver.run { inputChannels, spec in
                let graph = AudioGraph(inputChannelCount: inputChannels)
                graph.output = graph.input
                // Offline the tap waits for the writer rather than drop a frame.
                let tap = RecordingTap(channelCount: channels ?? inputChannels, sampleRate: spec.sampleRate, waitsForWriter: true)
                taps.tap = tap
                try tap.install(atEndOf: graph)
                let plan = try graph.compile(spec: spec)
                var recorderOptions = Recorder.Options()
                recorderOptions.frameLimit = max(1, limit)
                recorder = try Recorder.start(tap: tap, path: path, format: request.format, sampleRate: engineRate,
                                              force: request.force, options: recorderOptions)
                return (plan, 0)
            }.wasCancelled
        } catch {
            // Whatever stopped the run, a take that started is finalized: a valid file with what it holds.
            if let recorder {
                let report = recorder.stop(audioHasStopped: true)
                print("busker record: \(inputPath) → \(report.summary)")
            }
            if let error = error as? RecordingError { throw CommandLineError.runtime(error.description) }
            if let error = error as? AudioFileError { throw CommandLineError.runtime(error.description) }
            throw CommandLineError.runtime("recording \(inputPath) failed: \(error)")
        }
        guard let recorder else { return }
        let report = recorder.stop(audioHasStopped: true)
        print("busker record: \(inputPath) → \(report.summary)")
        if cancelled, let signal = StopSignals.pending {
            throw CommandLineError.runtime("stopped by \(signal == SIGINT ? "SIGINT" : "SIGTERM"); \(String(format: "%.1f", report.seconds)) s kept in \(path)")
        }
        if let error = report.error {
            throw CommandLineError.runtime("recording stopped: \(error); \(String(format: "%.1f", report.seconds)) s kept in \(path)")
        }
    }

    /// The offline take's tap, for the cancel check on the reader thread: set
    /// while the plan is built, before the driver's threads start.
    private final class TapHolder: @unchecked Sendable {
        var tap: RecordingTap?
    }

    // MARK: Shared with busker live and busker play

    /// Prints every take's summary, then the session's last line (`ending`),
    /// and fails (exit 1) when a write error stopped a take.
    static func reportTakes(_ takes: TakeControl, command: String, ending: () throws -> Void) throws {
        for report in takes.reports { print("busker \(command): \(report.summary)") }
        try ending()
        if let failure = takes.failures.first {
            throw CommandLineError.runtime("a take stopped early: \(failure); the audio went on")
        }
    }
}
