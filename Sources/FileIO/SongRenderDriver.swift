import AudioCore
import Foundation
import Synchronization

/// Renders a graph with no input (instruments played by a MIDI file) to an
/// audio file as fast as the machine allows: `busker render SONG.mid -o SONG.wav`.
///
/// Two threads, as in `FileRenderDriver`: "audio-render" renders blocks into
/// a ring and the calling thread writes them through libsndfile. The file
/// holds the song and its tail: it ends 50 ms after the last frame above
/// −90 dBFS (or the song's end, if that is later), capped by a tail limit.
/// The end is found frame by frame, so the file does not depend on the block
/// size. The graph's latency (the limiter's look-ahead) is removed from the
/// start, so the file's frame 0 is the song's frame 0.
public final class SongRenderDriver {
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
    public let engine = RenderEngine()

    public init(options: Options) {
        self.options = options
    }

    /// Renders `plan` for the song's `songFrames` and then its tail.
    /// - Parameters:
    ///   - latencyFrames: frames the plan delays its sources by; dropped from the start.
    ///   - songFrames: the song's length in output frames (at its tempo scale).
    ///   - isCancelled: asked on the calling thread between writes; true stops the render.
    ///   - progress: called on the calling thread with the frames written so far, about every 4096 frames.
    /// On failure or cancellation the partial output file is removed and the error
    /// (or `Cancelled`) thrown.
    public func run(plan: RenderPlan, latencyFrames: Int, songFrames: Int, isCancelled: () -> Bool = { false },
                    progress: (Int64) -> Void = { _ in }) throws -> Report {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: options.outputPath, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AudioFileError.cannotOpen(path: options.outputPath, reason: "is a directory")
        }
        let channels = plan.outputChannelCount
        let writer = try SoundFileWriter(path: options.outputPath, sampleRate: options.engineRate,
                                         channelCount: channels, sampleFormat: options.sampleFormat)
        engine.install(plan)
        do {
            let report = try stream(writer: writer, channels: channels, latency: latencyFrames,
                                    songFrames: max(0, songFrames), isCancelled: isCancelled, progress: progress)
            try writer.close()
            return report
        } catch {
            try? writer.close()
            try? FileManager.default.removeItem(atPath: options.outputPath)
            throw error
        }
    }

    private final class Shared: @unchecked Sendable {
        let ring: SampleRing
        let renderDone = Atomic<Bool>(false)
        let abort = Atomic<Bool>(false)
        var blocks = 0               // written by the render thread before renderDone
        var renderNanos: UInt64 = 0
        var threadName = ""
        init(capacity: Int) { ring = SampleRing(capacity: capacity) }
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

    private func stream(writer: SoundFileWriter, channels: Int, latency: Int,
                        songFrames: Int, isCancelled: () -> Bool, progress: (Int64) -> Void) throws -> Report {
        let block = options.blockSize
        let shared = Shared(capacity: max(block, 16384) * channels * 4)
        let buffers = Buffers(channels: channels, block: block)
        let tailLimit = Int(options.maximumTailSeconds * Double(options.engineRate))
        let silenceRun = options.engineRate / 20
        let start = monotonicNanoseconds()
        let renderThread = RealtimeThread(name: RealtimeThread.renderThreadName) { [engine] in
            Self.renderLoop(engine: engine, shared: shared, buffers: buffers, latency: latency,
                            songFrames: songFrames, tailLimit: tailLimit, silenceRun: silenceRun)
        }
        var cancelled = false
        let writeError = RingDrain.drain(shared.ring, channels: channels, into: writer, engine: engine,
                                         renderDone: { shared.renderDone.load(ordering: .acquiring) },
                                         abort: { shared.abort.store(true, ordering: .relaxed) }) { written in
            progress(written)
            if !cancelled && isCancelled() {
                cancelled = true
                shared.abort.store(true, ordering: .relaxed)
            }
        }
        renderThread.join()
        engine.releaseAll()
        if let writeError { throw writeError }
        if cancelled { throw Cancelled() }
        return Report(outputFrames: writer.framesWritten, engineRate: options.engineRate, blocks: shared.blocks,
                      wallSeconds: Double(monotonicNanoseconds() - start) / 1e9,
                      renderSeconds: Double(shared.renderNanos) / 1e9, renderThreadName: shared.threadName)
    }

    /// The audio-render thread.
    /// - Realtime: safe: everything is allocated before the loop; it only waits on the ring.
    private static func renderLoop(engine: RenderEngine, shared: Shared, buffers: Buffers, latency: Int,
                                   songFrames: Int, tailLimit: Int, silenceRun: Int) {
        shared.threadName = RealtimeThread.currentName
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
