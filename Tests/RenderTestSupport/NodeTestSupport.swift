import Engine

// Helpers shared by the node tests of several targets (Engine, DSP,
// FeedbackGuard): a block-by-block harness, seeded noise, a two-bus node and
// an impulse. The names are distinct from the test files' own private helpers.

/// Feeds planar input to a node in blocks of a chosen size and collects its output.
/// `init` allocates the node for the input channel counts and resets it.
public final class BlockRenderHarness {
    public let node: AudioNode
    public let inputs: [AudioBuffer]
    public let output: AudioBuffer
    public let maximumBlockSize: Int
    private let blocks: UnsafeMutablePointer<AudioBlock>

    public init(_ node: AudioNode, inputChannelCounts: [Int], sampleRate: Double = 48_000, maximumBlockSize: Int = 512) {
        self.node = node
        self.maximumBlockSize = maximumBlockSize
        let outputChannels = node.outputChannelCount(inputChannelCounts: inputChannelCounts)
        node.allocate(spec: ProcessSpec(sampleRate: sampleRate, maximumBlockSize: maximumBlockSize),
                      inputChannelCounts: inputChannelCounts, outputChannelCount: outputChannels)
        node.reset()
        inputs = inputChannelCounts.map { AudioBuffer(channelCount: $0, capacity: maximumBlockSize) }
        output = AudioBuffer(channelCount: outputChannels, capacity: maximumBlockSize)
        blocks = .allocate(capacity: max(1, inputs.count))
    }

    deinit { blocks.deallocate() }

    /// `signal[bus][channel][frame]`; every bus and channel the same length.
    /// Renders in blocks of `blockSize` frames (at most `maximumBlockSize`; the
    /// last one shorter), continuing from the node's current state.
    public func run(_ signal: [[[Float]]], blockSize: Int) -> [[Float]] {
        let frames = signal.first?.first?.count ?? 0
        var result = [[Float]](repeating: [], count: output.channelCount)
        var start = 0
        while start < frames {
            let n = min(blockSize, frames - start, maximumBlockSize)
            for (b, buffer) in inputs.enumerated() {
                for c in 0..<buffer.channelCount {
                    for i in 0..<n { buffer[c][i] = signal[b][c][start + i] }
                }
                blocks[b] = buffer.block(frames: n)
            }
            node.render(inputs: UnsafeBufferPointer(start: blocks, count: inputs.count), output: output.block(frames: n))
            for c in 0..<output.channelCount { result[c] += UnsafeBufferPointer(start: output[c], count: n) }
            start += n
        }
        return result
    }
}

/// A reproducible uniform generator in −1…1 (a 64-bit LCG; no global random state).
public struct SeededUniformNoise {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
    }
}

/// Sums two input buses (bus 0 and bus 1), channel by channel; a bus with
/// fewer channels repeats its last one.
public final class TwoBusSumNode: AudioNode {
    override public init(name: String) { super.init(name: name) }
    override public var inputBusCount: Int { 2 }
    override public func outputChannelCount(inputChannelCounts: [Int]) -> Int { inputChannelCounts.max() ?? 1 }
    override public func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let a = inputs[0], b = inputs[1]
        for c in 0..<output.channelCount {
            let x = a[min(c, a.channelCount - 1)], y = b[min(c, b.channelCount - 1)], d = output[c]
            for i in 0..<output.frameCount { d[i] = x[i] + y[i] }
        }
    }
}

/// `frames` samples of a unit impulse: 1, then zeros.
public func unitImpulse(frames: Int) -> [Float] {
    var x = [Float](repeating: 0, count: frames)
    x[0] = 1
    return x
}
