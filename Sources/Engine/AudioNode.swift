import Synchronization

/// The base of every node in a render graph.
///
/// The contract follows JUCE's `dsp::ProcessorBase` and fundsp's `AudioNode`:
/// - `prepare` (control thread, may allocate) sizes the node for a `ProcessSpec`
///   and its input channel counts, and decides its output channel count;
/// - `reset` clears state without allocating;
/// - `render` runs on the audio thread and must not allocate, lock, block or log.
///
/// Subclasses override `outputChannelCount(inputChannelCounts:)`,
/// `allocate(spec:inputChannelCounts:outputChannelCount:)`, `reset()` and
/// `render(inputs:output:)`. Rendering dispatches through the class vtable: no
/// existential boxing, no generic metadata, nothing that takes a lock.
///
/// A node keeps its format once prepared. It may appear in several successive
/// plans (that is how a graph is swapped without losing a reverb tail), but it
/// can only be re-prepared for a different format while no running plan holds it;
/// `AudioGraph.compile` enforces that by refusing to re-prepare a live node.
open class AudioNode {
    /// A short name for diagnostics and the TUI.
    public let name: String

    // MARK: Shared (atomics)
    /// Blocks whose output held a fault (`AudioBlock.holdsFault`) and were
    /// silenced, this node reset: `RenderPlan` counts them on the audio thread.
    let silencedBlocks = Atomic<Int>(0)

    // MARK: Control thread only
    /// The format of the last successful `prepare`, nil before.
    public private(set) var preparedFormat: NodeFormat?
    /// How many installed plans hold this node. Maintained by `RenderPlan`.
    let planReferences = PlanReferenceCount()

    public init(name: String) {
        self.name = name
    }

    /// How many input buses the node takes (0 for a source). Control thread.
    open var inputBusCount: Int { 1 }

    /// The node's output channel count for these input channel counts. Control thread.
    /// The default keeps the channel count of the first input (a source must override).
    open func outputChannelCount(inputChannelCounts: [Int]) -> Int {
        inputChannelCounts.first ?? 1
    }

    /// Allocates what the node needs for `spec`. Called by `prepare`, followed by `reset`.
    /// - Realtime: unsafe (allocates). Control thread only.
    open func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {}

    /// Sizes the node for `format` if it is not already prepared for it.
    /// - Realtime: unsafe (allocates). Control thread only.
    /// - Throws: `GraphError.liveNodeFormatChange` when the node is held by a
    ///   running plan and the format differs.
    public final func prepare(_ format: NodeFormat) throws {
        if preparedFormat == format { return }
        if planReferences.value > 0 { throw GraphError.liveNodeFormatChange(node: name) }
        allocate(spec: format.spec, inputChannelCounts: format.inputChannelCounts, outputChannelCount: format.outputChannelCount)
        preparedFormat = format
        reset()
    }

    /// Blocks of this node's output silenced for a fault since it was made.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var silencedBlockCount: Int { silencedBlocks.load(ordering: .relaxed) }

    // MARK: Audio thread

    /// Clears internal state (delay lines, envelopes) and snaps smoothed
    /// parameters to their targets. `RenderPlan.reset` (on the audio thread)
    /// and `prepare` (on the control thread) call it.
    /// - Thread: audio, control
    /// - Realtime: safe
    open func reset() {}

    /// Renders `output.frameCount` frames. `inputs[i]` is input bus i, already
    /// rendered, with the same frame count. The output block is this node's own
    /// buffer; it is never one of the inputs.
    /// - Thread: audio
    /// - Realtime: safe. Overrides must not allocate, lock, block or log.
    open func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.clear()
    }
}

/// Everything a node's preparation depends on.
public struct NodeFormat: Equatable, Sendable {
    public var spec: ProcessSpec
    public var inputChannelCounts: [Int]
    public var outputChannelCount: Int

    public init(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        self.spec = spec
        self.inputChannelCounts = inputChannelCounts
        self.outputChannelCount = outputChannelCount
    }
}

/// Counts the installed plans that hold a node, so that a live node is never
/// re-prepared under the audio thread's feet. Only the control thread changes it.
final class PlanReferenceCount {
    var value = 0
}
