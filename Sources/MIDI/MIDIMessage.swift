/// One MIDI 1.0 message, as it travels from any source (a keyboard, a raw MIDI
/// device, a MIDI file) to the instruments.
///
/// The enum holds only small integers, so it is trivially copyable: it can be
/// stored in a preallocated queue and handed to the audio thread without
/// allocation or reference counting. SysEx payloads, which have no fixed length,
/// are therefore not carried here; the parser delivers them in chunks
/// (``MIDIParserOutput/sysExData(_:isFirst:)``) and this enum only marks where a
/// SysEx message ended (``systemExclusive(byteCount:endedWithEOX:)``).
///
/// Field ranges follow the MIDI 1.0 specification: channels are 0–15 (the
/// "channel 1" users see is channel 0 here), data values are 7 bits (0–127),
/// pitch bend and song position are 14 bits (0–16383). The enum does not police
/// these ranges; ``MIDIByteEncoder`` masks out-of-range values when serializing.
///
/// Channel mode messages (All Notes Off, Omni, Mono, …) are control changes
/// 120–127 on the wire, so they are ``controlChange(channel:controller:value:)``
/// here too; ``channelMode`` and helpers such as ``isAllNotesOff`` recognise them.
public enum MIDIMessage: Equatable, Hashable, Sendable {
    // MARK: Channel voice messages (status 0x80–0xEF)

    /// 0x8n. Release of `note` with a release velocity.
    case noteOff(channel: UInt8, note: UInt8, velocity: UInt8)
    /// 0x9n. Start of `note`. A velocity of 0 means note off by convention
    /// (see ``isNoteOff``); it is kept as sent so that bytes round-trip.
    case noteOn(channel: UInt8, note: UInt8, velocity: UInt8)
    /// 0xAn. Polyphonic key pressure (aftertouch) on one held note.
    case polyPressure(channel: UInt8, note: UInt8, pressure: UInt8)
    /// 0xBn. Control change; controllers 120–127 are the channel mode messages.
    case controlChange(channel: UInt8, controller: UInt8, value: UInt8)
    /// 0xCn. Program (patch) change, 0–127.
    case programChange(channel: UInt8, program: UInt8)
    /// 0xDn. Channel pressure (aftertouch) for the whole channel.
    case channelPressure(channel: UInt8, pressure: UInt8)
    /// 0xEn. Pitch bend, 14 bits: 0 is full down, ``pitchBendCenter`` (8192) is
    /// no bend, 16383 is full up. On the wire: LSB first, then MSB.
    case pitchBend(channel: UInt8, value: UInt16)

    // MARK: System common messages (0xF1–0xF7; they cancel running status)

    /// 0xF1. MIDI Time Code quarter frame. The data byte holds the piece type
    /// in bits 4–6 and the 4-bit value in bits 0–3.
    case timeCodeQuarterFrame(UInt8)
    /// 0xF2. Song position pointer, in MIDI beats (1 beat = 6 clocks = a sixteenth note), 14 bits.
    case songPosition(UInt16)
    /// 0xF3. Song select, 0–127.
    case songSelect(UInt8)
    /// 0xF6. Tune request.
    case tuneRequest

    /// 0xF0 … 0xF7. Marks the end of a System Exclusive message whose data bytes
    /// were delivered separately. `byteCount` counts the data bytes between F0
    /// and the end (neither F0 nor F7 included). `endedWithEOX` is false when the
    /// message was cut short by another status byte, as MIDI 1.0 allows.
    case systemExclusive(byteCount: Int, endedWithEOX: Bool)

    // MARK: System real-time messages (0xF8–0xFF; single bytes, allowed anywhere)

    /// 0xF8. Timing clock, 24 per quarter note.
    case timingClock
    /// 0xFA. Start the sequence from the beginning.
    case start
    /// 0xFB. Continue from where it stopped.
    case `continue`
    /// 0xFC. Stop.
    case stop
    /// 0xFE. Active sensing: once a receiver has seen one, silence for more than
    /// 300 ms means the connection is lost.
    case activeSensing
    /// 0xFF. Reset every receiver to its power-up state.
    case systemReset

    /// The pitch bend value that means "no bend".
    public static let pitchBendCenter: UInt16 = 8192
}

// MARK: - Classification

extension MIDIMessage {
    // MARK: Audio thread

    /// The channel (0–15) of a channel voice or mode message; nil for system messages.
    /// - Thread: audio, writer, control
    /// - Realtime: safe
    public var channel: UInt8? {
        switch self {
        case .noteOff(let channel, _, _), .noteOn(let channel, _, _), .polyPressure(let channel, _, _),
             .controlChange(let channel, _, _), .programChange(let channel, _),
             .channelPressure(let channel, _), .pitchBend(let channel, _):
            return channel
        default:
            return nil
        }
    }

    /// True for a note off, and for a note on with velocity 0 (which MIDI 1.0
    /// defines as a note off, so senders can stay in running status).
    /// - Thread: audio, control
    /// - Realtime: safe
    public var isNoteOff: Bool {
        switch self {
        case .noteOff: return true
        case .noteOn(_, _, let velocity): return velocity == 0
        default: return false
        }
    }

    // MARK: Writer, MIDI input and control threads

    /// The status byte that starts this message on the wire (for a channel
    /// message, including the channel in the low nibble).
    /// - Thread: writer, control
    /// - Realtime: safe
    public var statusByte: UInt8 {
        switch self {
        case .noteOff(let channel, _, _): return 0x80 | (channel & 0x0F)
        case .noteOn(let channel, _, _): return 0x90 | (channel & 0x0F)
        case .polyPressure(let channel, _, _): return 0xA0 | (channel & 0x0F)
        case .controlChange(let channel, _, _): return 0xB0 | (channel & 0x0F)
        case .programChange(let channel, _): return 0xC0 | (channel & 0x0F)
        case .channelPressure(let channel, _): return 0xD0 | (channel & 0x0F)
        case .pitchBend(let channel, _): return 0xE0 | (channel & 0x0F)
        case .timeCodeQuarterFrame: return 0xF1
        case .songPosition: return 0xF2
        case .songSelect: return 0xF3
        case .tuneRequest: return 0xF6
        case .systemExclusive: return 0xF0
        case .timingClock: return 0xF8
        case .start: return 0xFA
        case .continue: return 0xFB
        case .stop: return 0xFC
        case .activeSensing: return 0xFE
        case .systemReset: return 0xFF
        }
    }

    /// True for the single-byte system real-time messages (0xF8–0xFF), which may
    /// appear anywhere in a byte stream and never affect running status.
    public var isRealTime: Bool { statusByte >= 0xF8 }

    /// True for the system common messages, SysEx included (0xF0–0xF7).
    public var isSystemCommon: Bool { (0xF0...0xF7).contains(statusByte) }

    /// How many data bytes follow `status` in a complete message, or nil when
    /// `status` is not a status byte with a fixed length (data bytes, SysEx
    /// start and end, and the undefined 0xF4, 0xF5, 0xF9, 0xFD).
    public static func dataByteCount(forStatus status: UInt8) -> Int? {
        switch status {
        case 0x80...0xBF, 0xE0...0xEF: return 2
        case 0xC0...0xDF: return 1
        case 0xF1, 0xF3: return 1
        case 0xF2: return 2
        case 0xF6, 0xF8, 0xFA, 0xFB, 0xFC, 0xFE, 0xFF: return 0
        default: return nil
        }
    }

    /// The real-time message for a byte 0xF8–0xFF, or nil for the undefined
    /// 0xF9 and 0xFD and for every other byte.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public init?(realTimeByte byte: UInt8) {
        switch byte {
        case 0xF8: self = .timingClock
        case 0xFA: self = .start
        case 0xFB: self = .continue
        case 0xFC: self = .stop
        case 0xFE: self = .activeSensing
        case 0xFF: self = .systemReset
        default: return nil
        }
    }

    /// Builds a complete message from a status byte and its data bytes, or nil
    /// when `status` is not a fixed-length status (see ``dataByteCount(forStatus:)``).
    /// Unused data bytes are ignored; data bytes are masked to 7 bits.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public init?(status: UInt8, data1: UInt8 = 0, data2: UInt8 = 0) {
        let channel = status & 0x0F
        let d1 = data1 & 0x7F, d2 = data2 & 0x7F
        switch status {
        case 0x80...0x8F: self = .noteOff(channel: channel, note: d1, velocity: d2)
        case 0x90...0x9F: self = .noteOn(channel: channel, note: d1, velocity: d2)
        case 0xA0...0xAF: self = .polyPressure(channel: channel, note: d1, pressure: d2)
        case 0xB0...0xBF: self = .controlChange(channel: channel, controller: d1, value: d2)
        case 0xC0...0xCF: self = .programChange(channel: channel, program: d1)
        case 0xD0...0xDF: self = .channelPressure(channel: channel, pressure: d1)
        case 0xE0...0xEF: self = .pitchBend(channel: channel, value: UInt16(d2) << 7 | UInt16(d1))
        case 0xF1: self = .timeCodeQuarterFrame(d1)
        case 0xF2: self = .songPosition(UInt16(d2) << 7 | UInt16(d1))
        case 0xF3: self = .songSelect(d1)
        case 0xF6: self = .tuneRequest
        default:
            guard let realTime = MIDIMessage(realTimeByte: status) else { return nil }
            self = realTime
        }
    }
}

// MARK: - Serialization

extension MIDIMessage {
    /// The message's complete bytes on the wire, status byte included.
    ///
    /// A ``systemExclusive(byteCount:endedWithEOX:)`` marker has no payload and
    /// yields an empty array; serialize SysEx with ``MIDIByteEncoder/appendSysEx(_:to:)``.
    /// - Realtime: unsafe (allocates). For tests and tools.
    public func bytes() -> [UInt8] {
        var encoder = MIDIByteEncoder(usesRunningStatus: false)
        var out: [UInt8] = []
        encoder.append(self, to: &out)
        return out
    }

    /// The data bytes after the status byte (0, 1 or 2 of them), masked to 7 bits.
    /// Empty for SysEx markers and real-time messages.
    /// - Thread: writer, control
    /// - Realtime: safe
    public var dataBytes: (count: Int, first: UInt8, second: UInt8) {
        switch self {
        case .noteOff(_, let a, let b), .noteOn(_, let a, let b), .polyPressure(_, let a, let b),
             .controlChange(_, let a, let b):
            return (2, a & 0x7F, b & 0x7F)
        case .programChange(_, let a), .channelPressure(_, let a), .timeCodeQuarterFrame(let a), .songSelect(let a):
            return (1, a & 0x7F, 0)
        case .pitchBend(_, let value), .songPosition(let value):
            return (2, UInt8(value & 0x7F), UInt8((value >> 7) & 0x7F))
        default:
            return (0, 0, 0)
        }
    }
}
