/// What ``MIDIByteParser`` skipped, by kind. None of these is an error the
/// parser stops for: MIDI cables glitch, devices get unplugged mid-message, and
/// the stream must go on. Show them to the user so a bad cable is visible.
public struct MIDIParserStatistics: Equatable, Hashable, Sendable {
    /// Data bytes with no status to apply them to (no running status).
    public var strayDataBytes = 0
    /// The undefined status bytes 0xF4, 0xF5 (system common) and 0xF9, 0xFD (real-time).
    public var undefinedStatusBytes = 0
    /// End of Exclusive (0xF7) with no SysEx in progress.
    public var strayEndOfExclusiveBytes = 0
    /// Messages abandoned because a status byte arrived before their last data byte.
    public var incompleteMessages = 0
    /// SysEx messages ended by a status byte other than 0xF7 (still delivered, see
    /// ``MIDIMessage/systemExclusive(byteCount:endedWithEOX:)``).
    public var interruptedSysEx = 0

    /// No bytes skipped yet.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public init() {}

    /// Every byte or message skipped, all kinds together.
    public var total: Int {
        strayDataBytes + undefinedStatusBytes + strayEndOfExclusiveBytes + incompleteMessages + interruptedSysEx
    }
}
