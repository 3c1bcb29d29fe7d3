/// The MIDI channels (0–15) a sampler answers; messages on other channels are ignored.
///
/// By default a sampler takes every channel but General MIDI's percussion
/// channel (index 9, "channel 10"), which belongs to the drum kit.
public struct SamplerChannelSet: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// Bit `n` set: channel `n` is taken.
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The given channels (0–15); others are ignored.
    public init(channels: some Sequence<Int>) {
        var mask: UInt16 = 0
        for channel in channels where (0..<16).contains(channel) { mask |= 1 << UInt16(channel) }
        rawValue = mask
    }

    /// All sixteen channels.
    public static let all = SamplerChannelSet(rawValue: 0xFFFF)
    /// Every channel except General MIDI percussion (channel index 9).
    public static let melodic = SamplerChannelSet(rawValue: 0xFFFF & ~(1 << UInt16(GeneralMIDI.percussionChannel)))

    /// The channels taken, ascending.
    public var channels: [Int] { (0..<16).filter { rawValue & (1 << UInt16($0)) != 0 } }

    public var description: String { channels.map { String($0 + 1) }.joined(separator: ",") }

    // MARK: Audio thread

    /// Whether `channel` (0–15) is taken.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inline(__always)
    public func contains(channel: UInt8) -> Bool {
        channel < 16 && rawValue & (1 << UInt16(channel)) != 0
    }
}
