import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The offline driver with an acoustic loop: what the chain plays comes back
/// into its input through a `FeedbackPath`, so howling can be made on
/// purpose, repeatably, as fast as the machine runs.
///
/// Per block of `blockSize` frames: the mic signal is the source plus
/// `10^(gainDB/20)` times the path's impulse response convolved with the
/// output `delayFrames` ago (the mean of the output channels: one speaker,
/// one mic), then the plan renders that block. The delay must be at least a
/// block, so every sample the mic hears was played before.
///
/// - Realtime: not real-time: runs the plan on the caller's thread, offline.
public final class FeedbackSimulator {
    public let plan: RenderPlan
    public let path: FeedbackPath
    public let blockSize: Int

    /// What a run produced.
    public struct Run: Sendable {
        /// The output, mean of its channels.
        public var output: [Float]
        /// What the mic heard (source plus feedback).
        public var mic: [Float]
    }

    public init(plan: RenderPlan, path: FeedbackPath, blockSize: Int = 64) {
        precondition(blockSize >= 1 && blockSize <= plan.spec.maximumBlockSize, "block size beyond the plan's maximum")
        precondition(path.delayFrames >= blockSize, "the path's delay must be at least one block")
        self.plan = plan
        self.path = path
        self.blockSize = blockSize
    }

    /// Renders `source` (mono) through the loop. `loopGainDB(frame)` is read
    /// at every block's first frame (nil: the loop is open, no feedback);
    /// `afterBlock(framesDone)` runs after each block (for reading meters).
    public func run(source: [Float], loopGainDB: (Int) -> Float?, afterBlock: ((Int) -> Void)? = nil) -> Run {
        let frames = source.count
        let taps = path.impulseResponse.count
        let delay = path.delayFrames
        // The output history with `taps + delay` zeros in front, so the convolution never checks bounds.
        let lead = taps + delay
        var history = [Float](repeating: 0, count: lead + frames)
        var mic = [Float](repeating: 0, count: frames)
        // The response reversed: the convolution becomes a dot product over contiguous memory.
        let reversed = Array(path.impulseResponse.reversed())
        let input = AudioBuffer(channelCount: 1, capacity: blockSize)
        let output = AudioBuffer(channelCount: max(1, plan.outputChannelCount), capacity: blockSize)
        var start = 0
        while start < frames {
            let n = min(blockSize, frames - start)
            let gainDB = loopGainDB(start)
            let g: Float = gainDB.map { powf(10, $0 / 20) } ?? 0
            history.withUnsafeBufferPointer { h in
                reversed.withUnsafeBufferPointer { r in
                    for i in 0..<n {
                        let t = start + i
                        var feedback: Float = 0
                        if g != 0 {
                            // y[t − delay − k] for k = taps−1 … 0, i.e. history[lead + t − delay − taps + 1 …].
                            feedback = FeedbackSimulator.dot(r.baseAddress!, h.baseAddress! + (lead + t - delay - taps + 1), count: taps)
                        }
                        let m = source[t] + g * feedback
                        mic[t] = m
                        input[0][i] = m
                    }
                }
            }
            plan.render(input: input.block(frames: n), output: output.block(frames: n))
            let channels = output.channelCount
            let scale = 1 / Float(channels)
            for i in 0..<n {
                var sum: Float = 0
                for c in 0..<channels { sum += output[c][i] }
                history[lead + start + i] = sum * scale
            }
            start += n
            afterBlock?(start)
        }
        return Run(output: Array(history[lead...]), mic: mic)
    }

    /// Σ a[i]·b[i] in eight lanes.
    @inline(__always)
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var lanes = SIMD8<Float>(repeating: 0)
        var i = 0
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        while i + 8 <= count {
            let x = ra.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            let y = rb.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            lanes += x * y
            i += 8
        }
        var sum = lanes.sum()
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
    }
}
