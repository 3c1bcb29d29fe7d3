/// Why a Standard MIDI File could not be read, and where.
///
/// Its description is one line for the user: the file (when read from a path),
/// the byte offset of the problem, and what was wrong there, for example
/// `song.mid: byte 1234: MTrk chunk claims 99999 bytes but only 14 remain`.
public struct MIDIFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Equatable, Sendable {
        /// The file does not start with an "MThd" chunk.
        case notAStandardMIDIFile
        /// The file ends inside `what`.
        case truncated(String)
        /// A chunk's length field points beyond the end of the file.
        case chunkLengthPastEnd(chunkType: String, length: UInt32, available: Int)
        /// A chunk type that is not four printable ASCII characters: the file is damaged here.
        case invalidChunkType
        /// The MThd chunk is shorter than its 6 required bytes.
        case headerTooShort(length: UInt32)
        /// A format other than 0, 1 or 2.
        case unsupportedFormat(UInt16)
        /// Format 0 with other than one track.
        case invalidTrackCount(format: UInt16, count: UInt16)
        /// A time division of 0 ticks, or an SMPTE format other than −24, −25, −29, −30.
        case invalidTimeDivision(UInt16)
        /// The file ended after `found` of the `expected` track chunks.
        case missingTracks(expected: Int, found: Int)
        /// A variable-length quantity of more than 4 bytes.
        case variableLengthQuantityTooLong
        /// An event or its length runs past the end of its MTrk chunk.
        case eventPastEndOfTrack
        /// A data byte where a status byte was needed and no running status applies.
        case dataByteWithoutRunningStatus(UInt8)
        /// A status byte that has no place here (F1–F6, F8–FE as an event, or any status byte inside a message's data).
        case unexpectedStatusByte(UInt8)
        /// The file is larger than the reader accepts.
        case fileTooLarge(limit: Int)
        /// The file could not be opened or read.
        case unreadable(String)
    }

    public var reason: Reason
    /// The byte offset in the file where the problem is; nil when the file could not be read at all.
    public var offset: Int?
    /// The file's path, when it was read from one.
    public var path: String?

    public init(_ reason: Reason, offset: Int?, path: String? = nil) {
        self.reason = reason
        self.offset = offset
        self.path = path
    }

    public var description: String {
        var parts: [String] = []
        parts.append(path ?? "MIDI file")
        if let offset { parts.append("byte \(offset)") }
        parts.append(reasonText)
        return parts.joined(separator: ": ")
    }

    private var reasonText: String {
        switch reason {
        case .notAStandardMIDIFile:
            return "not a Standard MIDI File (no \"MThd\" header)"
        case .truncated(let what):
            return "file ends inside \(what)"
        case .chunkLengthPastEnd(let type, let length, let available):
            return "\(type) chunk claims \(length) bytes but only \(available) remain"
        case .invalidChunkType:
            return "damaged chunk header (chunk type is not four ASCII letters)"
        case .headerTooShort(let length):
            return "MThd chunk is \(length) bytes, at least 6 required"
        case .unsupportedFormat(let format):
            return "unsupported format \(format) (only 0, 1 and 2 exist)"
        case .invalidTrackCount(let format, let count):
            return "format \(format) file with \(count) tracks (must have exactly 1)"
        case .invalidTimeDivision(let division):
            return "invalid time division 0x\(hex(division, digits: 4))"
        case .missingTracks(let expected, let found):
            return "header announces \(expected) tracks but the file ends after \(found)"
        case .variableLengthQuantityTooLong:
            return "variable-length quantity longer than 4 bytes"
        case .eventPastEndOfTrack:
            return "event runs past the end of its track chunk"
        case .dataByteWithoutRunningStatus(let byte):
            return "data byte 0x\(hex(byte, digits: 2)) without a status byte (no running status)"
        case .unexpectedStatusByte(let byte):
            return "unexpected status byte 0x\(hex(byte, digits: 2))"
        case .fileTooLarge(let limit):
            return "file larger than \(limit) bytes, not a MIDI file"
        case .unreadable(let why):
            return "cannot read: \(why)"
        }
    }

    private func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
