/// A Standard MIDI File (SMF), read completely into memory: formats 0, 1 and 2,
/// metrical and SMPTE time, meta and SysEx events, and `.kar` karaoke files
/// (which are format 1 SMFs with lyrics in text events; see ``lyrics()``).
///
/// Reading never trusts the file: every length is checked against what is left
/// before anything is allocated or read. Read forgivingly (the default), a
/// damaged file gives every event that can be recovered and a list of
/// ``repairs`` saying what was skipped and where; only data that is not a MIDI
/// file at all (no "MThd", a header that cannot be read) throws. Read strictly,
/// any departure from the specification throws a ``MIDIFileError`` naming the
/// byte offset of the problem.
///
/// - Realtime: unsafe (allocates). Read files on the loader or control thread
///   and hand the resulting events to the audio thread.
public struct StandardMIDIFile: Equatable, Hashable, Sendable {
    /// The SMF formats.
    public enum Format: UInt16, Equatable, Hashable, Sendable {
        /// One multi-channel track.
        case singleTrack = 0
        /// Simultaneous tracks sharing one timeline; the first track holds the tempo map.
        case simultaneousTracks = 1
        /// Independent single-track patterns, each with its own tempo events.
        case independentTracks = 2
    }

    /// How much damage reading accepts.
    public enum ReadingMode: Equatable, Sendable {
        /// Any departure from the specification throws (for tests and tools
        /// that check files Busker writes).
        case strict
        /// Damage found in files in the wild is worked around and recorded in
        /// ``StandardMIDIFile/repairs``; only non-MIDI data throws.
        case forgiving
    }

    public var format: Format
    public var division: MIDITimeDivision
    public var tracks: [MIDIFileTrack]
    /// The damage forgiving reading worked around, in the order first met; empty for a sound file.
    public var repairs: [MIDIFileRepair]

    public init(format: Format, division: MIDITimeDivision, tracks: [MIDIFileTrack], repairs: [MIDIFileRepair] = []) {
        self.format = format
        self.division = division
        self.tracks = tracks
        self.repairs = repairs
    }

    /// Reads a file from its bytes.
    /// - Throws: ``MIDIFileError`` with the byte offset of the first problem:
    ///   forgiving, only when the data is not a MIDI file (no "MThd", empty, a
    ///   header that cannot be read); strict, at any damage.
    public init(bytes: [UInt8], mode: ReadingMode = .forgiving) throws(MIDIFileError) {
        var parser = StandardMIDIFileParser(bytes: bytes, mode: mode)
        self = try parser.parse()
    }

    /// The repairs in one line for the user, or nil when there were none, for example
    /// `recovered from damage: 3 stray status bytes skipped in track 2 (first at byte 1234); track 2 ends 1 byte short`.
    public var repairSummary: String? {
        repairs.isEmpty ? nil : "recovered from damage: " + repairs.map(\.description).joined(separator: "; ")
    }

    // MARK: Timing

    /// The tempo map that times `trackIndex`.
    ///
    /// In formats 0 and 1 one map times every track, built from the tempo
    /// events of the first track (format 1 puts the tempo map in the first
    /// track, per the specification; tempo events elsewhere are ignored). In
    /// format 2 each track is its own sequence with its own tempo events.
    public func tempoMap(forTrack trackIndex: Int = 0) -> MIDITempoMap {
        let source = format == .independentTracks ? trackIndex : 0
        let changes = tracks.indices.contains(source) ? tracks[source].tempoChanges : []
        return MIDITempoMap(division: division, tempoChanges: changes)
    }

    /// One track's events on the timeline.
    public func timedEvents(ofTrack trackIndex: Int) -> [MIDIFileTimedEvent] {
        let map = tempoMap(forTrack: trackIndex)
        return tracks[trackIndex].events.map {
            MIDIFileTimedEvent(tick: $0.tick, seconds: map.seconds(atTick: $0.tick), trackIndex: trackIndex, kind: $0.kind)
        }
    }

    /// Every event to play, merged into time order.
    ///
    /// Events at the same tick stay in a fixed order: by track, then in file
    /// order within the track (so a program change before a note on in the
    /// same track still comes first). For format 2, whose tracks are
    /// independent sequences not meant to sound together, this is the first
    /// sequence; use ``timedEvents(ofTrack:)`` for the others.
    public func mergedEvents() -> [MIDIFileTimedEvent] {
        if format == .independentTracks {
            return tracks.isEmpty ? [] : timedEvents(ofTrack: 0)
        }
        // Sort on (tick, track, position in track): a total order, so the
        // result does not depend on the sort being stable.
        let map = tempoMap()
        var keyed: [(tick: Int, track: Int, index: Int)] = []
        keyed.reserveCapacity(tracks.reduce(0) { $0 + $1.events.count })
        for (track, content) in tracks.enumerated() {
            for (index, event) in content.events.enumerated() { keyed.append((event.tick, track, index)) }
        }
        keyed.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
        return keyed.map { key in
            MIDIFileTimedEvent(tick: key.tick, seconds: map.seconds(atTick: key.tick), trackIndex: key.track,
                               kind: tracks[key.track].events[key.index].kind)
        }
    }

    /// The length of the song in ticks: the latest track end (format 0/1) or the first sequence's end (format 2).
    public var endTick: Int {
        format == .independentTracks ? (tracks.first?.endTick ?? 0) : tracks.map(\.endTick).max() ?? 0
    }
}
