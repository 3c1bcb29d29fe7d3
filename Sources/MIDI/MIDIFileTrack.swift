/// One MTrk chunk of a Standard MIDI File: its events in file order.
public struct MIDIFileTrack: Equatable, Hashable, Sendable {
    /// The events in the order they appear in the file (so ticks never decrease).
    /// An End of Track meta event, when the file has one, is the last.
    public var events: [MIDIFileEvent]

    public init(events: [MIDIFileEvent]) {
        self.events = events
    }

    /// The tick of the last event (the End of Track event when present); 0 for an empty track.
    public var endTick: Int { events.last?.tick ?? 0 }

    /// The first track name meta event's text.
    public var name: String? {
        for event in events {
            if case .meta(let meta) = event.kind, case .text(.trackName, _) = meta { return meta.text }
        }
        return nil
    }

    /// The tempo changes of this track as (tick, microseconds per quarter note), in order.
    public var tempoChanges: [(tick: Int, microsecondsPerQuarterNote: UInt32)] {
        events.compactMap { event in
            if case .meta(.tempo(let tempo)) = event.kind { return (event.tick, tempo) }
            return nil
        }
    }

    /// The time signatures of this track as (tick, numerator, power of two of
    /// the denominator), in order: 6/8 is (6, 3).
    public var timeSignatures: [(tick: Int, numerator: UInt8, denominatorPowerOfTwo: UInt8)] {
        events.compactMap { event in
            if case .meta(.timeSignature(let numerator, let power, _, _)) = event.kind { return (event.tick, numerator, power) }
            return nil
        }
    }
}
