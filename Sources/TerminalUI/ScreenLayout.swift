/// A full screen built from blocks of lines in display order, each with a
/// rank: when the terminal has fewer rows than the blocks need, whole blocks
/// go, lowest rank first (the later of two equal ones first), and the rest
/// keep their order. So the title stays on the first row and the key help,
/// with the quit key, stays on screen: nothing scrolls off the top.
public struct ScreenLayout {
    private var blocks: [(rank: Int, lines: [String])] = []

    public init() {}

    /// Adds `lines` below what is there; an empty block adds nothing.
    public mutating func add(_ lines: [String], rank: Int) {
        if !lines.isEmpty { blocks.append((rank, lines)) }
    }

    public mutating func add(_ line: String, rank: Int) { add([line], rank: rank) }

    /// The lines that fit in `rows`: blocks dropped by rank until they fit,
    /// and if even the highest-ranked ones do not, the bottom rows cut.
    public func lines(rows: Int) -> [String] {
        var kept = Array(blocks.indices)
        var total = blocks.reduce(0) { $0 + $1.lines.count }
        let dropOrder = blocks.indices.sorted { a, b in
            blocks[a].rank != blocks[b].rank ? blocks[a].rank < blocks[b].rank : a > b
        }
        for index in dropOrder where total > rows && kept.count > 1 {
            kept.removeAll { $0 == index }
            total -= blocks[index].lines.count
        }
        return Array(kept.flatMap { blocks[$0].lines }.prefix(max(1, rows)))
    }

    /// The escape sequences that draw `lines(rows:)` from the top-left corner,
    /// each line clipped to `columns` and cleared to its end, the rest of the
    /// screen cleared; no line ends in a newline, so the terminal never scrolls.
    public func draw(columns: Int, rows: Int) -> String {
        "\u{1B}[H" + lines(rows: rows).map { ANSIText.clip($0, columns: columns) + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J"
    }
}
