/// One event of a Standard MIDI File track, at its absolute time in ticks.
public struct MIDIFileEvent: Equatable, Hashable, Sendable {
    /// What a track event can be.
    public enum Kind: Equatable, Hashable, Sendable {
        /// A channel voice or mode message (files hold no system common or real-time messages).
        case message(MIDIMessage)
        /// An F0 event: the bytes to send after F0, as stored (normally ending
        /// with F7; without it, F7 "escape" events continue the message).
        case sysEx([UInt8])
        /// An F7 "escape" event: bytes to send exactly as stored, such as the
        /// continuation of a SysEx split into packets, or real-time messages.
        case escape([UInt8])
        /// A meta event.
        case meta(MIDIMetaEvent)
    }

    /// Ticks from the start of the track (the sum of the delta times so far).
    public var tick: Int
    public var kind: Kind

    public init(tick: Int, kind: Kind) {
        self.tick = tick
        self.kind = kind
    }
}
