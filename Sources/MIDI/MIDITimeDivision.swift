/// The unit of delta times in a Standard MIDI File (the MThd "division" field).
public enum MIDITimeDivision: Equatable, Hashable, Sendable {
    /// Metrical time: ticks per quarter note (bit 15 clear); seconds depend on the tempo map.
    case ticksPerQuarterNote(Int)
    /// Time-code-based time (bit 15 set): ticks per SMPTE frame at a fixed frame
    /// rate; tempo events do not change it.
    case smpte(SMPTEFrameRate, ticksPerFrame: Int)

    /// The SMPTE frame rates a file can name (the negative high byte of the division).
    public enum SMPTEFrameRate: Int, Equatable, Hashable, Sendable {
        case fps24 = 24
        case fps25 = 25
        /// "30 drop frame": NTSC, 30000/1001 ≈ 29.97 frames per second.
        case fps29_97DropFrame = 29
        case fps30 = 30

        /// Frames per second as an exact fraction.
        public var framesPerSecond: (numerator: Int, denominator: Int) {
            switch self {
            case .fps24: return (24, 1)
            case .fps25: return (25, 1)
            case .fps29_97DropFrame: return (30000, 1001)
            case .fps30: return (30, 1)
            }
        }
    }

    /// Decodes the 16-bit division field, or nil when it is invalid (0 ticks per
    /// quarter note, 0 ticks per frame, or an unknown SMPTE format).
    public init?(field: UInt16) {
        if field & 0x8000 == 0 {
            guard field > 0 else { return nil }
            self = .ticksPerQuarterNote(Int(field))
        } else {
            // The high byte is the frame rate as a negative two's-complement number.
            let rate = -Int(Int8(bitPattern: UInt8(field >> 8)))
            let ticksPerFrame = Int(field & 0xFF)
            guard let frameRate = SMPTEFrameRate(rawValue: rate), ticksPerFrame > 0 else { return nil }
            self = .smpte(frameRate, ticksPerFrame: ticksPerFrame)
        }
    }
}
