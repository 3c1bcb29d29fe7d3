/// A meta event of a Standard MIDI File (FF type length data): information for
/// the sequencer, never sent to instruments.
public enum MIDIMetaEvent: Equatable, Hashable, Sendable {
    /// FF 00 02 ssss, or FF 00 00 (nil: the number is the track's position in the file).
    case sequenceNumber(UInt16?)
    /// FF 01–0F: text of the given type. The bytes are kept as stored, since
    /// files use many encodings; ``text`` decodes them.
    case text(TextType, [UInt8])
    /// FF 20 01 cc: the MIDI channel (0–15) the following meta and SysEx events refer to.
    case channelPrefix(UInt8)
    /// FF 21 01 pp: the output port of this track (a de-facto standard).
    case port(UInt8)
    /// FF 2F 00: the end of the track, at this event's time.
    case endOfTrack
    /// FF 51 03 tttttt: a new tempo, in microseconds per quarter note (500000 = 120 beats per minute).
    case tempo(microsecondsPerQuarterNote: UInt32)
    /// FF 54 05 hr mn se fr ff: the SMPTE time at which the track starts.
    case smpteOffset(hours: UInt8, minutes: UInt8, seconds: UInt8, frames: UInt8, hundredthsOfFrame: UInt8)
    /// FF 58 04 nn dd cc bb: time signature nn/2^dd, cc MIDI clocks per metronome
    /// click, bb notated 32nd notes per MIDI quarter note (24 clocks).
    case timeSignature(numerator: UInt8, denominatorPowerOfTwo: UInt8, clocksPerClick: UInt8, thirtySecondNotesPerQuarter: UInt8)
    /// FF 59 02 sf mi: −7 (7 flats) … +7 (7 sharps), major or minor.
    case keySignature(sharps: Int8, isMinor: Bool)
    /// FF 7F len data: sequencer-specific data.
    case sequencerSpecific([UInt8])
    /// Any other meta type, or a known type whose length is not the specified
    /// one: kept, not interpreted.
    case other(type: UInt8, data: [UInt8])

    /// The kinds of text meta events (types 0x01–0x0F; 0x0A–0x0F are reserved
    /// for future text kinds and still hold text).
    public struct TextType: RawRepresentable, Equatable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// FF 01. Any text; `.kar` karaoke files put their lyrics here.
        public static let text = TextType(rawValue: 0x01)
        public static let copyright = TextType(rawValue: 0x02)
        /// FF 03. Sequence name in the first track of format 0/1, otherwise the track's name.
        public static let trackName = TextType(rawValue: 0x03)
        public static let instrumentName = TextType(rawValue: 0x04)
        /// FF 05. A lyric, usually one syllable.
        public static let lyric = TextType(rawValue: 0x05)
        public static let marker = TextType(rawValue: 0x06)
        public static let cuePoint = TextType(rawValue: 0x07)
        public static let programName = TextType(rawValue: 0x08)
        public static let deviceName = TextType(rawValue: 0x09)
    }

    /// Interprets a meta event's type and data as the specification defines them.
    public init(type: UInt8, data: [UInt8]) {
        switch (type, data.count) {
        case (0x00, 2): self = .sequenceNumber(UInt16(data[0]) << 8 | UInt16(data[1]))
        case (0x00, 0): self = .sequenceNumber(nil)
        case (0x01...0x0F, _): self = .text(TextType(rawValue: type), data)
        case (0x20, 1): self = .channelPrefix(data[0])
        case (0x21, 1): self = .port(data[0])
        case (0x2F, _): self = .endOfTrack
        case (0x51, 3): self = .tempo(microsecondsPerQuarterNote: UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2]))
        case (0x54, 5): self = .smpteOffset(hours: data[0], minutes: data[1], seconds: data[2], frames: data[3], hundredthsOfFrame: data[4])
        case (0x58, 4): self = .timeSignature(numerator: data[0], denominatorPowerOfTwo: data[1], clocksPerClick: data[2], thirtySecondNotesPerQuarter: data[3])
        case (0x59, 2): self = .keySignature(sharps: Int8(bitPattern: data[0]), isMinor: data[1] != 0)
        case (0x7F, _): self = .sequencerSpecific(data)
        default: self = .other(type: type, data: data)
        }
    }

    /// The text of a text event, decoded as UTF-8 when it is valid UTF-8 and as
    /// ISO 8859-1 otherwise (older files, `.kar` files among them, are mostly
    /// Latin-1 or ASCII; Latin-1 never fails). Nil for other meta events.
    public var text: String? {
        guard case .text(_, let bytes) = self else { return nil }
        return MIDIMetaEvent.decodeText(bytes)
    }

    static func decodeText(_ bytes: [UInt8]) -> String {
        if let utf8 = String(validating: bytes, as: UTF8.self) { return utf8 }
        var scalars = String.UnicodeScalarView()
        for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
        return String(scalars)
    }
}
