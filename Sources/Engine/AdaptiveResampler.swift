/// Converts planar audio between two clocks that nominally run at the same
/// rate, by a ratio that may change every block: the resampler between the
/// render engine (on the capture device's clock) and the playback device
/// when the two are not one linked card. See `FillController` for what
/// steers the ratio and docs/device-events.md ("Two clocks") for why.
///
/// The input is pushed a block at a time into a FIFO; output frames are read
/// from it at a fractional position that advances by `step` input frames per
/// output frame (1 + the drift correction, within a few thousand ppm of 1).
/// Each output frame is a 4-point, 3rd-order Hermite (Catmull-Rom)
/// interpolation of the input around its position. At ratios this close to
/// 1 the interpolation error is a slowly moving fractional delay and a
/// gentle treble loss at its worst phase (half a frame): −0.02 dB at 4 kHz,
/// −0.5 dB at 10 kHz (the kernel [−1, 9, 9, −1]/16), less than a voice through
/// a PA would notice, at four multiply-adds a sample. libsamplerate's
/// variable ratio would also do; its sinc converters cost tens of times more
/// and consume input in amounts of their own choosing, which would need a
/// second FIFO in front of it.
///
/// The resampler holds `pendingFrames` of input not yet passed (about two:
/// the interpolator's look-ahead); they are part of the path's latency and
/// the driver counts them in the fill it steers.
///
/// All storage is allocated in `init`; `push`, `produce` and `reset` never
/// allocate, lock or call the system.
public final class AdaptiveResampler: @unchecked Sendable {
    public let channelCount: Int
    /// Input frames the FIFO holds at most.
    public let capacity: Int
    /// `capacity` frames per channel, channels back to back.
    private let storage: UnsafeMutablePointer<Float>
    /// Input frames held, including the one frame of history before `position`.
    private var count = 0
    /// Where the next output frame is read, in input frames from the FIFO's start; ≥ 1.
    private var position = 1.0
    /// Input frames dropped because the FIFO was full (the playback side took
    /// nothing for longer than the FIFO holds), since `init`.
    public private(set) var overflowFrames = 0

    /// - Parameters:
    ///   - channelCount: channels of the audio passed through.
    ///   - capacity: input frames held at most; at least a few blocks.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(channelCount: Int, capacity: Int) {
        self.channelCount = max(1, channelCount)
        self.capacity = max(8, capacity)
        storage = .allocate(capacity: self.channelCount * self.capacity)
        storage.initialize(repeating: 0, count: self.channelCount * self.capacity)
        reset()
    }

    deinit { storage.deallocate() }

    // MARK: Audio thread

    /// Empties the FIFO: one frame of silence as history, the next output at
    /// its end. What is produced next starts with the next pushed frame.
    /// - Thread: audio (or control before the render thread starts)
    /// - Realtime: safe
    public func reset() {
        for c in 0..<channelCount { storage[c * capacity] = 0 }
        count = 1
        position = 1
    }

    /// Input frames held and not yet passed to the output (fractional).
    /// - Thread: audio
    /// - Realtime: safe
    public var pendingFrames: Double { Double(count) - position }

    /// Appends `frames` frames of `block` (its first `channelCount` channels;
    /// missing channels are silence). If the FIFO is full, the oldest input is
    /// dropped to make room and counted in `overflowFrames`.
    /// - Thread: audio
    /// - Realtime: safe
    public func push(_ block: AudioBlock, frames: Int) {
        let frames = min(frames, capacity - 4)
        if count + frames > capacity { discardOldest(count + frames - capacity) }
        for c in 0..<channelCount {
            let destination = storage + c * capacity + count
            if c < block.channelCount {
                destination.update(from: block[c], count: frames)
            } else {
                destination.update(repeating: 0, count: frames)
            }
        }
        count += frames
    }

    /// Writes up to `maximumFrames` output frames into `output` (from frame
    /// 0), reading the input `step` frames apart, and drops the input no
    /// longer needed. Stops when the interpolator would need input not yet
    /// pushed.
    /// - Parameter step: input frames per output frame: above 1 consumes the
    ///   input faster (the source clock is the faster one), below 1 slower.
    /// - Returns: frames written.
    /// - Thread: audio
    /// - Realtime: safe
    public func produce(into output: AudioBlock, maximumFrames: Int, step: Double) -> Int {
        let limit = min(maximumFrames, output.frameCount)
        var produced = 0
        var p = position
        while produced < limit {
            let i = Int(p)
            if i + 2 >= count { break }
            let t = Float(p - Double(i))
            for c in 0..<min(channelCount, output.channelCount) {
                let x = storage + c * capacity + i
                let xm1 = x[-1], x0 = x[0], x1 = x[1], x2 = x[2]
                // Catmull-Rom: the cubic through x0 and x1 with slopes (x1 − x−1)/2 and (x2 − x0)/2.
                let a = 0.5 * (x1 - xm1)
                let b = xm1 - 2.5 * x0 + 2 * x1 - 0.5 * x2
                let d = 0.5 * (x2 - xm1) + 1.5 * (x0 - x1)
                output[c][produced] = ((d * t + b) * t + a) * t + x0
            }
            if output.channelCount > channelCount {
                for c in channelCount..<output.channelCount { output[c][produced] = output[channelCount - 1][produced] }
            }
            p += step
            produced += 1
        }
        position = p
        // Keep one frame of history before the next read position.
        let drop = Int(position) - 1
        if drop > 0 { discardOldest(drop) }
        return produced
    }

    /// Drops the `frames` oldest input frames (all but what is left).
    /// - Thread: audio
    /// - Realtime: safe
    private func discardOldest(_ frames: Int) {
        let frames = min(frames, count)
        guard frames > 0 else { return }
        let kept = count - frames
        for c in 0..<channelCount {
            let base = storage + c * capacity
            // Moving down: a forward copy never overwrites what it has yet to read.
            for i in 0..<kept { base[i] = base[i + frames] }
        }
        count = kept
        let overflow = max(0, frames - Int(position) + 1)
        overflowFrames += overflow
        position = max(1, position - Double(frames))
        if count < 1 {
            reset()
        }
    }
}
