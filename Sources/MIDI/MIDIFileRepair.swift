/// One kind of damage the forgiving reader found in a Standard MIDI File and
/// worked around: what it was, where it was first seen, how often, and how many
/// bytes of the file it cost.
///
/// Repairs of the same kind in the same track are counted together, so a file
/// with a thousand stray clock bytes gives one repair with `count` 1000. The
/// user sees them all in one line (``StandardMIDIFile/repairSummary``).
public struct MIDIFileRepair: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong and what the reader did about it.
    public enum Kind: Equatable, Hashable, Sendable {
        /// System common or real-time bytes (F1–F6, F8–FE) where an event or a
        /// message's data should be: skipped, with the data bytes F1–F3 carry.
        case strayStatusBytes
        /// Data bytes with no status byte before them and no running status: skipped.
        case strayDataBytes
        /// Channel messages cut short by a status byte: dropped; reading goes on at that byte.
        case incompleteMessages
        /// Events using running status right after a meta or SysEx event, which
        /// cancels it: played with the running status (nothing skipped).
        case runningStatusAfterMetaOrSysEx
        /// The track chunk claims more bytes than the file holds: read up to the
        /// end of the file. `byteCount` is the number of bytes missing.
        case truncatedTrack
        /// An event cut off by the end of its track chunk: dropped.
        case cutOffEvent
        /// A delta time longer than 4 bytes: the rest of the track cannot be
        /// followed and is skipped.
        case unreadableTrackRest
        /// The track has no End of Track event: it ends after its last event (nothing skipped).
        case missingEndOfTrack
        /// Bytes between chunks that are not a chunk header: skipped up to the next "MTrk".
        case damagedChunkHeader
        /// Bytes after the last chunk that are not a chunk: ignored.
        case trailingBytes
        /// The header's format and the tracks disagree (format 0 with several
        /// tracks, or an unknown format): read as format 1 (`count` is the format field).
        case formatReadAsOne(announced: UInt16)
        /// The header announces another number of tracks than the file holds
        /// (`count` is the number found).
        case trackCount(announced: Int)
    }

    public var kind: Kind
    /// The track (index into ``StandardMIDIFile/tracks``), or nil for the file as a whole.
    public var track: Int?
    /// The byte offset in the file of the first occurrence.
    public var offset: Int
    /// How many times it happened (for ``Kind/trackCount(announced:)``, the tracks found;
    /// for ``Kind/formatReadAsOne(announced:)``, the tracks read).
    public var count: Int
    /// How many bytes of the file were skipped (for ``Kind/truncatedTrack``, missing).
    public var byteCount: Int

    public init(kind: Kind, track: Int?, offset: Int, count: Int = 1, byteCount: Int) {
        self.kind = kind
        self.track = track
        self.offset = offset
        self.count = count
        self.byteCount = byteCount
    }

    /// A phrase for the one-line summary, for example
    /// `3 stray status bytes skipped in track 2 (first at byte 1234)`.
    /// Tracks are numbered from 1, as sequencers show them.
    public var description: String {
        let trackName = track.map { "track \($0 + 1)" } ?? "the file"
        let at = count == 1 ? "at byte \(offset)" : "first at byte \(offset)"
        let bytes = "\(byteCount) byte\(byteCount == 1 ? "" : "s")"
        switch kind {
        case .strayStatusBytes:
            let size = byteCount == count ? "" : ", \(bytes)"
            return "\(counted("stray status byte")) skipped in \(trackName) (\(at)\(size))"
        case .strayDataBytes:
            return "\(counted("stray data byte")) skipped in \(trackName) (\(at))"
        case .incompleteMessages:
            return "\(counted("incomplete message")) dropped in \(trackName) (\(at), \(bytes))"
        case .runningStatusAfterMetaOrSysEx:
            return "running status carried across a meta or SysEx event \(times) in \(trackName) (\(at))"
        case .truncatedTrack:
            return "\(trackName) ends \(bytes) short (the file ends at byte \(offset))"
        case .cutOffEvent:
            return "an unfinished event cut off at the end of \(trackName) (at byte \(offset), \(bytes))"
        case .unreadableTrackRest:
            return "the rest of \(trackName) unreadable (from byte \(offset), \(bytes) skipped)"
        case .missingEndOfTrack:
            return "\(trackName) has no end-of-track event"
        case .damagedChunkHeader:
            return "\(bytes) of damaged chunk header skipped (\(at))"
        case .trailingBytes:
            return "\(bytes) after the last chunk ignored (from byte \(offset))"
        case .formatReadAsOne(let announced):
            return "format \(announced) header with \(count) tracks read as format 1"
        case .trackCount(let announced):
            return "header announces \(announced) track\(announced == 1 ? "" : "s"), the file holds \(count)"
        }
    }

    private func counted(_ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    private var times: String { count == 1 ? "once" : "\(count) times" }
}
