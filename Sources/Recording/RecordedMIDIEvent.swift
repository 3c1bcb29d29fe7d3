import MIDI

/// A MIDI message the recording tap saw, placed on the take's timeline:
/// `frame` counts frames from the take's first sample.
public struct RecordedMIDIEvent: Equatable, Sendable {
    public var frame: Int
    public var message: MIDIMessage

    // MARK: Audio thread

    /// An event at take frame `frame`.
    /// - Thread: audio, control
    /// - Realtime: safe
    public init(frame: Int, message: MIDIMessage) {
        self.frame = frame
        self.message = message
    }
}
