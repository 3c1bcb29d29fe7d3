import AudioCore

// Helpers shared by the node tests (limiter, mixer, meter, EQ, reverb, graph,
// allocation counter). Internal, so every test file in the target sees them;
// the names are distinct from the test files' own private helpers.

/// Feeds planar input to a node in blocks of a chosen size and collects its output.
/// `init` allocates the node for the input channel counts and resets it.
final class BlockRenderHarness {
    let node: AudioNode
    let inputs: [AudioBuffer]
    let output: AudioBuffer
    let maximumBlockSize: Int
    private let blocks: UnsafeMutablePointer<AudioBlock>

    init(_ node: AudioNode, inputChannelCounts: [Int], sampleRate: Double = 48_000, maximumBlockSize: Int = 512) {
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
    func run(_ signal: [[[Float]]], blockSize: Int) -> [[Float]] {
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
struct SeededUniformNoise {
    var state: UInt64
    mutating func next() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
    }
}

/// Sums two input buses (bus 0 and bus 1), channel by channel; a bus with
/// fewer channels repeats its last one.
final class TwoBusSumNode: AudioNode {
    override var inputBusCount: Int { 2 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { inputChannelCounts.max() ?? 1 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let a = inputs[0], b = inputs[1]
        for c in 0..<output.channelCount {
            let x = a[min(c, a.channelCount - 1)], y = b[min(c, b.channelCount - 1)], d = output[c]
            for i in 0..<output.frameCount { d[i] = x[i] + y[i] }
        }
    }
}

/// `frames` samples of a unit impulse: 1, then zeros.
func unitImpulse(frames: Int) -> [Float] {
    var x = [Float](repeating: 0, count: frames)
    x[0] = 1
    return x
}

/// Renders mono `signal` through a fresh howl guard at 48 kHz in 64-frame
/// blocks and reads its status every `seconds` of signal (and at the end).
func howlGuardStatuses(_ signal: [Float], every seconds: Double) -> [HowlGuardStatus] {
    let node = HowlGuardNode()
    let harness = BlockRenderHarness(node, inputChannelCounts: [1], maximumBlockSize: 64)
    var statuses: [HowlGuardStatus] = []
    let chunk = Int(seconds * 48_000)
    var start = 0
    while start < signal.count {
        _ = harness.run([[Array(signal[start..<min(signal.count, start + chunk)])]], blockSize: 64)
        statuses.append(node.status())
        start += chunk
    }
    return statuses
}
