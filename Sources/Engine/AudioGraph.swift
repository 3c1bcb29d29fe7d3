/// A render graph as the control thread builds it: nodes and the connections
/// between their output and the input buses of others. It is only a
/// description; `compile(spec:)` turns it into a `RenderPlan`, the flat,
/// preallocated form the audio thread runs.
///
/// Every graph has one external input node (the driver's capture, or silence)
/// and one output node whose output the driver plays. Nodes that do not lead
/// to the output (a recording tap, a meter on a side branch) still run.
///
/// - Realtime: unsafe; control thread only.
public final class AudioGraph {
    public struct NodeID: Hashable, Sendable {
        public let index: Int
    }

    struct Connection: Equatable {
        var from: Int
        var to: Int
        var bus: Int
    }

    private(set) var nodes: [AudioNode] = []
    private(set) var connections: [Connection] = []
    /// The external input: its output is what the driver captured.
    public let input: NodeID
    public let inputChannelCount: Int
    public var output: NodeID?

    /// - Parameter inputChannelCount: channels the driver delivers (0 for none).
    public init(inputChannelCount: Int) {
        self.inputChannelCount = inputChannelCount
        nodes.append(GraphInputNode(channelCount: max(1, inputChannelCount)))
        input = NodeID(index: 0)
    }

    /// Adds a node and returns its id. A node object belongs to one graph at a time.
    @discardableResult
    public func add(_ node: AudioNode) -> NodeID {
        nodes.append(node)
        return NodeID(index: nodes.count - 1)
    }

    public func node(_ id: NodeID) -> AudioNode { nodes[id.index] }

    /// Feeds the output of `source` into input bus `bus` of `destination`.
    public func connect(_ source: NodeID, to destination: NodeID, bus: Int = 0) throws(GraphError) {
        guard nodes.indices.contains(source.index) else { throw .unknownNode(source.index) }
        guard nodes.indices.contains(destination.index) else { throw .unknownNode(destination.index) }
        let target = nodes[destination.index]
        guard bus >= 0 && bus < target.inputBusCount else {
            throw .noSuchBus(node: target.name, bus: bus, busCount: target.inputBusCount)
        }
        if connections.contains(where: { $0.to == destination.index && $0.bus == bus }) {
            throw .busAlreadyConnected(node: target.name, bus: bus)
        }
        connections.append(Connection(from: source.index, to: destination.index, bus: bus))
    }

    /// Connects `ids` one after another, each into bus 0 of the next, and returns the last.
    @discardableResult
    public func chain(_ ids: NodeID...) throws(GraphError) -> NodeID {
        for (a, b) in zip(ids, ids.dropFirst()) { try connect(a, to: b) }
        return ids.last!
    }

    /// Prepares every node for `spec` and lays out a plan: nodes in
    /// topological order, one preallocated output buffer each, the input
    /// blocks of every step pointing at those buffers.
    /// - Realtime: unsafe (allocates).
    public func compile(spec: ProcessSpec) throws(GraphError) -> RenderPlan {
        guard let output else { throw .noOutput }
        let order = try topologicalOrder()

        var outputChannels = [Int](repeating: 0, count: nodes.count)
        var inputsOf = [[Int?]](repeating: [], count: nodes.count)
        for (i, node) in nodes.enumerated() { inputsOf[i] = Array(repeating: nil, count: node.inputBusCount) }
        for c in connections { inputsOf[c.to][c.bus] = c.from }

        for i in order {
            let node = nodes[i]
            // An unconnected bus reads silence, as mono.
            let inputCounts = inputsOf[i].map { $0.map { outputChannels[$0] } ?? 1 }
            let channels = node.outputChannelCount(inputChannelCounts: inputCounts)
            outputChannels[i] = channels
            do {
                try node.prepare(NodeFormat(spec: spec, inputChannelCounts: inputCounts, outputChannelCount: channels))
            } catch let error as GraphError {
                throw error
            } catch {
                throw .liveNodeFormatChange(node: node.name)
            }
        }

        let steps = order.map { i in
            RenderPlan.StepLayout(node: nodes[i], inputSources: inputsOf[i], outputChannelCount: outputChannels[i])
        }
        guard let outputStep = order.firstIndex(of: output.index) else { throw .noOutput }
        let inputStep = order.firstIndex(of: input.index)
        return RenderPlan(spec: spec, nodeOrder: order, steps: steps, inputStep: inputStep, outputStep: outputStep)
    }

    /// Kahn's algorithm; ties keep insertion order so plans are deterministic.
    private func topologicalOrder() throws(GraphError) -> [Int] {
        var indegree = [Int](repeating: 0, count: nodes.count)
        var successors = [[Int]](repeating: [], count: nodes.count)
        for c in connections {
            indegree[c.to] += 1
            successors[c.from].append(c.to)
        }
        var ready = (0..<nodes.count).filter { indegree[$0] == 0 }
        var order: [Int] = []
        order.reserveCapacity(nodes.count)
        while !ready.isEmpty {
            let n = ready.removeFirst()
            order.append(n)
            for s in successors[n] {
                indegree[s] -= 1
                if indegree[s] == 0 { ready.append(s) }
            }
            ready.sort()
        }
        if order.count != nodes.count {
            let stuck = (0..<nodes.count).first { indegree[$0] > 0 } ?? 0
            throw .cycle(involving: nodes[stuck].name)
        }
        return order
    }
}

/// The external input of a graph. The plan fills its output buffer from the
/// driver's capture block before the other nodes run; it never renders itself.
final class GraphInputNode: AudioNode {
    let channelCount: Int

    init(channelCount: Int) {
        self.channelCount = channelCount
        super.init(name: "input")
    }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { channelCount }
}
