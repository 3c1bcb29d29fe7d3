import Engine

/// Takes some channels of a multi-channel input and sums them into one mono
/// channel: the input of a channel strip, which reads capture channel 1, or
/// channels 1 and 2 together (`--inputs 1+2`).
///
/// The channels are 0-based here (the command line counts from 1). A channel
/// the input does not have reads as silence; the live chain refuses such a
/// strip before it is built, so that only happens if a graph is compiled for
/// fewer input channels than it was built for.
///
/// The sum is a plain sum, not an average: two mics on one strip each keep
/// their level, as on a mixer's summing bus.
public final class ChannelPickNode: AudioNode {
    /// The input channels summed, 0-based, in the order given.
    public let channels: [Int]

    // MARK: Control thread only (set by `init`, read by the audio thread)
    /// `channels`, where the audio thread reads them without touching the array.
    private let picks: UnsafeMutablePointer<Int>
    private let pickCount: Int

    /// - Parameter channels: 0-based input channels, at least one.
    /// - Realtime: unsafe (allocates). Control thread only.
    public init(name: String = "pick", channels: [Int]) {
        precondition(!channels.isEmpty && channels.allSatisfy { $0 >= 0 }, "a pick needs channels 0 and up")
        self.channels = channels
        pickCount = channels.count
        picks = .allocate(capacity: channels.count)
        picks.initialize(from: channels, count: channels.count)
        super.init(name: name)
    }

    deinit {
        picks.deinitialize(count: pickCount)
        picks.deallocate()
    }

    /// Always mono. Control thread.
    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }

    // MARK: Audio thread

    /// Sums the picked channels of input bus 0 into the output's one channel.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on the caller's buffers; checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        let destination = output.channels[0]
        destination.update(repeating: 0, count: frames)
        guard let input = inputs.connectedBus0 else { return }
        for k in 0..<pickCount {
            let c = picks[k]
            guard c < input.channelCount else { continue }
            let source = input.channels[c]
            for n in 0..<frames { destination[n] += source[n] }
        }
    }
}
