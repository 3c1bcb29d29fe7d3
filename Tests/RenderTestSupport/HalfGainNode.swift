import Engine

/// A gain of 0.5 on every channel (a mono input feeds every output channel):
/// a graph whose level the driver tests can state, built from no node that
/// is still being written elsewhere.
public final class HalfGainNode: AudioNode {
    public init() { super.init(name: "half-gain") }

    /// input → half gain → output, compiled for `spec`.
    public static func plan(inputChannels: Int, spec: ProcessSpec) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: inputChannels)
        let gain = graph.add(HalfGainNode())
        try graph.connect(graph.input, to: gain)
        graph.output = gain
        return try graph.compile(spec: spec)
    }

    // MARK: Audio thread

    /// - Thread: audio.
    /// - Realtime: yes.
    override public func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let input = inputs[0]
        for c in 0..<output.channelCount {
            let source = input[min(c, input.channelCount - 1)]
            let destination = output[c]
            for i in 0..<output.frameCount { destination[i] = source[i] * 0.5 }
        }
    }
}
