import MIDI

/// When a MIDI event should take effect.
///
/// Live sources stamp events with the monotonic clock as they arrive; the
/// scheduler turns that into a frame of the next audio cycle. Sources that
/// know the engine's timeline (tests, offline renders) use sample times.
public enum MIDIEventTime: Equatable, Hashable, Sendable {
    /// At the start of the next cycle.
    case now
    /// CLOCK_MONOTONIC in nanoseconds (see `MIDIInputPort.hostTimeNow`).
    case hostNanoseconds(UInt64)
    /// An absolute frame on the engine's timeline (frames rendered since start).
    case sample(Int64)
    /// At this frame of the cycle whose start takes it off the queue (clamped
    /// to the cycle). Exact for a source that queues on the audio thread right
    /// before the engine renders the cycle: JACK MIDI, whose events carry
    /// their frame in the process cycle being run.
    case cycleFrame(Int)
}

/// What a MIDI source can send to the engine.
public enum MIDIInputItem: Equatable, Hashable, Sendable {
    /// A message, to be delivered to the instruments.
    case message(MIDIMessage)
    /// The source stopped or went away: release every note it holds (and lift
    /// its sustain pedals). The scheduler turns this into exact note-offs.
    case releaseAllNotes
}

/// One timestamped item in a source's queue. Trivially copyable.
public struct MIDIInputEvent: Equatable, Hashable, Sendable {
    public var time: MIDIEventTime
    public var item: MIDIInputItem

    /// - Thread: midi-in, control (a port's producer builds it)
    /// - Realtime: safe
    public init(time: MIDIEventTime, item: MIDIInputItem) {
        self.time = time
        self.item = item
    }
}
