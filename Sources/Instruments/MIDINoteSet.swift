/// A set of MIDI notes (0–127) in two words: which percussion notes a
/// sampler plays, which notes a drum kit has pads for. Plain bits, so the
/// audio thread can test it and two atomics can carry it.
public struct MIDINoteSet: Hashable, Sendable {
    /// Notes 0–63, bit `n` for note `n`.
    public var low: UInt64
    /// Notes 64–127, bit `n - 64` for note `n`.
    public var high: UInt64

    public init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The given notes; values outside 0–127 are ignored.
    public init(notes: some Sequence<Int>) {
        var set = MIDINoteSet.none
        for note in notes where (0..<128).contains(note) { set.insert(UInt8(note)) }
        self = set
    }

    public static let none = MIDINoteSet(low: 0, high: 0)
    public static let all = MIDINoteSet(low: .max, high: .max)

    public mutating func insert(_ note: UInt8) {
        let n = note & 0x7F
        if n < 64 { low |= 1 << UInt64(n) } else { high |= 1 << UInt64(n - 64) }
    }

    /// Every note not in this set.
    public var complement: MIDINoteSet { MIDINoteSet(low: ~low, high: ~high) }

    /// The notes in the set, ascending.
    public var notes: [Int] { (0..<128).filter { contains(UInt8($0)) } }

    public var isEmpty: Bool { low == 0 && high == 0 }

    /// The notes as short ranges: "35-36 38 42 44 46".
    public var rangesDescription: String {
        let list = notes
        var parts: [String] = []
        var first = 0
        while first < list.count {
            var last = first
            while last + 1 < list.count && list[last + 1] == list[last] + 1 { last += 1 }
            parts.append(first == last ? "\(list[first])" : "\(list[first])-\(list[last])")
            first = last + 1
        }
        return parts.joined(separator: " ")
    }

    // MARK: Audio thread

    /// Whether `note` (its low seven bits) is in the set.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inline(__always)
    public func contains(_ note: UInt8) -> Bool {
        let n = note & 0x7F
        return n < 64 ? low & (1 << UInt64(n)) != 0 : high & (1 << UInt64(n - 64)) != 0
    }
}
