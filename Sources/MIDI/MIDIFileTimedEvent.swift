/// A file event placed on the playback timeline: its tick, its time in
/// seconds through the tempo map, and the track it came from.
public struct MIDIFileTimedEvent: Equatable, Hashable, Sendable {
    /// Absolute tick (the same tick base for every track of a format 0/1 file).
    public var tick: Int
    /// Seconds from the start, through the file's tempo map.
    public var seconds: Double
    /// Index of the track in ``StandardMIDIFile/tracks``.
    public var trackIndex: Int
    public var kind: MIDIFileEvent.Kind

    public init(tick: Int, seconds: Double, trackIndex: Int, kind: MIDIFileEvent.Kind) {
        self.tick = tick
        self.seconds = seconds
        self.trackIndex = trackIndex
        self.kind = kind
    }
}
