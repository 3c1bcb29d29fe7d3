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
/// `run(plan:latencyFrames:songFrames:isCancelled:progress:)` does it all in one call.
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

    /// Thrown by `run` when `isCancelled` said so; the partial file is removed.
    public struct Cancelled: Error {}

    public let options: Options
    /// The engine `run` renders on (`start(engine:)` takes any).
    public let engine = RenderEngine()
    /// Channels of the output file; `run` sets it from the plan (default 2).
    public var outputChannelCount = 2
    /// Frames the graph delays its sources by, dropped from the start. Set before `start(engine:)`.
    public var graphLatencyFrames = 0
    /// The song's length in output frames (at its tempo scale). Set before `start(engine:)`.
    public var songFrames = 0

    // MARK: Control thread only
    private var writer: SoundFileWriter?
    private var threads: [RealtimeThread] = []
    private var shared: Shared?
    private var startNanoseconds: UInt64 = 0
    private var closed = false
    private var ended: DriverStopReason?
    /// The error that ended the run (a failed write).
    public private(set) var failure: (any Error)?
    /// What the last run did, once it has ended.
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
    public var isRunning: Bool { shared != nil && ended == nil && !(shared?.writerDone.load(ordering: .acquiring) ?? true) }
    /// Offline nothing underruns.
    public var xrunCount: Int { 0 }
    /// Frames written to the file so far.
    public var framesWritten: Int64 { Int64(shared?.framesWritten.load(ordering: .relaxed) ?? 0) }

    /// `.endOfInput` once the song and its tail are written, `.ioError` when a
    /// write failed (`failure` holds the error), `.requested` after `stop()`.
    public var stopReason: DriverStopReason? {
        if let ended { return ended }
        guard let shared, shared.writerDone.load(ordering: .acquiring) else { return nil }
        return shared.writeError != nil ? .ioError(.playback, code: -EIO) : .endOfInput
    }

    /// An offline driver has no xruns or stalls to report; its end is its `stopReason`.
    public func nextEvent() -> DriverEvent? { nil }

    // MARK: Running

    /// Creates the output file and starts the render and writer threads.
    /// - Throws: `AudioFileError` when the output cannot be created.
    /// - Thread: control
    /// - Realtime: unsafe (creates a file and threads)
    public func start(engine: RenderEngine) throws {
        guard !closed else { throw AudioFileError.writeFailed(path: options.outputPath, reason: "the driver is closed") }
        guard shared == nil else { throw AudioFileError.writeFailed(path: options.outputPath, reason: "already started") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: options.outputPath, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AudioFileError.cannotOpen(path: options.outputPath, reason: "is a directory")
        }
        let channels = outputChannelCount
        let writer = try SoundFileWriter(path: options.outputPath, sampleRate: options.engineRate,
                                         channelCount: channels, sampleFormat: options.sampleFormat)
        self.writer = writer
        let block = options.blockSize
        let shared = Shared(capacity: max(block, 16384) * channels * 4)
        self.shared = shared
        let buffers = Buffers(channels: channels, block: block)
        let tailLimit = Int(options.maximumTailSeconds * Double(options.engineRate))
        let silenceRun = options.engineRate / 20
        let latency = graphLatencyFrames, songFrames = max(0, songFrames)
        startNanoseconds = monotonicNanoseconds()
        let renderThread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            Self.renderLoop(engine: engine, shared: shared, buffers: buffers, latency: latency,
                            songFrames: songFrames, tailLimit: tailLimit, silenceRun: silenceRun)
        }
        let writerThread = RealtimeThread(name: "file-writer") {
            shared.writeError = RingDrain.drain(shared.ring, channels: channels, into: writer,
                                                renderDone: { shared.renderDone.load(ordering: .acquiring) },
                                                abort: { shared.abort.store(true, ordering: .relaxed) }) { written in
                shared.framesWritten.store(Int(written), ordering: .relaxed)
            }
            shared.writerDone.store(true, ordering: .releasing)
        }
        threads = [renderThread, writerThread]
    }

    /// Stops at once: a render still going ends and its partial file is
    /// removed; one that has ended is closed as it ended.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, removes a file)
    public func stop() {
        guard let shared, ended == nil else { return }
        if shared.writerDone.load(ordering: .acquiring) {
            _ = conclude(shared)
            return
        }
        shared.abort.store(true, ordering: .relaxed)
        joinThreads()
        try? writer?.close()
        writer = nil
        try? FileManager.default.removeItem(atPath: options.outputPath)
        ended = .requested
    }

    /// Waits for the song and its tail to be written (rendered faster than
    /// real time, and never longer than the song plus the tail limit), then
    /// closes the file.
    /// - Returns: nil when everything was written, else why not.
    /// - Thread: control
    /// - Realtime: unsafe (joins threads, closes a file)
    @discardableResult
    public func finish(timeoutMilliseconds: Int) -> DriverStopReason? {
        guard let shared else { return nil }
        let reason = ended ?? conclude(shared)
        return reason == .endOfInput ? nil : reason
    }

    /// Suspends happen to devices, not files.
    public func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws {
        throw AudioFileError.writeFailed(path: options.outputPath, reason: "an offline render cannot be suspended or resumed")
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
    ///   - latencyFrames: frames the plan delays its sources by; dropped from the start.
    ///   - songFrames: the song's length in output frames (at its tempo scale).
    ///   - isCancelled: asked on the calling thread while it waits; true stops the render.
    ///   - progress: called on the calling thread with the frames written so far, when that grew.
    /// On failure or cancellation the partial output file is removed and the error
    /// (or `Cancelled`) thrown.
    /// - Thread: control (it waits, freeing the plans the audio thread retires)
    /// - Realtime: unsafe (creates a file and threads, waits for them)
    public func run(plan: RenderPlan, latencyFrames: Int, songFrames: Int, isCancelled: () -> Bool = { false },
                    progress: (Int64) -> Void = { _ in }) throws -> Report {
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

    // MARK: Ending

    private func joinThreads() {
        for thread in threads { thread.join() }
        threads = []
    }

    /// Joins the threads, closes the file, says how the render ended
    /// (removing the file when it failed). Control thread.
    private func conclude(_ shared: Shared) -> DriverStopReason {
        if let ended { return ended }
        joinThreads()
        let written = writer?.framesWritten ?? 0
        var closeError: (any Error)?
        do {
            try writer?.close()
        } catch {
            closeError = error
        }
        writer = nil
        var reason = DriverStopReason.endOfInput
        if let error = shared.writeError ?? closeError {
            failure = error
            reason = .ioError(.playback, code: -EIO)
            try? FileManager.default.removeItem(atPath: options.outputPath)
        }
        report = Report(outputFrames: written, engineRate: options.engineRate, blocks: shared.blocks,
                        wallSeconds: Double(monotonicNanoseconds() - startNanoseconds) / 1e9,
                        renderSeconds: Double(shared.renderNanos) / 1e9, renderThreadName: shared.threadName)
        ended = reason
        return reason
    }

    // MARK: What the two threads share

    private final class Shared: @unchecked Sendable {
        let ring: SampleRing
        let renderDone = Atomic<Bool>(false)
        let writerDone = Atomic<Bool>(false)
        let abort = Atomic<Bool>(false)
        let framesWritten = Atomic<Int>(0)
        var writeError: Error?       // written by the writer before writerDone
        var blocks = 0               // written by the render thread before renderDone
        var renderNanos: UInt64 = 0
        /// The render thread's name, copied there without allocating; read after it ends.
        let threadNameBytes = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 32)
        var threadName: String { String(cString: threadNameBytes.baseAddress!) }
        init(capacity: Int) {
            ring = SampleRing(capacity: capacity)
            threadNameBytes.initialize(repeating: 0)
        }
        deinit { threadNameBytes.deallocate() }
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
    private static func renderLoop(engine: RenderEngine, shared: Shared, buffers: Buffers, latency: Int,
                                   songFrames: Int, tailLimit: Int, silenceRun: Int) {
        // The thread's name goes into the report (it proves the naming).
        RealtimeThread.copyCurrentName(into: shared.threadNameBytes)
        let planar = buffers.planar, interleaved = buffers.interleaved
        let channels = planar.channelCount, block = planar.capacity
        let silence: Float = 3.2e-5   // −90 dBFS
        var wait = ThreadWait()
        var toSkip = latency
        var written = 0          // output frames pushed so far
        var lastLoud = -1        // output frame index of the last frame above −90 dBFS
        var finished = false
        while !finished && !shared.abort.load(ordering: .relaxed) {
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
            Interleaving.interleave(planar, offset: skip, channels: channels, frames: keep, into: interleaved)
            var done = 0
            while done < keep * channels && !shared.abort.load(ordering: .relaxed) {
                let n = shared.ring.write(interleaved + done, count: keep * channels - done)
                if n == 0 { wait.pause() } else { wait.reset() }
                done += n
            }
            written += keep
        }
        shared.renderDone.store(true, ordering: .releasing)
    }
}
