/// Why a graph could not be built or compiled.
public enum GraphError: Error, CustomStringConvertible, Equatable {
    case unknownNode(Int)
    case noSuchBus(node: String, bus: Int, busCount: Int)
    case busAlreadyConnected(node: String, bus: Int)
    case cycle(involving: String)
    case noOutput
    case liveNodeFormatChange(node: String)
    case blockTooLarge(frames: Int, maximum: Int)

    public var description: String {
        switch self {
        case let .unknownNode(id): return "no node with id \(id) in this graph"
        case let .noSuchBus(node, bus, count): return "node \(node) has \(count) input bus(es); bus \(bus) does not exist"
        case let .busAlreadyConnected(node, bus): return "input bus \(bus) of node \(node) is already connected"
        case let .cycle(node): return "the graph has a cycle through node \(node)"
        case .noOutput: return "the graph has no output node"
        case let .liveNodeFormatChange(node): return "node \(node) is in a running plan and cannot change format; build a new node"
        case let .blockTooLarge(frames, maximum): return "block of \(frames) frames exceeds the prepared maximum of \(maximum)"
        }
    }
}
