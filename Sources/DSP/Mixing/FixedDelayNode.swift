import Engine

/// Delays every channel of its input by a whole number of frames: what lines
/// a signal taken early in a chain up with the chain's output (a take's
/// stems with its mix, which the limiter's look-ahead and true peak delay).
///
/// The delay depends on the format (a latency in milliseconds is a number of
/// frames only at a rate), so it is asked of `delayFrames` when the node is
/// prepared, on the control thread. Each channel keeps the last `delay`
/// input samples in a circular line allocated then; 0 passes the input
/// through unchanged.
public final class FixedDelayNode: AudioNode {
    /// The delay for a format, asked at each prepare.
    private let delayFrames: (ProcessSpec) -> Int

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// The delay in frames for the prepared format.
    public private(set) var delay = 0
    /// `channelCount × delay` samples: channel c's line at `c × delay`.
    private var lines: UnsafeMutablePointer<Float>?
    private var channelCount = 0

    // MARK: Audio thread only
    /// The next sample of every line to read and overwrite.
    private var position = 0

    /// - Parameter delayFrames: the delay for a format, ≥ 0; asked on the control thread.
    public init(name: String = "delay", delayFrames: @escaping (ProcessSpec) -> Int) {
        self.delayFrames = delayFrames
        super.init(name: name)
    }

    deinit { lines?.deallocate() }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        lines?.deallocate()
        lines = nil
        delay = max(0, delayFrames(spec))
        channelCount = max(1, outputChannelCount)
        if delay > 0 {
            lines = .allocate(capacity: channelCount * delay)
            lines!.initialize(repeating: 0, count: channelCount * delay)
        }
    }

    // MARK: Audio thread

    /// Silence in every line.
    /// - Thread: audio, control
    /// - Realtime: safe
    @_noLocks
    public override func reset() {
        position = 0
        if let lines {
            for i in 0..<(channelCount * delay) { lines[i] = 0 }
        }
    }

    /// Input bus 0, `delay` frames late.
    /// - Thread: audio
    /// - Realtime: safe (preallocated lines; checked by the compiler with `@_noLocks`)
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let lastInput = input.channelCount - 1
        guard let lines, delay > 0 else {
            for c in 0..<output.channelCount {
                let source = input.channels[min(c, lastInput)], destination = output.channels[c]
                for i in 0..<frames { destination[i] = source[i] }
            }
            return
        }
        let length = delay
        var end = position
        for c in 0..<min(output.channelCount, channelCount) {
            let source = input.channels[min(c, lastInput)], destination = output.channels[c]
            let line = lines + c * length
            var p = position
            for i in 0..<frames {
                let x = source[i]
                destination[i] = line[p]
                line[p] = x
                p += 1
                if p == length { p = 0 }
            }
            end = p
        }
        position = end
    }
}
