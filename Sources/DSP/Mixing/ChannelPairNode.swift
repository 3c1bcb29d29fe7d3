import Engine

/// Takes two channels of a multi-channel input as a stereo pair: a send bus
/// out of a source that renders several (the sampler's reverb and chorus
/// sends, channels 2–3 and 4–5). A channel the input does not have reads as
/// silence.
public final class ChannelPairNode: AudioNode {
    /// The input channels taken as left and right, 0-based.
    public let left: Int
    public let right: Int

    /// - Realtime: unsafe (allocates). Control thread only.
    public init(name: String = "pair", left: Int, right: Int) {
        precondition(left >= 0 && right >= 0, "a pair needs channels 0 and up")
        self.left = left
        self.right = right
        super.init(name: name)
    }

    /// Always stereo. Control thread.
    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    // MARK: Audio thread

    /// Copies the two channels of input bus 0 to the output.
    /// - Thread: audio
    /// - Realtime: safe. Copies between the caller's buffers.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else {
            for c in 0..<output.channelCount {
                let destination = output.channels[c]
                for n in 0..<frames { destination[n] = 0 }
            }
            return
        }
        for c in 0..<min(2, output.channelCount) {
            let source = c == 0 ? left : right
            let destination = output.channels[c]
            if source < input.channelCount {
                let from = input.channels[source]
                for n in 0..<frames { destination[n] = from[n] }
            } else {
                for n in 0..<frames { destination[n] = 0 }
            }
        }
    }
}
