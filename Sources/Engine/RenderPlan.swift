import Synchronization

/// A compiled graph: the nodes in the order they run and the buffers between
/// them, all allocated here, on the control thread. The audio thread only
/// walks it. A plan is immutable once built; a new graph means a new plan,
/// handed to the audio thread by `RenderEngine` and freed after it comes back.
public final class RenderPlan: @unchecked Sendable {
    struct StepLayout {
        var node: AudioNode
        /// For each input bus, the node index (in graph numbering) feeding it.
        var inputSources: [Int?]
        var outputChannelCount: Int
    }

    /// One node's work: its inputs and its output buffer, ready to render.
    @usableFromInline struct Step {
        @usableFromInline let node: Unmanaged<AudioNode>
        /// `inputCount` blocks; their frame counts are rewritten every render.
        @usableFromInline let inputs: UnsafeMutablePointer<AudioBlock>
        @usableFromInline let inputCount: Int
        @usableFromInline let output: UnsafePointer<UnsafeMutablePointer<Float>>
        @usableFromInline let outputChannelCount: Int
    }

    public let spec: ProcessSpec
    /// The nodes, in render order; holding them keeps them alive while the plan lives.
    public let nodes: [AudioNode]
    @usableFromInline let steps: UnsafeMutablePointer<Step>
    @usableFromInline let stepCount: Int
    @usableFromInline let inputStep: Int?
    @usableFromInline let outputStep: Int
    private let buffers: [AudioBuffer]
    private let silence: AudioBuffer

    /// Channels of the graph's output node.
    public var outputChannelCount: Int { steps[outputStep].outputChannelCount }

    init(spec: ProcessSpec, nodeOrder: [Int], steps layouts: [StepLayout], inputStep: Int?, outputStep: Int) {
        self.spec = spec
        self.inputStep = inputStep
        self.outputStep = outputStep
        nodes = layouts.map(\.node)
        let maxChannels = max(1, layouts.map(\.outputChannelCount).max() ?? 1)
        silence = AudioBuffer(channelCount: maxChannels, capacity: spec.maximumBlockSize)
        buffers = layouts.map { AudioBuffer(channelCount: $0.outputChannelCount, capacity: spec.maximumBlockSize) }
        var stepOfNode: [Int: Int] = [:]
        for (s, n) in nodeOrder.enumerated() { stepOfNode[n] = s }

        stepCount = layouts.count
        self.steps = .allocate(capacity: max(1, layouts.count))
        for (s, layout) in layouts.enumerated() {
            let inputs = UnsafeMutablePointer<AudioBlock>.allocate(capacity: max(1, layout.inputSources.count))
            for (b, source) in layout.inputSources.enumerated() {
                if let source, let sourceStep = stepOfNode[source] {
                    let buffer = buffers[sourceStep]
                    inputs[b] = buffer.block(frames: spec.maximumBlockSize)
                } else {
                    inputs[b] = AudioBlock(channels: UnsafePointer(silence.pointers), channelCount: 1, frameCount: spec.maximumBlockSize)
                }
            }
            (self.steps + s).initialize(to: Step(
                node: Unmanaged.passUnretained(layout.node),
                inputs: inputs,
                inputCount: layout.inputSources.count,
                output: UnsafePointer(buffers[s].pointers),
                outputChannelCount: layout.outputChannelCount))
        }
        for node in nodes { node.planReferences.value += 1 }
    }

    deinit {
        for s in 0..<stepCount { steps[s].inputs.deallocate() }
        steps.deinitialize(count: stepCount)
        steps.deallocate()
        for node in nodes { node.planReferences.value -= 1 }
    }

    /// Renders one block of at most `spec.maximumBlockSize` frames: copies
    /// `input` into the graph's input node, runs every step, and copies the
    /// output node's buffer into `output` (adapting channel counts).
    ///
    /// A step whose output holds a fault (a NaN, an infinity or an absurd
    /// sample: `AudioBlock.holdsFault`) is a fault of that block only: its
    /// output is replaced by silence before any later step reads it, the node
    /// is reset (recursive filters, reverbs and envelopes would otherwise carry
    /// the fault on for good) and its `silencedBlockCount` rises. The input is
    /// checked the same way, so a bad sample from a file or a client never
    /// reaches a node.
    /// - Returns: how many steps were silenced in this block (0 almost always).
    /// - Thread: audio
    /// - Realtime: safe.
    @discardableResult
    public func render(input: AudioBlock?, output: AudioBlock) -> Int {
        var silenced = 0
        let frames = output.frameCount
        for s in 0..<stepCount {
            let step = steps[s]
            let out = AudioBlock(channels: step.output, channelCount: step.outputChannelCount, frameCount: frames)
            if s == inputStep {
                if let input {
                    out.copy(from: input)
                    // A shorter capture block: the missing frames are silence,
                    // not the previous block's samples left in this buffer.
                    if input.frameCount < frames {
                        let copied = max(0, input.frameCount)
                        for c in 0..<out.channelCount { (out[c] + copied).update(repeating: 0, count: frames - copied) }
                    }
                } else {
                    out.clear()
                }
                if out.holdsFault { silenced += silence(out, of: step) }
                continue
            }
            for b in 0..<step.inputCount {
                let old = step.inputs[b]
                step.inputs[b] = AudioBlock(channels: old.channels, channelCount: old.channelCount, frameCount: frames)
            }
            step.node._withUnsafeGuaranteedRef {
                $0.render(inputs: UnsafeBufferPointer(start: step.inputs, count: step.inputCount), output: out)
            }
            if out.holdsFault {
                silenced += silence(out, of: step)
                step.node._withUnsafeGuaranteedRef { $0.reset() }
            }
        }
        let last = steps[outputStep]
        output.copy(from: AudioBlock(channels: last.output, channelCount: last.outputChannelCount, frameCount: frames))
        return silenced
    }

    /// Replaces a faulty step output by silence and counts it on its node.
    /// - Returns: 1, the step silenced.
    /// - Thread: audio
    /// - Realtime: safe (clears a preallocated buffer, one atomic add)
    private func silence(_ out: AudioBlock, of step: Step) -> Int {
        out.clear()
        step.node._withUnsafeGuaranteedRef { $0.silencedBlocks.add(1, ordering: .relaxed) }
        return 1
    }

    /// Calls `reset()` on every node. Realtime: safe.
    public func reset() {
        for s in 0..<stepCount { steps[s].node._withUnsafeGuaranteedRef { $0.reset() } }
    }
}
