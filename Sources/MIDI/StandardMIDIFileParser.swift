/// Reads the chunks and events of a Standard MIDI File from bytes, checking
/// every length against what is left before using it.
///
/// Strict reading throws at the first departure from the specification.
/// Forgiving reading works around each kind of damage found in files in the
/// wild, keeps every event it can and records a ``MIDIFileRepair`` for what it
/// did; it throws only when the data is not a MIDI file at all (no "MThd", or a
/// header it cannot read). Both follow one path: at each departure the strict
/// reader throws the error the forgiving one records as a repair.
struct StandardMIDIFileParser {
    let bytes: [UInt8]
    let isStrict: Bool
    private var repairs: [MIDIFileRepair] = []
    /// Where each (kind, track) is in `repairs`, so repeats are counted in one entry.
    private var repairIndex: [RepairKey: Int] = [:]

    private struct RepairKey: Hashable {
        var kind: MIDIFileRepair.Kind
        var track: Int?
    }

    /// How many bytes past a stray status byte the readings of what follows
    /// (a delta time, or the event itself) are tried before choosing.
    private static let lookaheadBytes = 48

    init(bytes: [UInt8], mode: StandardMIDIFile.ReadingMode) {
        self.bytes = bytes
        self.isStrict = mode == .strict
    }

    private func fail(_ reason: MIDIFileError.Reason, at offset: Int) -> MIDIFileError {
        MIDIFileError(reason, offset: offset)
    }

    /// Records damage worked around, or, when strict, throws `strictError` at `errorOffset`.
    /// A nil `strictError` is something the strict reader tolerates silently.
    private mutating func repair(_ kind: MIDIFileRepair.Kind, track: Int?, at offset: Int, count: Int = 1, bytes byteCount: Int,
                                 strictError: MIDIFileError.Reason?, errorOffset: Int? = nil) throws(MIDIFileError) {
        if isStrict {
            if let strictError { throw fail(strictError, at: errorOffset ?? offset) }
            return
        }
        let key = RepairKey(kind: kind, track: track)
        if let index = repairIndex[key] {
            repairs[index].count += count
            repairs[index].byteCount += byteCount
        } else {
            repairIndex[key] = repairs.count
            repairs.append(MIDIFileRepair(kind: kind, track: track, offset: offset, count: count, byteCount: byteCount))
        }
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

    /// Chunk types are four ASCII letters; anything else means a length earlier
    /// on lied and this is the middle of data.
    private func isChunkType(at offset: Int) -> Bool {
        bytes[offset..<offset + 4].allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The offset of the next "MTrk" after `offset`, if any.
    private func nextTrackChunk(after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + 8 <= bytes.count {
            if bytes[candidate] == 0x4D, bytes[candidate + 1] == 0x54, bytes[candidate + 2] == 0x72, bytes[candidate + 3] == 0x6B {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    mutating func parse() throws(MIDIFileError) -> StandardMIDIFile {
        let mthd: [UInt8] = [0x4D, 0x54, 0x68, 0x64]  // "MThd"
        guard bytes.count >= 4 else {
            // A prefix of "MThd" is a truncated MIDI file; anything else is not one.
            if !bytes.isEmpty, bytes.elementsEqual(mthd.prefix(bytes.count)) {
                throw fail(.truncated("the MThd header"), at: bytes.count)
            }
            throw fail(.notAStandardMIDIFile, at: 0)
        }
        // Without a readable header there is nothing to go on: refused in both modes.
        guard bytes[0..<4].elementsEqual(mthd) else { throw fail(.notAStandardMIDIFile, at: 0) }
        guard bytes.count >= 14 else { throw fail(.truncated("the MThd header"), at: bytes.count) }
        let headerLength = uint32(at: 4)
        guard headerLength >= 6 else { throw fail(.headerTooShort(length: headerLength), at: 4) }
        guard UInt64(headerLength) <= UInt64(bytes.count - 8) else {
            throw fail(.chunkLengthPastEnd(chunkType: "MThd", length: headerLength, available: bytes.count - 8), at: 4)
        }
        let formatField = uint16(at: 8)
        let announcedFormat = StandardMIDIFile.Format(rawValue: formatField)
        if announcedFormat == nil, isStrict { throw fail(.unsupportedFormat(formatField), at: 8) }
        let trackCount = uint16(at: 10)
        if announcedFormat == .singleTrack && trackCount != 1 && isStrict {
            throw fail(.invalidTrackCount(format: formatField, count: trackCount), at: 10)
        }
        let divisionField = uint16(at: 12)
        guard let division = MIDITimeDivision(field: divisionField) else {
            throw fail(.invalidTimeDivision(divisionField), at: 12)
        }

        // The header may grow in future versions: honour its length.
        var position = 8 + Int(headerLength)
        var tracks: [MIDIFileTrack] = []
        while true {
            if isStrict {
                // Anything after the announced tracks (padding, other chunks) is ignored.
                if tracks.count >= Int(trackCount) { break }
                if position == bytes.count { throw fail(.missingTracks(expected: Int(trackCount), found: tracks.count), at: position) }
            } else if position >= bytes.count {
                break
            }
            let remaining = bytes.count - position
            guard remaining >= 8 else {
                try repair(.trailingBytes, track: nil, at: position, bytes: remaining,
                           strictError: .truncated("a chunk header"), errorOffset: bytes.count)
                break
            }
            let type = isChunkType(at: position) ? chunkType(at: position) : nil
            let length = uint32(at: position + 4)
            let available = remaining - 8
            let fits = UInt64(length) <= UInt64(available)
            if type == nil || (!fits && type != "MTrk") {
                // Not a chunk here: a length before lied. Go on at the next track chunk, if there is one.
                let strictError: MIDIFileError.Reason = type == nil
                    ? .invalidChunkType : .chunkLengthPastEnd(chunkType: type!, length: length, available: available)
                if let next = nextTrackChunk(after: position) {
                    try repair(.damagedChunkHeader, track: nil, at: position, bytes: next - position,
                               strictError: strictError, errorOffset: type == nil ? position : position + 4)
                    position = next
                    continue
                }
                try repair(.trailingBytes, track: nil, at: position, bytes: remaining,
                           strictError: strictError, errorOffset: type == nil ? position : position + 4)
                break
            }
            let start = position + 8
            if !fits {
                // The last track is cut short: read what is there.
                try repair(.truncatedTrack, track: tracks.count, at: bytes.count, bytes: Int(length) - available,
                           strictError: .chunkLengthPastEnd(chunkType: "MTrk", length: length, available: available), errorOffset: position + 4)
                tracks.append(try parseTrack(index: tracks.count, from: start, to: bytes.count, isTruncated: true))
                break
            }
            let end = start + Int(length)
            if type == "MTrk" {
                tracks.append(try parseTrack(index: tracks.count, from: start, to: end, isTruncated: false))
            }
            // Unknown chunk types are skipped, as the specification requires.
            position = end
        }

        var format = announcedFormat ?? .simultaneousTracks
        if announcedFormat == nil || (format == .singleTrack && tracks.count > 1) {
            format = .simultaneousTracks
            try repair(.formatReadAsOne(announced: formatField), track: nil, at: 8, count: tracks.count, bytes: 0, strictError: nil)
        }
        if tracks.count != Int(trackCount) {
            try repair(.trackCount(announced: Int(trackCount)), track: nil, at: 10, count: tracks.count, bytes: 0, strictError: nil)
        }
        var file = StandardMIDIFile(format: format, division: division, tracks: tracks)
        file.repairs = repairs
        return file
    }

    // MARK: Tracks

    private enum Quantity {
        case value(Int)
        /// The data ends inside the quantity; `at` is where the next byte was needed.
        case pastEnd(at: Int)
        /// More than 4 bytes.
        case tooLong
    }

    /// Reads a variable-length quantity at `position`, which must stay below `end`.
    private func readQuantity(_ position: inout Int, end: Int) -> Quantity {
        var value = 0
        for count in 1...4 {
            guard position < end else { return .pastEnd(at: position) }
            let byte = bytes[position]
            position += 1
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return .value(value) }
            if count == 4 { break }
        }
        return .tooLong
    }

    /// The number of data bytes a system common status carries on the wire (F1–F3), else 0.
    private static func systemCommonDataCount(_ status: UInt8) -> Int {
        switch status {
        case 0xF1, 0xF3: 1
        case 0xF2: 2
        default: 0
        }
    }

    /// Where reading one track stands: what it has read and what the next byte means.
    private struct TrackCursor {
        let index: Int
        let end: Int
        let isTruncated: Bool
        var position: Int
        var events: [MIDIFileEvent] = []
        var tick = 0
        /// 0 means none. The strict reader cancels it at the start of every track
        /// and at SysEx and meta events; the forgiving one keeps it across them
        /// (as many writers assumed) and notes when it is used there.
        var runningStatus: UInt8 = 0
        var isRunningStatusCancelled = false
        /// False right after a skipped stray byte or dropped message: the next byte is an event at the same tick.
        var readsDelta = true

        init(index: Int, from start: Int, to end: Int, isTruncated: Bool) {
            self.index = index
            self.end = end
            self.isTruncated = isTruncated
            position = start
        }
    }

    /// What reading one event leaves the track reader to do.
    private enum TrackStep {
        /// Read the next event.
        case readOn
        /// The rest of the chunk cannot be read: the track is what was read so far.
        case lostTheRest
        /// End of Track: the track is complete.
        case ended
    }

    private mutating func parseTrack(index: Int, from start: Int, to end: Int, isTruncated: Bool) throws(MIDIFileError) -> MIDIFileTrack {
        var cursor = TrackCursor(index: index, from: start, to: end, isTruncated: isTruncated)
        while cursor.position < end {
            switch try readEvent(&cursor) {
            case .readOn: continue
            case .lostTheRest, .ended: return MIDIFileTrack(events: cursor.events)
            }
        }
        if !isTruncated {
            try repair(.missingEndOfTrack, track: index, at: end, bytes: 0, strictError: nil)
        }
        return MIDIFileTrack(events: cursor.events)
    }

    /// Reads one event (its delta time first, unless the cursor says otherwise).
    private mutating func readEvent(_ cursor: inout TrackCursor) throws(MIDIFileError) -> TrackStep {
        let eventStart = cursor.position
        if cursor.readsDelta, let step = try readDelta(&cursor, eventStart: eventStart) { return step }
        cursor.readsDelta = true
        switch bytes[cursor.position] {
        case 0xFF, 0xF0, 0xF7: return try readMetaOrSysEx(&cursor, eventStart: eventStart)
        case 0x00...0xEF: return try readChannelMessage(&cursor, eventStart: eventStart)
        default:
            try skipSystemMessage(&cursor)
            return .readOn
        }
    }

    /// Reads a delta time into the cursor's tick. Nil when an event follows it in the chunk;
    /// else what the track reader does now.
    private mutating func readDelta(_ cursor: inout TrackCursor, eventStart: Int) throws(MIDIFileError) -> TrackStep? {
        switch readQuantity(&cursor.position, end: cursor.end) {
        case .value(let delta): cursor.tick += delta
        case .pastEnd(let at): return try cutOff(cursor, from: eventStart, errorOffset: at)
        case .tooLong: return try unreadableRest(cursor, from: eventStart, errorOffset: eventStart)
        }
        guard cursor.position < cursor.end else { return try cutOff(cursor, from: eventStart, errorOffset: cursor.position) }
        return nil
    }

    /// Drops the event from `eventStart` that the chunk's end cut off (strictly: an error at `errorOffset`).
    private mutating func cutOff(_ cursor: TrackCursor, from eventStart: Int, errorOffset: Int) throws(MIDIFileError) -> TrackStep {
        try repair(.cutOffEvent, track: cursor.index, at: eventStart, bytes: cursor.end - eventStart,
                   strictError: .eventPastEndOfTrack, errorOffset: errorOffset)
        return .lostTheRest
    }

    /// Gives up on the chunk from `eventStart`: a variable-length quantity there is longer than four bytes.
    private mutating func unreadableRest(_ cursor: TrackCursor, from eventStart: Int, errorOffset: Int) throws(MIDIFileError) -> TrackStep {
        try repair(.unreadableTrackRest, track: cursor.index, at: eventStart, bytes: cursor.end - eventStart,
                   strictError: .variableLengthQuantityTooLong, errorOffset: errorOffset)
        return .lostTheRest
    }

    /// Reads a meta event (FF), a SysEx (F0) or an escape (F7) with its length and data.
    private mutating func readMetaOrSysEx(_ cursor: inout TrackCursor, eventStart: Int) throws(MIDIFileError) -> TrackStep {
        let first = bytes[cursor.position]
        cursor.position += 1
        var type: UInt8 = 0
        if first == 0xFF {
            guard cursor.position < cursor.end else { return try cutOff(cursor, from: eventStart, errorOffset: cursor.position) }
            type = bytes[cursor.position]
            cursor.position += 1
        }
        let isEndOfTrack = first == 0xFF && type == 0x2F
        let lengthOffset = cursor.position
        let length: Int
        switch readQuantity(&cursor.position, end: cursor.end) {
        case .value(let value): length = value
        case .pastEnd(let at):
            if isEndOfTrack {
                // Only End of Track's empty length is missing: it still ends the track here.
                cursor.events.append(MIDIFileEvent(tick: cursor.tick, kind: .meta(.endOfTrack)))
                if cursor.isTruncated && !isStrict { return .ended }
            }
            let step = try cutOff(cursor, from: eventStart, errorOffset: at)
            return isEndOfTrack ? .ended : step
        case .tooLong: return try unreadableRest(cursor, from: eventStart, errorOffset: lengthOffset)
        }
        guard length <= cursor.end - cursor.position else { return try cutOff(cursor, from: eventStart, errorOffset: lengthOffset) }
        let data = Array(bytes[cursor.position..<cursor.position + length])
        cursor.position += length
        if isStrict { cursor.runningStatus = 0 } else if cursor.runningStatus != 0 { cursor.isRunningStatusCancelled = true }
        guard first == 0xFF else {
            cursor.events.append(MIDIFileEvent(tick: cursor.tick, kind: first == 0xF0 ? .sysEx(data) : .escape(data)))
            return .readOn
        }
        let meta = MIDIMetaEvent(type: type, data: data)
        cursor.events.append(MIDIFileEvent(tick: cursor.tick, kind: .meta(meta)))
        // Bytes after End of Track are not part of the track.
        return meta == .endOfTrack ? .ended : .readOn
    }

    /// Reads a channel message, by its status byte or by running status.
    private mutating func readChannelMessage(_ cursor: inout TrackCursor, eventStart: Int) throws(MIDIFileError) -> TrackStep {
        let statusOffset = cursor.position
        let first = bytes[statusOffset]
        let status: UInt8
        if first >= 0x80 {
            status = first
            cursor.runningStatus = first
            cursor.isRunningStatusCancelled = false
            cursor.position += 1
        } else if cursor.runningStatus == 0 {
            try skipStrayData(&cursor)
            return .readOn
        } else {
            if cursor.isRunningStatusCancelled {
                try repair(.runningStatusAfterMetaOrSysEx, track: cursor.index, at: statusOffset, bytes: 0,
                           strictError: .dataByteWithoutRunningStatus(first))
                cursor.isRunningStatusCancelled = false
            }
            status = cursor.runningStatus
        }
        return try readMessageData(&cursor, status: status, statusOffset: statusOffset, eventStart: eventStart)
    }

    /// Reads the data bytes of a channel message with `status` and records the message.
    private mutating func readMessageData(_ cursor: inout TrackCursor, status: UInt8, statusOffset: Int,
                                          eventStart: Int) throws(MIDIFileError) -> TrackStep {
        let count = MIDIMessage.dataByteCount(forStatus: status) ?? 0
        var data: (UInt8, UInt8) = (0, 0)
        var received = 0
        while received < count {
            guard cursor.position < cursor.end else { return try cutOff(cursor, from: eventStart, errorOffset: cursor.position) }
            let byte = bytes[cursor.position]
            if byte >= 0xF8 && byte != 0xFF && !isStrict {
                // A real-time byte may sit anywhere in a MIDI stream: skip it, the message goes on.
                try repair(.strayStatusBytes, track: cursor.index, at: cursor.position, bytes: 1, strictError: nil)
                cursor.position += 1
                continue
            }
            guard byte < 0x80 else {
                // A status byte cuts the message short: drop it and read an event from this byte.
                try repair(.incompleteMessages, track: cursor.index, at: statusOffset, bytes: cursor.position - statusOffset,
                           strictError: .unexpectedStatusByte(byte), errorOffset: cursor.position)
                cursor.readsDelta = false
                return .readOn
            }
            if received == 0 { data.0 = byte } else { data.1 = byte }
            received += 1
            cursor.position += 1
        }
        // Cannot fail: status is 0x80–0xEF.
        cursor.events.append(MIDIFileEvent(tick: cursor.tick, kind: .message(MIDIMessage(status: status, data1: data.0, data2: data.1)!)))
        return .readOn
    }

    /// Data with nothing to apply to: skips it up to the next status byte,
    /// whose delta time is the data byte right before it, if any.
    private mutating func skipStrayData(_ cursor: inout TrackCursor) throws(MIDIFileError) {
        let statusOffset = cursor.position
        let first = bytes[statusOffset]
        var skipped = 0
        while cursor.position < cursor.end && bytes[cursor.position] < 0x80 {
            skipped += 1
            cursor.position += 1
        }
        cursor.readsDelta = skipped >= 2 && cursor.position < cursor.end
        if cursor.readsDelta {
            skipped -= 1
            cursor.position -= 1
        }
        try repair(.strayDataBytes, track: cursor.index, at: statusOffset, count: skipped, bytes: skipped,
                   strictError: .dataByteWithoutRunningStatus(first))
    }

    /// System common and real-time messages only appear in files inside F7 escapes:
    /// skips this one with the data bytes it carries on the wire.
    private mutating func skipSystemMessage(_ cursor: inout TrackCursor) throws(MIDIFileError) {
        let position = cursor.position, end = cursor.end
        let first = bytes[position]
        var dataBytes = 0
        while dataBytes < Self.systemCommonDataCount(first) && position + 1 + dataBytes < end
            && bytes[position + 1 + dataBytes] < 0x80 {
            dataBytes += 1
        }
        // Stored as an event of its own (with its data), a delta time follows; slipped
        // in before an event, the event does. Take the reading that makes sense of the
        // most of what follows; on a tie, the first of: with its data, without; a delta
        // time when a data byte follows, the event when a status byte does.
        let limit = position + 1 + dataBytes + Self.lookaheadBytes
        var best = (reach: -1, skipped: 1 + dataBytes, readsDelta: true)
        for skipped in stride(from: 1 + dataBytes, through: 1, by: -1) {
            let next = position + skipped
            let deltaFirst = next >= end || bytes[next] < 0x80
            for delta in [deltaFirst, !deltaFirst] {
                let reach = cleanReach(from: next, end: end, limit: limit, runningStatus: cursor.runningStatus, readsDelta: delta)
                if reach > best.reach { best = (reach, skipped, delta) }
            }
        }
        try repair(.strayStatusBytes, track: cursor.index, at: position, bytes: best.skipped,
                   strictError: .unexpectedStatusByte(first))
        cursor.position += best.skipped
        cursor.readsDelta = best.readsDelta
    }

    /// How far past `start` events read cleanly: the offset where the first
    /// one that does not starts, or `limit` when they reach it (or the track's
    /// end) cleanly. Reads without recording anything.
    private func cleanReach(from start: Int, end: Int, limit: Int, runningStatus: UInt8, readsDelta firstReadsDelta: Bool) -> Int {
        var position = start
        var status = runningStatus
        var readsDelta = firstReadsDelta
        while position < limit {
            if position == end { return limit }
            let eventStart = position
            if readsDelta {
                guard case .value = readQuantity(&position, end: end), position < end else { return eventStart }
            }
            readsDelta = true
            let first = bytes[position]
            switch first {
            case 0xFF, 0xF0, 0xF7:
                position += first == 0xFF ? 2 : 1
                guard position <= end, case .value(let length) = readQuantity(&position, end: end), length <= end - position else {
                    return eventStart
                }
                position += length
            case 0x00...0xEF:
                if first >= 0x80 {
                    status = first
                    position += 1
                } else if status == 0 {
                    return eventStart
                }
                let needed = MIDIMessage.dataByteCount(forStatus: status) ?? 0
                guard needed <= end - position, bytes[position..<position + needed].allSatisfy({ $0 < 0x80 }) else { return eventStart }
                position += needed
            default:
                // Another stray status byte: skipped with its data bytes, then an event
                // if a status byte follows, else a delta time (the reader's choice on a tie).
                position += 1
                var dataBytes = Self.systemCommonDataCount(first)
                while dataBytes > 0 && position < end && bytes[position] < 0x80 {
                    dataBytes -= 1
                    position += 1
                }
                readsDelta = position >= end || bytes[position] < 0x80
            }
        }
        return limit
    }
}
