import MIDI

/// What on a MIDI controller drives a live control: a controller number (a
/// knob, a fader, a footswitch: CC) or a note (a pad, a key), on one channel
/// or on any.
public struct MIDIControlSource: Hashable, Sendable, Comparable, CustomStringConvertible {
    public enum Kind: Int, Hashable, Sendable {
        case controlChange
        case note
    }

    public var kind: Kind
    /// The controller or note number, 0–127.
    public var number: UInt8
    /// The channel as MIDI carries it, 0–15 (the user's 1–16), or nil for any channel.
    public var channel: UInt8?

    public init(_ kind: Kind, _ number: UInt8, channel: UInt8? = nil) {
        self.kind = kind
        self.number = number
        self.channel = channel
    }

    public static func cc(_ number: UInt8, channel: UInt8? = nil) -> Self { Self(.controlChange, number, channel: channel) }
    public static func note(_ number: UInt8, channel: UInt8? = nil) -> Self { Self(.note, number, channel: channel) }

    /// The preset's spelling: `cc64`, `note36`, `cc7 ch2` (channels as the user counts them, 1–16).
    public var text: String {
        let base = (kind == .controlChange ? "cc" : "note") + String(number)
        guard let channel else { return base }
        return base + " ch\(Int(channel) + 1)"
    }

    public var description: String { text }

    /// For the screen: "CC 64", "note 36 (C2) on channel 10".
    public var label: String {
        let base = kind == .controlChange ? "CC \(number)" : "note \(number) (\(NoteName.name(of: Int(number))))"
        guard let channel else { return base }
        return base + " on channel \(Int(channel) + 1)"
    }

    /// Reads `cc64`, `note36`, `cc7 ch2` (case and extra spaces do not matter).
    /// - Throws: a one-line reason (the map's parser adds the line).
    public init(text: String) throws(MIDIControlMapError) {
        let words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let form = "write cc64, note36 or cc7 ch2"
        guard let first = words.first, words.count <= 2 else { throw .init(problem: "'\(text)' is not a CC or note (\(form))") }
        let kind: Kind, digits: Substring
        if first.hasPrefix("cc") {
            kind = .controlChange
            digits = first.dropFirst(2)
        } else if first.hasPrefix("note") {
            kind = .note
            digits = first.dropFirst(4)
        } else {
            throw .init(problem: "'\(first)' is not a CC or note (\(form))")
        }
        guard let number = Int(digits), (0...127).contains(number) else {
            throw .init(problem: "'\(first)': \(kind == .note ? "note" : "CC") numbers go from 0 to 127")
        }
        if kind == .controlChange && number >= 120 {
            throw .init(problem: "cc\(number): CC 120–127 are channel mode messages (all notes off, reset), not controls")
        }
        var channel: UInt8?
        if words.count == 2 {
            let word = words[1]
            guard word.hasPrefix("ch"), let c = Int(word.dropFirst(2)), (1...16).contains(c) else {
                throw .init(problem: "'\(word)' is not a channel (ch1 … ch16)")
            }
            channel = UInt8(c - 1)
        }
        self.init(kind, UInt8(number), channel: channel)
    }

    /// CCs before notes, then by number, then any channel before channel 1…16.
    public static func < (a: Self, b: Self) -> Bool {
        if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
        if a.number != b.number { return a.number < b.number }
        return (a.channel.map { Int($0) } ?? -1) < (b.channel.map { Int($0) } ?? -1)
    }
}
