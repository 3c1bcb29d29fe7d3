import MIDI

/// What a `RawMIDIInput` is doing and what it has seen, for the TUI and for
/// tests. A snapshot: the reader thread publishes a new one after every read.
public struct RawMIDIInputStatus: Equatable, Sendable, CustomStringConvertible {
    /// Where the reader is in its life.
    public enum State: Equatable, Sendable, CustomStringConvertible {
        /// Opened; `start()` not called yet.
        case notStarted
        /// Running, nothing received yet: an idle device, or a FIFO without a
        /// writer (also again after each writer closes).
        case waiting
        /// Bytes have arrived.
        case receiving
        /// The sender had been sending Active Sensing and then fell silent for
        /// more than 300 ms: the MIDI 1.0 sign of a lost connection. Its notes
        /// were released; reading goes on, and the next byte means `receiving`.
        case sensingTimedOut
        /// A regular file was read to its end; its notes were released.
        case ended
        /// Reading failed (a device unplugged); its notes were released.
        case disconnected(RawMIDIError)
        /// `stop()` ended the reader; its notes were released.
        case stopped

        public var description: String {
            switch self {
            case .notStarted: "not started"
            case .waiting: "waiting for data"
            case .receiving: "receiving"
            case .sensingTimedOut: "sender silent (active sensing lost), notes released"
            case .ended: "ended"
            case .disconnected(let error): "disconnected: \(error)"
            case .stopped: "stopped"
            }
        }

        /// True once the reader thread has finished for good.
        public var isFinal: Bool {
            switch self {
            case .ended, .disconnected, .stopped: true
            default: false
            }
        }
    }

    public var state: State = .notStarted
    /// Bytes read from the path.
    public var bytesRead = 0
    /// Messages sent into the engine's port.
    public var messagesForwarded = 0
    /// Messages read but not forwarded: timing clock, MIDI time code quarter
    /// frames and active sensing (see `RawMIDIInput.forwardsToEngine(_:)`).
    public var messagesFiltered = 0
    /// SysEx messages seen (their payloads are not forwarded).
    public var sysExMessages = 0
    /// How often the Active Sensing timeout released the notes.
    public var activeSensingTimeouts = 0
    /// How often a FIFO's writer closed (each time, the notes were released).
    public var writersClosed = 0
    /// What the parser skipped: stray data bytes, undefined status bytes, …
    public var parser = MIDIParserStatistics()

    public init() {}

    public var description: String {
        var text = "\(state); \(bytesRead) bytes, \(messagesForwarded) messages"
        if parser.total > 0 {
            text += ", skipped: \(parser.strayDataBytes) stray, \(parser.undefinedStatusBytes) undefined, \(parser.incompleteMessages) incomplete"
        }
        return text
    }
}
