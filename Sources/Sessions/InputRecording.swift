import ALSA
import AudioFiles
import CommandLineInterface
import Engine
import Foundation
import OfflineDrivers
import Recording
import Session

/// `busker record`: an input, as it is (no processing), to a take: from an
/// ALSA capture PCM in real time, or from an audio file offline. Each says
/// its status and summary lines and throws the one-line error of a take
/// that ended early (exit 1).
public enum InputRecording {
    /// Records from a capture PCM (or a JACK client's input ports) until
    /// SIGINT/SIGTERM/SIGHUP, `duration`, or the device stops.
    /// - Parameters:
    ///   - driver: ALSA: the capture PCM, its playback side the monitor
    ///     (ALSA's `null` PCM for none). JACK: `in_1` … `in_N` recorded,
    ///     `out_L`/`out_R` carrying them for a monitor the user patches.
    ///   - verbose: say what was asked of the device and what it granted (`AudioDriver.verboseLines`).
    public static func recordDevice(driver given: AudioDriverChoice, request: RecordingRequest, duration: Double?, verbose: Bool = false,
                                    output: SessionOutput = .standard) throws {
        let path = try request.resolvePath()
        // A JACK client's outputs carry the input for a monitor the user patches: never to the speakers by themselves.
        var choice = given
        if case var .jack(options) = choice {
            options.autoConnectsOutputs = false
            choice = .jack(options)
        }
        // The same session as live and play: a lost or stalled device ends the take (everything before
        // it kept); it never reopens by itself here. Headless: no key restarts audio, so an
        // interruption (suspend, Ctrl-Z) ends the take too.
        var setup = SessionDescription(command: "record", driver: choice, sources: SessionSources(), recording: nil,
                                       policy: SessionPolicy(headless: true), quitKey: "Ctrl-C")
        setup.takesJobControl = false
        let session = try AudioSession(setup, output: output)
        let runner = session.runner, driver = runner.driver
        // Nothing but the input: the session put the take's tap at the end of its graph.
        guard let tap = session.tap else { throw SessionError.failed("record: the session has no tap") }
        let granted = driver.format
        let captureChannels = session.chain.outputChannels
        runner.send(.userStart)
        if runner.isOver {
            // The take file was never created: with --force an old file is still there, whole.
            runner.close()
            try runner.report(quitKey: "Ctrl-C", consequence: "", output: output)
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
            throw SessionError.failed(error.description)
        }
        // A close left running on its thread holds its render thread in the dead library, if
        // anywhere: the tap is disarmed and not waited for, or the exit would miss its 2 s.
        runner.finalizeRecording = { recorder.stop(audioHasStopped: true) }
        output.line("busker record: \(driver.grantedSummary); recording \(captureChannels) channel(s) to \(path)")
        if let notice = driver.realtimeNotice { output.line("busker record: \(notice)") }
        if verbose {
            for line in driver.verboseLines + ["take: \(request.format.rawValue) at \(granted.sampleRate) Hz"] { output.line("busker record: \(line)") }
        }
        fflush(nil)

        var lastSecond = -1
        let started = Date()
        while !runner.isOver {
            runner.poll()
            if runner.isOver { break }
            recorder.followXruns(total: runner.xruns)
            recorder.followSilencedBlocks(total: runner.engine.silencedBlockCount, from: "input")
            if recorder.hasFailed || recorder.isComplete { break }
            let second = Int(Date().timeIntervalSince(started))
            if second != lastSecond {
                lastSecond = second
                let s = recorder.status
                output.line("[\(String(format: "%6.1f", Date().timeIntervalSince(started))) s] \(runner.statusText) · \(s.indicator) · \(s.framesRecorded) frames · xruns \(runner.xruns)")
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
        output.line("busker record: \(ending). \(report.summary)")
        if let error = report.error {
            throw SessionError.failed("recording stopped: \(error); \(report.keptDescription)")
        }
        if deviceEnded, let status = runner.state.exitStatus, status != 0 {
            throw SessionError.failed("\(runner.state.statusText); \(report.keptDescription)")
        }
    }

    /// Records an audio file offline, as fast as the machine allows, until its
    /// end, `duration`, or SIGINT/SIGTERM/SIGHUP (the take keeps what was read).
    /// - Parameters:
    ///   - channels: the take's channels (nil: the file's).
    ///   - rate: the take's rate (nil: the file's own; another is resampled).
    /// - Thread: control, reader (the `isCancelled` check runs on the file driver's reader)
    /// - Realtime: unsafe (file I/O, allocates, starts threads)
    public static func recordFile(_ inputPath: String, request: RecordingRequest, duration: Double?, channels: Int?, rate: Int?,
                                  output: SessionOutput = .standard) throws {
        guard !inputPath.isEmpty else { throw SessionError.invalidRequest("file: needs a path, as in file:voice.wav") }
        let reader: SoundFileReader
        do {
            reader = try SoundFileReader(path: inputPath)
        } catch {
            throw SessionError.failed(error.description)
        }
        let path = try request.resolvePath()
        if let warning = InputFileWarning.unclaimedAudio(path: inputPath) { output.warning("busker record: warning: \(warning)") }
        let engineRate = rate ?? reader.sampleRate
        var limit = engineRate == reader.sampleRate ? Int(reader.frameCount)
            : Int((Double(reader.frameCount) * Double(engineRate) / Double(reader.sampleRate)).rounded())
        if let duration { limit = min(limit, Int((duration * Double(engineRate)).rounded())) }
        // The file driver always writes an output; here it is only a by-product.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("busker-record-\(getpid())-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the input where it is: the take is finalized with what was recorded.
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
        var cancelled = false
        do {
            var sources = SessionSources()
            sources.recordedChannels = channels
            let setup = SessionDescription(command: "record", driver: .file(options, outputChannels: 2), sources: sources,
                                           recording: nil, policy: SessionPolicy(headless: true), quitKey: "Ctrl-C")
            let session = try AudioSession(setup, output: output)
            guard let tap = session.tap else { throw SessionError.failed("record: the session has no tap") }
            taps.tap = tap
            var recorderOptions = Recorder.Options()
            recorderOptions.frameLimit = max(1, limit)
            recorder = try Recorder.start(tap: tap, path: path, format: request.format, sampleRate: engineRate,
                                          force: request.force, options: recorderOptions)
            cancelled = try session.runFile().wasCancelled
        } catch {
            // Whatever stopped the run, a take that started is finalized: a valid file with what it holds.
            if let recorder {
                let report = recorder.stop(audioHasStopped: true)
                output.line("busker record: \(inputPath) → \(report.summary)")
            }
            if let error = error as? SessionError { throw error }
            if let error = error as? RecordingError { throw SessionError.failed(error.description) }
            if let error = error as? AudioFileError { throw SessionError.failed(error.description) }
            throw SessionError.failed("recording \(inputPath) failed: \(error)")
        }
        guard let recorder else { return }
        let report = recorder.stop(audioHasStopped: true)
        output.line("busker record: \(inputPath) → \(report.summary)")
        if cancelled, let signal = StopSignals.pending {
            throw SessionError.failed("stopped by \(signal); \(report.keptDescription)")
        }
        if let error = report.error {
            throw SessionError.failed("recording stopped: \(error); \(report.keptDescription)")
        }
    }

    /// The offline take's tap, for the cancel check on the reader thread: set
    /// while the plan is built, before the driver's threads start.
    private final class TapHolder: @unchecked Sendable {
        var tap: RecordingTap?
    }
}
