import DSP
import Engine

/// Outputs of their own for each mic strip and each stage part, for a
/// mixing desk (`--direct-outs` on JACK): a mono port per mic strip
/// (`strip1`, …) and a stereo pair per part (`keys_L`, `keys_R`, …) beside
/// the main `out_L`/`out_R`.
///
/// What a desk's direct out carries: the channel as processed, before
/// Busker's fader, pan and limiter (the desk mixes it with its own), after
/// the mute: a strip muted, or the mic switched off, is silent here too (a
/// mic off is off everywhere), and a part muted likewise. No limiter: the
/// levels are the strip's own, up to the desk's headroom. Each is delayed by
/// the bus's latency (the limiter's look-ahead and true peak) so that it
/// lines up with the main outputs frame for frame, and the latency JACK
/// publishes for every port holds for these too.
///
///     strip k's last node → gate k (mute) → delay ─┐
///     part i's meter → gate (mute) → delay ─────────┤→ merge → output
///     the main output (2 channels) ─────────────────┘   (bus 0 first)
public final class DirectOuts {
    /// The ports, one per channel after the main two, in the order the merge lays them.
    public let names: [String]
    /// One mono gate per strip and one stereo gate per part: unity, muted with the strip or part.
    public let stripGates: [MixerNode]
    public let partGates: [MixerNode]

    /// The port names for `stripCount` mic strips and the parts named `parts`.
    public static func names(stripCount: Int, parts: [String]) -> [String] {
        (1...max(1, stripCount)).map { "strip\($0)" } + parts.flatMap { ["\($0)_L", "\($0)_R"] }
    }

    /// - Realtime: unsafe (allocates). Control thread.
    public init(stripCount: Int, parts: [String]) {
        names = Self.names(stripCount: stripCount, parts: parts)
        stripGates = (1...max(1, stripCount)).map { MixerNode(name: "strip\($0) direct out", inputCount: 1, outputChannelCount: 1) }
        partGates = parts.map { MixerNode(name: "\($0) direct out", inputCount: 1, outputChannelCount: 2) }
    }

    /// Adds the gates, their delays and the merge after `mainOutput`.
    /// - Parameter latency: the bus's latency for a format (what the main output is late by).
    /// - Returns: the merge: the graph's new output, 2 + `names.count` channels.
    /// - Throws: `GraphError` (a wiring mistake).
    func build(in graph: AudioGraph, mainOutput: AudioGraph.NodeID, stripOutputs: [AudioGraph.NodeID],
               partOutputs: [AudioGraph.NodeID], latency: @escaping (ProcessSpec) -> Int) throws -> AudioGraph.NodeID {
        precondition(stripOutputs.count == stripGates.count && partOutputs.count == partGates.count)
        let merge = graph.add(ChannelMergeNode(name: "direct outs", busCount: 1 + stripGates.count + partGates.count))
        try graph.connect(mainOutput, to: merge, bus: 0)
        for (bus, (source, gate)) in (Array(zip(stripOutputs, stripGates)) + Array(zip(partOutputs, partGates))).enumerated() {
            let gateID = graph.add(gate)
            try graph.connect(source, to: gateID)
            let delay = graph.add(FixedDelayNode(name: "\(gate.name) delay", delayFrames: latency))
            try graph.connect(gateID, to: delay)
            try graph.connect(delay, to: merge, bus: 1 + bus)
        }
        return merge
    }

    /// Mutes each strip's and part's output as its strip is.
    /// - Thread: control
    func apply(stripMutes: [Bool], partMutes: [Bool]) {
        for (gate, muted) in zip(stripGates, stripMutes) { gate.inputs[0].isMuted = muted }
        for (gate, muted) in zip(partGates, partMutes) { gate.inputs[0].isMuted = muted }
    }
}
