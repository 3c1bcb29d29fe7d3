/// What a remote control (MIDI, OSC) did since a headless session last
/// printed it, one line an action, and the latest line for the screen. A run
/// of messages from one source (a fader sends dozens a second) keeps only its
/// latest line.
/// - Realtime: unsafe (allocates). Control thread only.
public struct ControlActionLog<Source: Equatable> {
    public init() {}

    /// The last thing done ("CC 7 → volume 0.42").
    public private(set) var latest: String?
    private var entries: [(source: Source?, line: String)] = []

    /// Adds `line`; it replaces the last line when both come from `source`.
    public mutating func record(_ line: String, source: Source? = nil) {
        latest = line
        if let source, let last = entries.last, last.source == source {
            entries[entries.count - 1].line = line
        } else {
            entries.append((source, line))
        }
    }

    /// Shows `line` on the screen without logging it.
    public mutating func show(_ line: String) {
        latest = line
    }

    /// The lines since the last call.
    public mutating func takeLines() -> [String] {
        defer { entries.removeAll(keepingCapacity: true) }
        return entries.map(\.line)
    }
}
