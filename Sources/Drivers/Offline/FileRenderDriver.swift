import AudioFiles
import Engine
import Foundation
import Session
import Synchronization

/// Runs a render graph over an audio file as fast as the machine allows: the
/// offline driver of `busker live --input file:IN --output file:OUT`,
/// `busker record --input file:` and the benchmark.
///
/// Three threads, as in a live session: a reader (`file-reader`) decodes and
/// resamples to the engine rate into a ring; the `audio-render` thread
/// renders fixed blocks with the same `RenderEngine` the live drivers use;
/// a writer (`file-writer`) writes what comes out. The render thread touches
/// no file and allocates nothing.
///
/// The output is aligned with the input: the graph's latency
/// (`graphLatencyFrames`: the limiter's look-ahead) is dropped from the
/// start, and after the input ends the graph keeps rendering silence until
/// its output has been quiet for 50 ms, so a reverb tail is kept, not cut
/// (at most `maximumTailSeconds`).
///
/// It is an `AudioDriver`: opened on its route (the two paths) when made,
/// started on an engine, and ended by itself when the input and its tail
/// are written (`stopReason` `.endOfInput`). `run(makePlan:)` does all of
/// that in one call.
public final class FileRenderDriver: AudioDriver, @unchecked Sendable {
    public struct Options: Sendable {
        public var inputPath: String
        public var outputPath: String
        public var engineRate: Int = 48000
        /// Offline there is no latency to save: large blocks cost less per
        /// frame, and the graph's output does not depend on the block size.
        public var blockSize: Int = FileRenderDriver.defaultBlockSize
        public var sampleFormat: SampleFormat = .s24
        public var maximumTailSeconds: Double = 10
        /// Polled by the reader between chunks: when it says true the input
        /// ends there, as if the file ended (Ctrl-C on an offline recording);
        /// what was read is rendered and written, and the report says so.
        /// - Thread: reader
        /// - Realtime: unsafe (the reader thread may block; keep it quick)
        public var isCancelled: (@Sendable () -> Bool)?
        public init(inputPath: String, outputPath: String) {
            self.inputPath = inputPath
            self.outputPath = outputPath
        }
    }

    /// What a run did, for the status line and the benchmark.
    public struct Report: Sendable {
        public var inputFrames: Int64
        public var outputFrames: Int64
        public var engineRate: Int
        public var inputRate: Int
        public var blocks: Int
        public var wallSeconds: Double
        /// Time spent inside `RenderEngine.render`, summed and worst block.
        public var renderSeconds: Double
        public var worstBlockSeconds: Double
        public var blockSize: Int
        public var renderThreadName: String
        /// Whether `Options.isCancelled` (or `finish`) ended the input early.
        public var wasCancelled = false
        /// Blocks silenced for a fault (`RenderPlan.render`); nil when the run had no engine of its own.
        public var silenced: SilencedAudio?

        public var audioSeconds: Double { Double(outputFrames) / Double(engineRate) }
        public var realtimeFactor: Double { audioSeconds / max(wallSeconds, 1e-9) }
        /// The worst block's render time as a fraction of its real-time budget.
        public var worstBlockLoad: Double { worstBlockSeconds / (Double(blockSize) / Double(engineRate)) }
    }

    /// The offline default block: 1024 frames (21 ms at 48 kHz).
    public static let defaultBlockSize = 1024

    public let options: Options
    /// Channels of the output file: the plan's output is adapted to them, as a
    /// device's channels are. `run(makePlan:)` sets it from its plan; otherwise
    /// set it before the driver is handed to a session (which reads `format`
    /// when it is made) and before `start(engine:)`. Default 2.
    public var outputChannelCount = 2
    /// Frames the graph delays its input by, dropped from the start of the
    /// output so that it lines up with the input (the limiter's look-ahead).
    /// `run(makePlan:)` sets it from its plan; otherwise set it before `start(engine:)`.
    public var graphLatencyFrames = 0

    // MARK: Control thread only
    private let reader: SoundFileReader
    private let resampler: Resampler?
    private var output: OfflineOutput?
    private var run: Run?
    /// The reader and render threads (the writer is the output's).
    private var threads: [RealtimeThread] = []
    private var startNanoseconds: UInt64 = 0
    private var closed = false
    private var ended: DriverStopReason?
    /// The error that ended the run (a truncated input, a failed write).
    public private(set) var failure: (any Error)?
    /// What the run did, once it has ended.
    public private(set) var report: Report?

    /// Opens the input (and a resampler to the engine rate if it needs one).
    /// The output is created by `start(engine:)`.
    /// - Throws: `AudioFileError`: a missing, unreadable or non-audio input.
    /// - Thread: control
    /// - Realtime: unsafe (opens a file, allocates)
    public init(options: Options) throws(AudioFileError) {
        self.options = options
        reader = try SoundFileReader(path: options.inputPath)
        resampler = reader.sampleRate == options.engineRate ? nil :
            try Resampler(fromRate: reader.sampleRate, toRate: options.engineRate, channelCount: reader.channelCount)
    }

    deinit { close() }

    /// Channels of the input file.
    public var inputChannelCount: Int { reader.channelCount }

    // MARK: What a session reads (AudioDriver)

    public var route: DeviceRoute { DeviceRoute(input: "file:" + options.inputPath, output: "file:" + options.outputPath) }
    public var format: AudioFormat {
        AudioFormat(sampleRate: options.engineRate, periodFrames: options.blockSize,
                    inputChannels: reader.channelCount, outputChannels: outputChannelCount)
    }
    /// The output is aligned with the input: nothing is added.
    public var latencyFrames: Int { 0 }
    public var summary: String {
        "\(options.inputPath) → \(options.outputPath), \(options.engineRate) Hz"
            + (reader.sampleRate != options.engineRate ? " (resampled from \(reader.sampleRate) Hz)" : "")
            + ", \(options.blockSize)-frame blocks, offline"
    }
    /// Offline threads ask for no real-time scheduling.
    public var realtimeNotice: String? { nil }
    public var isClosed: Bool { closed }
    public var isRunning: Bool { run != nil && stopReason == nil }
    /// Offline nothing underruns.
    public var xrunCount: Int { 0 }

    /// Why the run ended, once all its threads are through: `.endOfInput`
    /// when everything is written, `.requested` after `stop()`, an `.ioError`
    /// when reading or writing failed (`stopDetail` says what). Nil while it runs.
    /// - Thread: control
    /// - Realtime: safe
    public var stopReason: DriverStopReason? {
        if let ended { return ended }
        guard let output, let run, output.writerDone.load(ordering: .acquiring),
              run.readerDone.load(ordering: .acquiring) else { return nil }
        if output.finishedWriteError != nil { return .ioError(.playback, code: -EIO) }
        if run.readerError != nil { return .ioError(.capture, code: -EIO) }
        return .endOfInput
    }

    /// The file error that ended the run (a truncated input, a failed write), in one line.
    public var stopDetail: String? {
        if let failure { return "\(failure)" }
        guard stopReason != nil, let output, let run else { return nil }
        return (output.finishedWriteError ?? run.readerError).map { "\($0)" }
    }

    /// An offline driver has no xruns or stalls to report; its end is its `stopReason`.
    public func nextEvent() -> DriverEvent? { nil }

    // MARK: Running

    /// Creates the output (a temporary file beside the named one, renamed
    /// into place when the run completes) and starts the reader, render and
    /// writer threads.
    /// An offline run reads its input once: a second start is refused.
    /// - Throws: `AudioFileError` when the output cannot be created (a folder,
    ///   an unknown extension, no permission; nothing is left behind);
    ///   `OfflineRunError.runsOnce` after a run.
    /// - Thread: control
    /// - Realtime: unsafe (creates a file and threads)
    public func start(engine: RenderEngine) throws {
        guard !closed, run == nil else { throw OfflineRunError.runsOnce(path: options.outputPath) }
        let output = try OfflineOutput(path: options.outputPath, sampleRate: options.engineRate, channelCount: outputChannelCount,
                                       sampleFormat: options.sampleFormat, blockFrames: options.blockSize)
        let inCh = reader.channelCount, block = options.blockSize, rate = options.engineRate
        let run = Run(inCapacity: max(block, 16384) * inCh * 4)
        self.output = output
        self.run = run
        startNanoseconds = monotonicNanoseconds()
        output.startWriter()
        let reader = reader, resampler = resampler, isCancelled = options.isCancelled
        let readerThread = RealtimeThread(name: "file-reader") {
            Self.readLoop(reader: reader, resampler: resampler, shared: run, output: output, isCancelled: isCancelled)
        }
        let tailLimit = Int(options.maximumTailSeconds * Double(rate))
        let latency = graphLatencyFrames
        // Everything the render thread touches is allocated here, before it starts.
        let buffers = RenderBuffers(inputChannels: inCh, outputChannels: outputChannelCount, block: block)
        let renderThread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            Self.renderLoop(engine: engine, shared: run, output: output, buffers: buffers,
                            latency: latency, tailLimit: tailLimit, silenceRun: rate / 20)
        }
        threads = [readerThread, renderThread]
    }

    /// Stops at once: a run still going ends and its partial output is removed
    /// (a file at the output path is left as it was); a run whose threads are
    /// through is closed as it ended.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, removes a file)
    public func stop() {
        guard let output, let run, ended == nil else { return }
        if stopReason != nil {
            _ = conclude(output, run)
            return
        }
        output.abandon()
        joinThreads()
        output.discard()
        ended = .requested
    }

    /// Ends the input where the reader is (at once when it has ended), renders
    /// and writes the rest with its tail, and closes the output file. An
    /// offline run renders faster than real time and its tail is bounded
    /// (`maximumTailSeconds`), so this waits for that rather than for the
    /// timeout, which bounds a device's drain.
    /// - Returns: nil when everything was written, else why not (`failure` has the error).
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, closes a file)
    @discardableResult
    public func finish(timeoutMilliseconds: Int) -> DriverStopReason? {
        guard let output, let run else { return nil }
        if ended == nil {
            run.cutInput.store(true, ordering: .relaxed)
            _ = conclude(output, run)
        }
        return ended == .endOfInput ? nil : ended
    }

    /// Files are not suspended: there is nothing to resume.
    /// - Throws: `OfflineRunError.notSuspended`.
    public func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws {
        throw OfflineRunError.notSuspended(path: options.outputPath)
    }

    /// Ends any run (`stop()`: a run still going is cut and its file removed) and lets the files go.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, removes a file)
    public func close() {
        guard !closed else { return }
        stop()
        closed = true
    }

    /// Thrown by `run` when `isInterrupted` said so: the partial output is
    /// removed and a file at the output path is left as it was.
    public struct Interrupted: Error {}

    /// Renders the file through the plan `makePlan` builds for the input's
    /// channel count (returning the plan and its latency in frames), on
    /// `engine` (a session's, with its MIDI schedulers attached; by default
    /// one of its own), to the end. On failure the partial output is
    /// removed (a file at the output path is left as it was) and the error thrown.
    /// - Parameter isInterrupted: asked on the calling thread every few
    ///   milliseconds while the run goes; true abandons the run (`Interrupted`
    ///   thrown). Unlike `Options.isCancelled`, nothing is written.
    /// - Thread: control (it waits for the threads: the one plan is installed
    ///   before they start, so none is retired meanwhile)
    /// - Realtime: unsafe (creates a file and threads, waits for them)
    public func run(engine: RenderEngine = RenderEngine(), isInterrupted: () -> Bool = { false },
                    makePlan: (_ inputChannels: Int, _ spec: ProcessSpec) throws -> (plan: RenderPlan, latencyFrames: Int)) throws -> Report {
        let (plan, latency) = try makePlan(reader.channelCount, processSpec)
        outputChannelCount = plan.outputChannelCount
        graphLatencyFrames = latency
        engine.install(plan)
        defer { engine.releaseAll() }
        try start(engine: engine)
        while stopReason == nil {
            if isInterrupted() {
                close()
                throw Interrupted()
            }
            // A signal needs no finer grain; a tighter loop would take CPU time from the run's threads.
            usleep(2000)
        }
        finish(timeoutMilliseconds: 0)
        close()
        if let failure { throw failure }
        report?.silenced = engine.silencedAudio()
        return report!
    }

    /// What became of the output file when the run did not complete, for the
    /// end of an error line: "OUT.wav was left as it was" (a file was there)
    /// or "OUT.wav was not written".
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    public var outputKeptNote: String {
        output?.replacement.keptNote ?? (try? OutputReplacement(target: options.outputPath))?.keptNote
            ?? "\(options.outputPath) was not written"
    }

    // MARK: Ending

    /// Joins the reader and render threads. Control thread.
    private func joinThreads() {
        for thread in threads { thread.join() }
        threads = []
    }

    /// Joins every thread, closes the output (renamed into place, or removed
    /// when the run failed), makes the report and says how the run ended. Control thread.
    private func conclude(_ output: OfflineOutput, _ run: Run) -> DriverStopReason {
        if let ended { return ended }
        joinThreads()
        let (written, error) = output.end(failure: run.readerError)
        var reason = DriverStopReason.endOfInput
        if let error {
            failure = error
            reason = .ioError(run.readerError != nil && output.finishedWriteError == nil ? .capture : .playback, code: -EIO)
        }
        report = Report(inputFrames: Int64(run.framesDelivered.load(ordering: .relaxed)),
                        outputFrames: written, engineRate: options.engineRate,
                        inputRate: reader.sampleRate, blocks: run.blocks,
                        wallSeconds: Double(monotonicNanoseconds() - startNanoseconds) / 1e9,
                        renderSeconds: Double(run.renderNanos) / 1e9,
                        worstBlockSeconds: Double(run.worstBlockNanos) / 1e9,
                        blockSize: options.blockSize, renderThreadName: output.renderThreadName,
                        wasCancelled: run.cancelled.load(ordering: .relaxed))
        ended = reason
        return reason
    }

    // MARK: What the reader and render threads share

    /// The render thread's working buffers: planar in and out, and their
    /// interleaved forms for the rings.
    private final class RenderBuffers: @unchecked Sendable {
        let input: AudioBuffer
        let output: AudioBuffer
        let interleavedInput: UnsafeMutablePointer<Float>
        let interleavedOutput: UnsafeMutablePointer<Float>
        init(inputChannels: Int, outputChannels: Int, block: Int) {
            input = AudioBuffer(channelCount: inputChannels, capacity: block)
            output = AudioBuffer(channelCount: outputChannels, capacity: block)
            interleavedInput = .allocate(capacity: block * inputChannels)
            interleavedOutput = .allocate(capacity: block * outputChannels)
        }
        deinit {
            interleavedInput.deallocate()
            interleavedOutput.deallocate()
        }
    }

    /// The input side of a run: the reader's ring and flags, and the render thread's counts.
    private final class Run: @unchecked Sendable {
        let inRing: SampleRing
        /// The reader is through; `readerError` is set before it.
        let readerDone = Atomic<Bool>(false)
        /// The reader stopped early because `Options.isCancelled` (or `finish`) said so.
        let cancelled = Atomic<Bool>(false)
        /// Set by `finish`: the reader ends the input where it is.
        let cutInput = Atomic<Bool>(false)
        /// Frames the reader delivered at the engine rate.
        let framesDelivered = Atomic<Int>(0)
        var readerError: Error?      // written by the reader before readerDone
        var blocks = 0               // written by the render thread before renderDone
        var renderNanos: UInt64 = 0
        var worstBlockNanos: UInt64 = 0
        init(inCapacity: Int) { inRing = SampleRing(capacity: inCapacity) }
    }

    // MARK: Reader thread

    /// Reader thread: decode, resample, push into the input ring.
    /// - Thread: reader
    /// - Realtime: unsafe (file I/O, allocates, sleeps while the ring is full)
    private static func readLoop(reader: SoundFileReader, resampler: Resampler?, shared: Run, output: OfflineOutput,
                                 isCancelled: (@Sendable () -> Bool)?) {
        let ch = reader.channelCount
        let chunkFrames = 4096
        let chunk = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * ch)
        defer { chunk.deallocate() }
        var total: Int64 = 0
        func push(_ p: UnsafePointer<Float>, _ frames: Int) {
            var done = 0
            while done < frames * ch {
                if output.abort.load(ordering: .relaxed) { return }
                // Wait for room for the whole rest (or half the ring, for a
                // resampler's larger output), sleeping: the ring holds over a
                // second, so the render thread never runs dry meanwhile.
                if shared.inRing.availableToWrite < min(frames * ch - done, shared.inRing.capacity / 2) {
                    ThreadWait.nap()
                    continue
                }
                done += shared.inRing.write(p + done, count: frames * ch - done)
            }
            shared.framesDelivered.add(frames, ordering: .relaxed)
        }
        do {
            while !output.abort.load(ordering: .relaxed) {
                if shared.cutInput.load(ordering: .relaxed) || isCancelled?() == true {
                    shared.cancelled.store(true, ordering: .relaxed)
                    break
                }
                let n = try reader.read(into: chunk, frames: chunkFrames)
                total += Int64(n)
                if let resampler {
                    try resampler.process(chunk, frames: n, endOfInput: n == 0) { p, frames in push(p, frames) }
                } else if n > 0 {
                    push(chunk, n)
                }
                if n == 0 { break }
            }
            if total < reader.frameCount && !output.abort.load(ordering: .relaxed) && !shared.cancelled.load(ordering: .relaxed) {
                throw AudioFileError.truncated(path: reader.path, declaredFrames: reader.frameCount, presentFrames: total)
            }
        } catch {
            shared.readerError = error
            output.abort.store(true, ordering: .releasing)
        }
        shared.readerDone.store(true, ordering: .releasing)
    }

    // MARK: Audio thread

    /// The audio-render thread: pull a block, render it, push it on.
    /// - Thread: audio
    /// - Realtime: safe (everything is allocated before the loop; it blocks only in
    ///   `ThreadWait.pause`, the wait on its rings)
    private static func renderLoop(engine: RenderEngine, shared: Run, output: OfflineOutput, buffers: RenderBuffers,
                                   latency: Int, tailLimit: Int, silenceRun: Int) {
        // The thread's name goes into the report (it proves the naming).
        output.recordRenderThreadName()
        let inChannels = buffers.input.channelCount, outChannels = buffers.output.channelCount
        let block = buffers.input.capacity
        let inBuffer = buffers.input, outBuffer = buffers.output
        let interleavedIn = buffers.interleavedInput, interleavedOut = buffers.interleavedOutput
        var wait = ThreadWait()
        var toSkip = latency          // look-ahead frames to drop from the start
        var tailFrames = 0            // frames rendered after the input ended
        var quietFrames = 0
        var inputEnded = false
        let silence: Float = 3.2e-5   // −90 dBFS
        while !output.abort.load(ordering: .relaxed) {
            var frames = 0
            if !inputEnded {
                let available = shared.inRing.availableToRead / inChannels
                if available < block && !shared.readerDone.load(ordering: .acquiring) {
                    wait.pause()
                    continue
                }
                // Re-read after readerDone: the last samples may have landed meanwhile.
                frames = min(block, shared.inRing.availableToRead / inChannels)
                if frames == 0 {
                    inputEnded = true
                } else {
                    shared.inRing.read(into: interleavedIn, count: frames * inChannels)
                    Interleaving.deinterleave(interleavedIn, channels: inChannels, frames: frames, into: inBuffer)
                }
            }
            if inputEnded {
                // Flush the look-ahead, then keep the tail until it has been quiet a while.
                if (tailFrames >= latency && quietFrames >= silenceRun) || tailFrames >= latency + tailLimit { break }
                frames = block
                inBuffer.clear()
            }
            let t0 = monotonicNanoseconds()
            engine.render(input: inBuffer.block(frames: frames), output: outBuffer.block(frames: frames))
            let dt = monotonicNanoseconds() - t0
            shared.renderNanos += dt
            if dt > shared.worstBlockNanos { shared.worstBlockNanos = dt }
            shared.blocks += 1
            if inputEnded {
                tailFrames += frames
                var peak: Float = 0
                for c in 0..<outChannels { for i in 0..<frames { peak = max(peak, abs(outBuffer[c][i])) } }
                quietFrames = peak < silence ? quietFrames + frames : 0
            }
            let skip = min(toSkip, frames)
            toSkip -= skip
            let keep = frames - skip
            if keep == 0 { continue }
            output.push(outBuffer, offset: skip, frames: keep, scratch: interleavedOut, wait: &wait)
        }
        output.renderDone.store(true, ordering: .releasing)
    }
}
