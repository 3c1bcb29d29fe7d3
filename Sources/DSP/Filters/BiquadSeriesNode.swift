import Engine

/// Two `BiquadNode`s in series as one node, in one pass over the block: the
/// tone stage's bass and treble shelves. Its output is the same, sample for
/// sample, as the two nodes one after the other; it is only faster. A biquad
/// is a recursion, each output waiting on the one before, so one filter alone
/// keeps the processor waiting; with the two interleaved, the second's
/// recursion runs beside the first's.
///
/// The two nodes keep their parameters (`first.gainDB`, `second.frequency`, …),
/// which the controls set as for any biquad node; they are not in the graph
/// themselves, this node prepares and renders them. While either one's
/// parameters ramp, or with more than one channel, the block goes through the
/// two nodes' own passes one after the other (the same output, at the usual cost).
public final class BiquadSeriesNode: AudioNode {
    public let first: BiquadNode
    public let second: BiquadNode

    // MARK: Control thread only (set by `init`, read by the audio thread)
    /// The two nodes, reachable without reference counting (the `let`s above keep them alive).
    private let firstRef: Unmanaged<BiquadNode>
    private let secondRef: Unmanaged<BiquadNode>

    /// - Parameters: `first` filters the input, `second` what `first` gives.
    ///   Neither may be in a graph of its own.
    public init(name: String, first: BiquadNode, second: BiquadNode) {
        self.first = first
        self.second = second
        firstRef = .passUnretained(first)
        secondRef = .passUnretained(second)
        super.init(name: name)
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        first.allocate(spec: spec, inputChannelCounts: inputChannelCounts, outputChannelCount: outputChannelCount)
        second.allocate(spec: spec, inputChannelCounts: [outputChannelCount], outputChannelCount: outputChannelCount)
    }

    // MARK: Audio thread

    /// Resets both filters.
    /// - Thread: audio, control
    /// - Realtime: safe (the two nodes' `reset`)
    @_noLocks
    public override func reset() {
        let a = firstRef, b = secondRef
        a._withUnsafeGuaranteedRef { $0.reset() }
        b._withUnsafeGuaranteedRef { $0.reset() }
    }

    /// Filters input bus 0 through both filters into `output`.
    /// - Thread: audio
    /// - Realtime: safe. The two nodes' parameter reads and arithmetic on their
    ///   preallocated state; checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        guard let input = inputs.connectedBus0 else { output.clear(); return }  // unconnected: silence
        let a = firstRef, b = secondRef
        a._withUnsafeGuaranteedRef { $0.readTargets() }
        b._withUnsafeGuaranteedRef { $0.readTargets() }
        let frames = output.frameCount, outputChannels = output.channelCount
        if let (kernel, state) = a._withUnsafeGuaranteedRef({ $0.settledMono(outputChannels: outputChannels) }),
           let (nextKernel, nextState) = b._withUnsafeGuaranteedRef({ $0.settledMono(outputChannels: outputChannels) }) {
            kernel.process(UnsafePointer(input.channels[0]), then: nextKernel, into: output.channels[0],
                           count: frames, state: &state.pointee, nextState: &nextState.pointee)
            a._withUnsafeGuaranteedRef { $0.skipSettled(frames) }
            b._withUnsafeGuaranteedRef { $0.skipSettled(frames) }
        } else {
            a._withUnsafeGuaranteedRef { $0.filter(input, into: output) }
            b._withUnsafeGuaranteedRef { $0.filter(output, into: output) }
        }
    }
}
