import AudioCore
import Foundation
import Synchronization

/// Runs a render graph over an audio file as fast as the machine allows.
///
/// Three threads, as in a live session: a reader decodes (and resamples to the
/// engine rate) into a ring; the `audio-render` thread renders fixed blocks
/// with the same `RenderEngine` the ALSA driver uses; the calling thread writes
/// what comes out. The render thread touches no file and allocates nothing.
///
/// The output is aligned with the input: the graph's latency (the limiter's
/// look-ahead) is dropped from the start, and after the input ends the graph
/// keeps rendering silence until its output has been quiet for 50 ms, so a
/// reverb tail is kept, not cut (at most `maximumTailSeconds`).
public final class FileRenderDriver {
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
        /// Whether `Options.isCancelled` ended the input early.
        public var wasCancelled = false

        public var audioSeconds: Double { Double(outputFrames) / Double(engineRate) }
        public var realtimeFactor: Double { audioSeconds / max(wallSeconds, 1e-9) }
        /// The worst block's render time as a fraction of its real-time budget.
        public var worstBlockLoad: Double { worstBlockSeconds / (Double(blockSize) / Double(engineRate)) }
    }

    /// The offline default block: 1024 frames (21 ms at 48 kHz).
    public static let defaultBlockSize = 1024

    public let options: Options
    public let engine = RenderEngine()

    public init(options: Options) {
        self.options = options
    }

    /// Opens the files, builds the graph with `makeGraph(inputChannels)` (which
    /// returns the compiled plan and its latency in frames), runs to the end.
    /// On failure the partial output file is removed and the error thrown.
    public func run(makePlan: (_ inputChannels: Int, _ spec: ProcessSpec) throws -> (plan: RenderPlan, latencyFrames: Int)) throws -> Report {
        let reader = try SoundFileReader(path: options.inputPath)
        let spec = ProcessSpec(sampleRate: Double(options.engineRate), maximumBlockSize: options.blockSize)
        let (plan, latency) = try makePlan(reader.channelCount, spec)
        let outChannels = plan.outputChannelCount
        if FileManager.default.fileExists(atPath: options.outputPath),
           (try? FileManager.default.attributesOfItem(atPath: options.outputPath)[.type] as? FileAttributeType) == .typeDirectory {
            throw AudioFileError.cannotOpen(path: options.outputPath, reason: "is a directory")
        }
        let writer = try SoundFileWriter(path: options.outputPath, sampleRate: options.engineRate,
                                         channelCount: outChannels, sampleFormat: options.sampleFormat)
        let resampler = reader.sampleRate == options.engineRate ? nil :
            try Resampler(fromRate: reader.sampleRate, toRate: options.engineRate, channelCount: reader.channelCount)
        engine.install(plan)
        do {
            let report = try stream(reader: reader, resampler: resampler, writer: writer, latency: latency)
            try writer.close()
            return report
        } catch {
            try? writer.close()
            try? FileManager.default.removeItem(atPath: options.outputPath)
            throw error
        }
    }

    // MARK: The three threads

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

    private final class Shared: @unchecked Sendable {
        let inRing: SampleRing
        let outRing: SampleRing
        let readerDone = Atomic<Bool>(false)
        /// The reader stopped early because `Options.isCancelled` said so.
        let cancelled = Atomic<Bool>(false)
        let renderDone = Atomic<Bool>(false)
        let abort = Atomic<Bool>(false)
        /// Frames the reader delivered at the engine rate.
        let framesDelivered = Atomic<Int>(0)
        var readerError: Error?      // written by the reader before readerDone
        var blocks = 0               // written by the render thread before renderDone
        var renderNanos: UInt64 = 0
        var worstBlockNanos: UInt64 = 0
        var framesRendered = 0
        var threadName = ""
        init(inCapacity: Int, outCapacity: Int) {
            inRing = SampleRing(capacity: inCapacity)
            outRing = SampleRing(capacity: outCapacity)
        }
    }

    private func stream(reader: SoundFileReader, resampler: Resampler?, writer: SoundFileWriter, latency: Int) throws -> Report {
        let inCh = reader.channelCount
        let outCh = writer.channelCount
        let block = options.blockSize
        let rate = options.engineRate
        let shared = Shared(inCapacity: max(block, 16384) * inCh * 4, outCapacity: max(block, 16384) * outCh * 4)
        let start = monotonicNanoseconds()

        let isCancelled = options.isCancelled
        let readerThread = RealtimeThread(name: "file-reader") {
            Self.readLoop(reader: reader, resampler: resampler, shared: shared, isCancelled: isCancelled)
        }
        let tailLimit = Int(options.maximumTailSeconds * Double(rate))
        // Everything the render thread touches is allocated here, before it starts.
        let buffers = RenderBuffers(inputChannels: inCh, outputChannels: outCh, block: block)
        let renderThread = RealtimeThread(name: RealtimeThread.renderThreadName) { [engine] in
            Self.renderLoop(engine: engine, shared: shared, buffers: buffers,
                            latency: latency, tailLimit: tailLimit, silenceRun: rate / 20)
        }

        // Writer: this thread. It also releases any plan the audio thread retires.
        let writeError = RingDrain.drain(shared.outRing, channels: outCh, into: writer, engine: engine,
                                         renderDone: { shared.renderDone.load(ordering: .acquiring) },
                                         abort: { shared.abort.store(true, ordering: .relaxed) })
        readerThread.join()
        renderThread.join()
        engine.releaseAll()
        if let writeError { throw writeError }
        if let readerError = shared.readerError { throw readerError }
        let wall = Double(monotonicNanoseconds() - start) / 1e9
        return Report(inputFrames: Int64(shared.framesDelivered.load(ordering: .relaxed)),
                      outputFrames: writer.framesWritten, engineRate: rate, inputRate: reader.sampleRate,
                      blocks: shared.blocks, wallSeconds: wall,
                      renderSeconds: Double(shared.renderNanos) / 1e9,
                      worstBlockSeconds: Double(shared.worstBlockNanos) / 1e9,
                      blockSize: block, renderThreadName: shared.threadName,
                      wasCancelled: shared.cancelled.load(ordering: .relaxed))
    }

    /// Reader thread: decode, resample, push into the input ring.
    private static func readLoop(reader: SoundFileReader, resampler: Resampler?, shared: Shared, isCancelled: (@Sendable () -> Bool)?) {
        let ch = reader.channelCount
        let chunkFrames = 4096
        let chunk = UnsafeMutablePointer<Float>.allocate(capacity: chunkFrames * ch)
        defer { chunk.deallocate() }
        var total: Int64 = 0
        func push(_ p: UnsafePointer<Float>, _ frames: Int) {
            var done = 0
            while done < frames * ch {
                if shared.abort.load(ordering: .relaxed) { return }
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
            while !shared.abort.load(ordering: .relaxed) {
                if isCancelled?() == true {
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
            if total < reader.frameCount && !shared.abort.load(ordering: .relaxed) && !shared.cancelled.load(ordering: .relaxed) {
                throw AudioFileError.truncated(path: reader.path, declaredFrames: reader.frameCount, presentFrames: total)
            }
        } catch {
            shared.readerError = error
            shared.abort.store(true, ordering: .relaxed)
        }
        shared.readerDone.store(true, ordering: .releasing)
    }

    /// The audio-render thread: pull a block, render it, push it on.
    /// - Realtime: safe between the ring waits: everything is allocated before the loop.
    private static func renderLoop(engine: RenderEngine, shared: Shared, buffers: RenderBuffers,
                                   latency: Int, tailLimit: Int, silenceRun: Int) {
        // The thread's name goes into the report (it proves the naming); read
        // once here, before the first block.
        shared.threadName = RealtimeThread.currentName
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
        while !shared.abort.load(ordering: .relaxed) {
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
            Interleaving.interleave(outBuffer, offset: skip, channels: outChannels, frames: keep, into: interleavedOut)
            var done = 0
            while done < keep * outChannels && !shared.abort.load(ordering: .relaxed) {
                let n = shared.outRing.write(interleavedOut + done, count: keep * outChannels - done)
                if n == 0 { wait.pause() } else { wait.reset() }
                done += n
            }
            shared.framesRendered += keep
        }
        shared.renderDone.store(true, ordering: .releasing)
    }
}
