/// Reads the chunks and events of a Standard MIDI File from bytes, checking
/// every length against what is left before using it.
struct StandardMIDIFileParser {
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func fail(_ reason: MIDIFileError.Reason, at offset: Int) -> MIDIFileError {
        MIDIFileError(reason, offset: offset)
    }

    private func uint16(at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private func uint32(at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private func chunkType(at offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    func parse() throws(MIDIFileError) -> StandardMIDIFile {
        let mthd: [UInt8] = [0x4D, 0x54, 0x68, 0x64]  // "MThd"
        guard bytes.count >= 4 else {
            // A prefix of "MThd" is a truncated MIDI file; anything else is not one.
            if !bytes.isEmpty, bytes.elementsEqual(mthd.prefix(bytes.count)) {
                throw fail(.truncated("the MThd header"), at: bytes.count)
            }
            throw fail(.notAStandardMIDIFile, at: 0)
        }
        guard bytes[0..<4].elementsEqual(mthd) else { throw fail(.notAStandardMIDIFile, at: 0) }
        guard bytes.count >= 14 else { throw fail(.truncated("the MThd header"), at: bytes.count) }
        let headerLength = uint32(at: 4)
        guard headerLength >= 6 else { throw fail(.headerTooShort(length: headerLength), at: 4) }
        guard UInt64(headerLength) <= UInt64(bytes.count - 8) else {
            throw fail(.chunkLengthPastEnd(chunkType: "MThd", length: headerLength, available: bytes.count - 8), at: 4)
        }
        let formatField = uint16(at: 8)
        guard let format = StandardMIDIFile.Format(rawValue: formatField) else {
            throw fail(.unsupportedFormat(formatField), at: 8)
        }
        let trackCount = uint16(at: 10)
        if format == .singleTrack && trackCount != 1 {
            throw fail(.invalidTrackCount(format: formatField, count: trackCount), at: 10)
        }
        let divisionField = uint16(at: 12)
        guard let division = MIDITimeDivision(field: divisionField) else {
            throw fail(.invalidTimeDivision(divisionField), at: 12)
        }

        // The header may grow in future versions: honour its length.
        var position = 8 + Int(headerLength)
        var tracks: [MIDIFileTrack] = []
        while tracks.count < Int(trackCount) {
            if position == bytes.count { throw fail(.missingTracks(expected: Int(trackCount), found: tracks.count), at: position) }
            guard bytes.count - position >= 8 else { throw fail(.truncated("a chunk header"), at: bytes.count) }
            // Chunk types are four ASCII letters; anything else means a length
            // earlier on lied and we are reading from the middle of data.
            guard bytes[position..<position + 4].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw fail(.invalidChunkType, at: position)
            }
            let type = chunkType(at: position)
            let length = uint32(at: position + 4)
            let available = bytes.count - position - 8
            guard UInt64(length) <= UInt64(available) else {
                throw fail(.chunkLengthPastEnd(chunkType: type, length: length, available: available), at: position + 4)
            }
            let start = position + 8
            let end = start + Int(length)
            if type == "MTrk" {
                tracks.append(try parseTrack(from: start, to: end))
            }
            // Unknown chunk types are skipped, as the specification requires.
            position = end
        }
        // Anything after the announced tracks (padding, other chunks) is ignored.
        return StandardMIDIFile(format: format, division: division, tracks: tracks)
    }

    /// Reads a variable-length quantity at `position`, which must stay below `end`.
    private func readQuantity(_ position: inout Int, end: Int) throws(MIDIFileError) -> Int {
        let start = position
        var value = 0
        for count in 1...4 {
            guard position < end else { throw fail(.eventPastEndOfTrack, at: position) }
            let byte = bytes[position]
            position += 1
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
            if count == 4 { break }
        }
        throw fail(.variableLengthQuantityTooLong, at: start)
    }

    /// Reads `length` bytes at `position` without reading past `end`.
    private func readData(_ position: inout Int, length: Int, end: Int, lengthOffset: Int) throws(MIDIFileError) -> [UInt8] {
        guard length <= end - position else { throw fail(.eventPastEndOfTrack, at: lengthOffset) }
        let data = Array(bytes[position..<position + length])
        position += length
        return data
    }

    private func parseTrack(from start: Int, to end: Int) throws(MIDIFileError) -> MIDIFileTrack {
        var events: [MIDIFileEvent] = []
        var position = start
        var tick = 0
        // 0 means none: cancelled at the start of every track and by SysEx and meta events.
        var runningStatus: UInt8 = 0
        while position < end {
            tick += try readQuantity(&position, end: end)
            guard position < end else { throw fail(.eventPastEndOfTrack, at: position) }
            let eventStart = position
            let first = bytes[position]
            switch first {
            case 0xFF:
                position += 1
                guard position < end else { throw fail(.eventPastEndOfTrack, at: position) }
                let type = bytes[position]
                position += 1
                let lengthOffset = position
                let length = try readQuantity(&position, end: end)
                let data = try readData(&position, length: length, end: end, lengthOffset: lengthOffset)
                runningStatus = 0
                let meta = MIDIMetaEvent(type: type, data: data)
                events.append(MIDIFileEvent(tick: tick, kind: .meta(meta)))
                // Bytes after End of Track are not part of the track.
                if meta == .endOfTrack { return MIDIFileTrack(events: events) }
            case 0xF0, 0xF7:
                position += 1
                let lengthOffset = position
                let length = try readQuantity(&position, end: end)
                let data = try readData(&position, length: length, end: end, lengthOffset: lengthOffset)
                runningStatus = 0
                events.append(MIDIFileEvent(tick: tick, kind: first == 0xF0 ? .sysEx(data) : .escape(data)))
            case 0x80...0xEF:
                runningStatus = first
                position += 1
                events.append(MIDIFileEvent(tick: tick, kind: .message(try readChannelData(status: first, &position, end: end))))
            case 0x00...0x7F:
                guard runningStatus != 0 else { throw fail(.dataByteWithoutRunningStatus(first), at: eventStart) }
                events.append(MIDIFileEvent(tick: tick, kind: .message(try readChannelData(status: runningStatus, &position, end: end))))
            default:
                // System common and real-time messages only appear in files inside F7 escapes.
                throw fail(.unexpectedStatusByte(first), at: eventStart)
            }
        }
        return MIDIFileTrack(events: events)
    }

    private func readChannelData(status: UInt8, _ position: inout Int, end: Int) throws(MIDIFileError) -> MIDIMessage {
        let count = MIDIMessage.dataByteCount(forStatus: status) ?? 0
        var data: (UInt8, UInt8) = (0, 0)
        for index in 0..<count {
            guard position < end else { throw fail(.eventPastEndOfTrack, at: position) }
            let byte = bytes[position]
            guard byte < 0x80 else { throw fail(.unexpectedStatusByte(byte), at: position) }
            if index == 0 { data.0 = byte } else { data.1 = byte }
            position += 1
        }
        // Cannot fail: status is 0x80–0xEF.
        return MIDIMessage(status: status, data1: data.0, data2: data.1)!
    }
}
