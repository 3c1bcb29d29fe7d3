/// What the engine silenced because it held a fault (a NaN, an infinity, an
/// absurd sample): how many blocks, where the first was, and whose output it
/// was, for the screen, the take's log and a file run's last line.
public struct SilencedAudio: Equatable, Sendable {
    /// Blocks in which anything was silenced.
    public var blocks: Int
    /// The engine frame the first of them started on; nil when none.
    public var firstFrame: Int?
    /// The nodes whose output held a fault, with how many of their blocks were silenced.
    public var nodes: [Node]

    public struct Node: Equatable, Sendable {
        public var name: String
        public var blocks: Int
    }

    public init(blocks: Int, firstFrame: Int?, nodes: [(name: String, blocks: Int)]) {
        self.blocks = blocks
        self.firstFrame = firstFrame
        self.nodes = nodes.map { Node(name: $0.name, blocks: $0.blocks) }
    }

    /// `2 blocks with non-finite or absurd samples silenced (from input), the first at 1.250 s`.
    public func description(sampleRate: Int) -> String {
        let from = nodes.isEmpty ? "" : " (from " + nodes.map(\.name).joined(separator: ", ") + ")"
        let first = firstFrame.map { ", the first at " + formatSeconds(Double($0) / Double(max(1, sampleRate))) + " s" } ?? ""
        return "\(blocks) block\(blocks == 1 ? "" : "s") with non-finite or absurd samples silenced\(from)\(first)"
    }

    /// Seconds with three decimals, without Foundation.
    private func formatSeconds(_ seconds: Double) -> String {
        let millis = Int((seconds * 1000).rounded())
        let fraction = String(millis % 1000)
        return "\(millis / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
