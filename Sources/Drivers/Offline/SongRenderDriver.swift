import AudioFiles
import Engine
import Foundation
import Session
import Synchronization

/// Renders a graph with no input (instruments played by a MIDI file) to an
/// audio file as fast as the machine allows: `busker render SONG.mid -o SONG.wav`.
///
/// Two threads, as in `FileRenderDriver`: `audio-render` renders blocks into
/// a ring and `file-writer` writes them through libsndfile. The file holds
/// the song and its tail: it ends 50 ms after the last frame above −90 dBFS
/// (or the song's end, if that is later), capped by a tail limit. The end is
/// found frame by frame, so the file does not depend on the block size. The
/// graph's latency (the limiter's look-ahead) is removed from the start, so
/// the file's frame 0 is the song's frame 0.
///
/// It is an `AudioDriver` with nothing to capture: it ends by itself when the
/// song and its tail are written (`stopReason` `.endOfInput`).
/// `run(plan:engine:latencyFrames:songFrames:isCancelled:progress:)` does it all in one call.
public final class SongRenderDriver: AudioDriver, @unchecked Sendable {
    public struct Options: Sendable {
        public var outputPath: String
        public var engineRate: Int = 48000
        public var blockSize: Int = FileRenderDriver.defaultBlockSize
        public var sampleFormat: SampleFormat = .s24
        public var maximumTailSeconds: Double = 10

        public init(outputPath: String) {
            self.outputPath = outputPath
        }
    }

    public struct Report: Sendable {
        public var outputFrames: Int64
        public var engineRate: Int
        public var blocks: Int
        public var wallSeconds: Double
        /// Time spent inside `engine.render`.
        public var renderSeconds: Double
        public var renderThreadName: String

        public var audioSeconds: Double { Double(outputFrames) / Double(engineRate) }
        public var realtimeFactor: Double { audioSeconds / max(wallSeconds, 1e-9) }
    }

    /// Thrown by `run` when `isCancelled` said so; the partial output is
    /// removed and a file at the output path is left as it was.
    public struct Cancelled: Error {}

    public let options: Options
    /// Channels of the output file; `run` sets it from the plan. Otherwise set
    /// it before the driver is handed to a session and before `start(engine:)`. Default 2.
    public var outputChannelCount = 2
    /// Frames the graph delays its sources by, dropped from the start. Set before `start(engine:)`.
    public var graphLatencyFrames = 0
    /// The song's length in output frames (at its tempo scale). Set before `start(engine:)`.
    public var songFrames = 0

    // MARK: Control thread only
    private var output: OfflineOutput?
    private var counts: Counts?
    private var thread: RealtimeThread?
    private var startNanoseconds: UInt64 = 0
    private var closed = false
    private var ended: DriverStopReason?
    /// The error that ended the run (a failed write).
    public private(set) var failure: (any Error)?
    /// What the run did, once it has ended.
    public private(set) var report: Report?

    public init(options: Options) {
        self.options = options
    }

    deinit { close() }

    // MARK: What a session reads (AudioDriver)

    public var route: DeviceRoute { DeviceRoute(input: nil, output: "file:" + options.outputPath) }
    public var format: AudioFormat {
        AudioFormat(sampleRate: options.engineRate, periodFrames: options.blockSize, inputChannels: 0,
                    outputChannels: outputChannelCount)
    }
    /// The file's frame 0 is the song's frame 0: nothing is added.
    public var latencyFrames: Int { 0 }
    public var summary: String { "\(options.outputPath), \(options.engineRate) Hz, \(options.blockSize)-frame blocks, offline" }
    /// Offline threads ask for no real-time scheduling.
    public var realtimeNotice: String? { nil }
    public var isClosed: Bool { closed }
    public var isRunning: Bool { output != nil && stopReason == nil }
    /// Offline nothing underruns.
    public var xrunCount: Int { 0 }
    /// Frames written to the file so far.
    /// - Thread: control
    /// - Realtime: safe
    public var framesWritten: Int64 { Int64(output?.framesWritten.load(ordering: .relaxed) ?? 0) }

    /// `.endOfInput` once the song and its tail are written, `.ioError` when a
    /// write failed (`stopDetail` says what), `.requested` after `stop()`.
    /// - Thread: control
    /// - Realtime: safe
    public var stopReason: DriverStopReason? {
        if let ended { return ended }
        guard let output, output.writerDone.load(ordering: .acquiring) else { return nil }
        return output.finishedWriteError != nil ? .ioError(.playback, code: -EIO) : .endOfInput
    }

    /// The write error that ended the render, in one line.
    public var stopDetail: String? {
        if let failure { return "\(failure)" }
        return output?.finishedWriteError.map { "\($0)" }
    }

    /// An offline driver has no xruns or stalls to report; its end is its `stopReason`.
    public func nextEvent() -> DriverEvent? { nil }

    // MARK: Running

    /// Creates the output (a temporary file beside the named one, renamed
    /// into place when the render completes) and starts the render and writer threads.
    /// A render runs once: a second start is refused.
    /// - Throws: `AudioFileError` when the output cannot be created (nothing is
    ///   left behind); `OfflineRunError.runsOnce` after a render.
    /// - Thread: control
    /// - Realtime: unsafe (creates a file and threads)
    public func start(engine: RenderEngine) throws {
        guard !closed, output == nil else { throw OfflineRunError.runsOnce(path: options.outputPath) }
        let output = try OfflineOutput(path: options.outputPath, sampleRate: options.engineRate, channelCount: outputChannelCount,
                                       sampleFormat: options.sampleFormat, blockFrames: options.blockSize)
        let counts = Counts()
        self.output = output
        self.counts = counts
        let buffers = Buffers(channels: outputChannelCount, block: options.blockSize)
        let tailLimit = Int(options.maximumTailSeconds * Double(options.engineRate))
        let silenceRun = options.engineRate / 20
        let latency = graphLatencyFrames, songFrames = max(0, songFrames)
        startNanoseconds = monotonicNanoseconds()
        output.startWriter()
        thread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            Self.renderLoop(engine: engine, shared: counts, output: output, buffers: buffers, latency: latency,
                            songFrames: songFrames, tailLimit: tailLimit, silenceRun: silenceRun)
        }
    }

    /// Stops at once: a render still going ends and its partial output is
    /// removed (a file at the output path is left as it was); one that has
    /// ended is closed as it ended.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, removes a file)
    public func stop() {
        guard let output, let counts, ended == nil else { return }
        if stopReason != nil {
            _ = conclude(output, counts)
            return
        }
        output.abandon()
        thread?.join()
        thread = nil
        output.discard()
        ended = .requested
    }

    /// Waits for the song and its tail to be written (rendered faster than
    /// real time, and never longer than the song plus the tail limit: a
    /// song's end has no timeout to keep, unlike a device's drain), then
    /// closes the file.
    /// - Returns: nil when everything was written, else why not.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, closes a file)
    @discardableResult
    public func finish(timeoutMilliseconds: Int) -> DriverStopReason? {
        guard let output, let counts else { return nil }
        let reason = ended ?? conclude(output, counts)
        return reason == .endOfInput ? nil : reason
    }

    /// Files are not suspended: there is nothing to resume.
    /// - Throws: `OfflineRunError.notSuspended`.
    public func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws {
        throw OfflineRunError.notSuspended(path: options.outputPath)
    }

    /// Ends any render (one still going is cut and its file removed) and lets the file go.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, removes a file)
    public func close() {
        guard !closed else { return }
        stop()
        closed = true
    }

    /// Renders `plan` on `engine` for the song's `songFrames` and then its tail.
    /// - Parameters:
    ///   - engine: the engine to render on, with the plan's MIDI scheduler attached.
    ///   - latencyFrames: frames the plan delays its sources by; dropped from the start.
    ///   - songFrames: the song's length in output frames (at its tempo scale).
    ///   - isCancelled: asked on the calling thread while it waits; true stops the render.
    ///   - progress: called on the calling thread with the frames written so far, when that grew.
    /// On failure or cancellation the partial output is removed (a file at the
    /// output path is left as it was) and the error (or `Cancelled`) thrown.
    /// - Thread: control (it waits, freeing the plans the audio thread retires)
    /// - Realtime: unsafe (creates a file and threads, waits for them)
    public func run(plan: RenderPlan, engine: RenderEngine, latencyFrames: Int, songFrames: Int,
                    isCancelled: () -> Bool = { false }, progress: (Int64) -> Void = { _ in }) throws -> Report {
        outputChannelCount = plan.outputChannelCount
        graphLatencyFrames = latencyFrames
        self.songFrames = songFrames
        engine.install(plan)
        defer { engine.releaseAll() }
        try start(engine: engine)
        var reported: Int64 = 0
        while stopReason == nil {
            if isCancelled() {
                stop()
                throw Cancelled()
            }
            if framesWritten > reported {
                reported = framesWritten
                progress(reported)
            }
            engine.collectRetiredPlans()
            // Progress and Ctrl-C need no finer grain; a tighter loop would
            // take CPU time from the render and writer threads.
            usleep(2000)
        }
        finish(timeoutMilliseconds: 0)
        close()
        if let failure { throw failure }
        return report!
    }

    /// What became of the output file when the render did not complete, for
    /// the end of an error line: "OUT.wav was left as it was" (a file was
    /// there) or "OUT.wav was not written".
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    public var outputKeptNote: String {
        output?.replacement.keptNote ?? (try? OutputReplacement(target: options.outputPath))?.keptNote
            ?? "\(options.outputPath) was not written"
    }

    // MARK: Ending

    /// Joins the threads, closes the file (renamed into place, or removed when
    /// the render failed), makes the report and says how the render ended. Control thread.
    private func conclude(_ output: OfflineOutput, _ counts: Counts) -> DriverStopReason {
        if let ended { return ended }
        thread?.join()
        thread = nil
        let (written, error) = output.end(failure: nil)
        var reason = DriverStopReason.endOfInput
        if let error {
            failure = error
            reason = .ioError(.playback, code: -EIO)
        }
        report = Report(outputFrames: written, engineRate: options.engineRate, blocks: counts.blocks,
                        wallSeconds: Double(monotonicNanoseconds() - startNanoseconds) / 1e9,
                        renderSeconds: Double(counts.renderNanos) / 1e9, renderThreadName: output.renderThreadName)
        ended = reason
        return reason
    }

    // MARK: What the render thread keeps

    /// The render thread's counts, read after it ends.
    private final class Counts: @unchecked Sendable {
        var blocks = 0
        var renderNanos: UInt64 = 0
    }

    /// The render thread's output buffers, allocated before it starts.
    private final class Buffers: @unchecked Sendable {
        let planar: AudioBuffer
        let interleaved: UnsafeMutablePointer<Float>
        init(channels: Int, block: Int) {
            planar = AudioBuffer(channelCount: channels, capacity: block)
            interleaved = .allocate(capacity: channels * block)
        }
        deinit { interleaved.deallocate() }
    }

    // MARK: Audio thread

    /// The audio-render thread.
    /// - Thread: audio
    /// - Realtime: safe (everything is allocated before the loop; it blocks only in
    ///   `ThreadWait.pause`, the wait on its ring)
    private static func renderLoop(engine: RenderEngine, shared: Counts, output: OfflineOutput, buffers: Buffers, latency: Int,
                                   songFrames: Int, tailLimit: Int, silenceRun: Int) {
        // The thread's name goes into the report (it proves the naming).
        output.recordRenderThreadName()
        let planar = buffers.planar, interleaved = buffers.interleaved
        let channels = planar.channelCount, block = planar.capacity
        let silence: Float = 3.2e-5   // −90 dBFS
        var wait = ThreadWait()
        var toSkip = latency
        var written = 0          // output frames pushed so far
        var lastLoud = -1        // output frame index of the last frame above −90 dBFS
        var finished = false
        while !finished && !output.abort.load(ordering: .relaxed) {
            let t0 = monotonicNanoseconds()
            engine.render(input: nil, output: planar.block(frames: block))
            shared.renderNanos += monotonicNanoseconds() - t0
            shared.blocks += 1
            let skip = min(toSkip, block)
            toSkip -= skip
            var keep = block - skip
            if keep == 0 { continue }
            for i in 0..<keep {
                var peak: Float = 0
                for c in 0..<channels { peak = max(peak, abs(planar[c][skip + i])) }
                if peak >= silence { lastLoud = written + i }
            }
            // The end: the song, or the last loud frame, plus the quiet run; at most the tail limit.
            let end = min(max(songFrames, lastLoud + 1) + silenceRun, songFrames + tailLimit)
            if written + keep >= end {
                keep = end - written
                finished = true
            }
            output.push(planar, offset: skip, frames: keep, scratch: interleaved, wait: &wait)
            written += keep
        }
        output.renderDone.store(true, ordering: .releasing)
    }
}
