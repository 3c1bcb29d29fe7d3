import CJACK
import MIDI
import Sequencing
import Synchronization

/// JACK MIDI in: the `midi_in` port's events, read in the process callback
/// just before the cycle renders and queued into one `MIDIInputPort`, each
/// stamped with its frame in that cycle (`MIDIEventTime.cycleFrame`).
///
/// JACK hands a client every event of the cycle at once, each with the frame
/// (`time`, 0 ..< nframes) at which its sender placed it. The port is drained
/// by `MIDIScheduler` in the same callback, right after, so a note sent at
/// frame 37 starts at frame 37 of the cycle Busker renders: exact, no
/// quantising to the block, and no cycle of delay (JACK runs the sender before
/// Busker, as the graph's connections order it). From the port on, JACK MIDI
/// is a source like the others: the same scheduler, held-note tracking and
/// watchdog. Without a scheduler (`busker live`), the control thread is the
/// port's consumer and the frame does not matter.
///
/// Each JACK event is one complete MIDI message (the JACK MIDI rules: no
/// running status). It is parsed on its own by a `MIDIByteParser` at
/// power-up; an event that is not exactly one message (empty, data bytes with no
/// status, cut short, or bytes past the end of its message) is counted in
/// `malformedCount` and skipped. SysEx, clock, MTC and Active Sensing are
/// read and not forwarded (`ignoredCount`), as for raw MIDI input.
///
/// **Disconnects.** JACK merges every source connected to `midi_in` into one
/// buffer: an event does not say who sent it. When a source disconnects
/// (JACK's port-connect callback, off the audio thread), a flag crosses to the
/// process callback, which releases every note `midi_in` holds, after the
/// cycle's own events. With one source connected (the usual case: a keyboard,
/// a sequencer) those are exactly its notes. With several, no client can tell
/// whose a held note is, so all of `midi_in`'s notes end: a note another
/// source still holds stops early (its own note-off later changes nothing),
/// which is better than the disconnected source's note never ending. Other
/// inputs (`--midi`, `--midi-in`, the computer keyboard) have their own ports
/// and are never touched.
public final class JACKMIDIInput: @unchecked Sendable {
    /// The JACK port's short name.
    public static let portName = "midi_in"

    /// The lane into the engine. The process callback is its only producer.
    public let port: MIDIInputPort

    // MARK: Shared (atomics)
    /// Source disconnects the process callback has not acted on yet.
    private let disconnectsPending = Atomic<Int>(0)
    private let connectionCount = Atomic<Int>(0)
    private let eventsRead = Atomic<Int>(0)
    private let eventsMalformed = Atomic<Int>(0)
    private let eventsIgnored = Atomic<Int>(0)
    private let releasesSent = Atomic<Int>(0)

    // MARK: Control thread only (then read by the notification thread)
    private var client: OpaquePointer?
    private var jackPort: OpaquePointer?
    /// `client:midi_in` on the client it follows.
    public private(set) var qualifiedName = JACKMIDIInput.portName

    /// - Parameter port: the lane to queue into: one of a `MIDIScheduler`'s
    ///   ports (`busker play`), or a port the control thread reads (`busker live`).
    public init(port: MIDIInputPort = MIDIInputPort(name: JACKMIDIInput.portName)) {
        self.port = port
    }

    // MARK: Control thread

    /// Follows connections to `midi_in` on `client`: finds the port by name
    /// and installs JACK's port-connect callback, which JACK allows only
    /// before the client is activated. A driver that needs that callback for
    /// itself instead calls `connectionChanged(_:_:connected:)` from its own.
    /// Keep this input alive until the client is closed.
    /// - Returns: false when the client has no `midi_in` or JACK refused the callback.
    /// - Realtime: unsafe. Control thread, before `jack_activate`.
    @discardableResult
    public func follow(client: OpaquePointer) -> Bool {
        guard let clientName = jack_get_client_name(client),
              let midiPort = jack_port_by_name(client, String(cString: clientName) + ":" + Self.portName) else { return false }
        self.client = client
        jackPort = midiPort
        qualifiedName = String(cString: clientName) + ":" + Self.portName
        connectionCount.store(Int(jack_port_connected(midiPort)), ordering: .relaxed)
        let context = Unmanaged.passUnretained(self).toOpaque()
        return jack_set_port_connect_callback(client, { a, b, connected, context in
            guard let context else { return }
            Unmanaged<JACKMIDIInput>.fromOpaque(context).takeUnretainedValue().connectionChanged(a, b, connected: connected != 0)
        }, context) == 0
    }

    // MARK: JACK's notification thread

    /// JACK's port-connect callback: `a` and `b` were connected or disconnected.
    /// Acts only when one of them is `midi_in`; a disconnect asks the process
    /// callback to release the notes `midi_in` holds.
    /// - Thread: JACK's notification thread (not the process thread)
    /// - Realtime: safe (looks the ports up in the client's own table; atomics)
    public func connectionChanged(_ a: jack_port_id_t, _ b: jack_port_id_t, connected: Bool) {
        guard let client, let jackPort else { return }
        guard jack_port_by_id(client, a) == jackPort || jack_port_by_id(client, b) == jackPort else { return }
        // Counted here, not asked of JACK: jack_port_connected may still show the graph
        // before this change (JACK publishes a new graph state at the next cycle).
        if connected {
            connectionCount.add(1, ordering: .relaxed)
        } else {
            if connectionCount.subtract(1, ordering: .relaxed).newValue < 0 { connectionCount.store(0, ordering: .relaxed) }
            sourceDisconnected()
        }
    }

    /// A source left `midi_in`: the next cycle releases the notes it holds.
    /// - Thread: any
    /// - Realtime: safe (an atomic add)
    public func sourceDisconnected() {
        disconnectsPending.add(1, ordering: .releasing)
    }

    // MARK: Audio thread

    /// Reads this cycle's events from `midi_in`'s buffer and queues each at its
    /// frame; then, if a source has disconnected since the last cycle, the
    /// release of `midi_in`'s notes. Call it in the process callback before
    /// the engine renders the cycle.
    /// - Parameters:
    ///   - buffer: `jack_port_get_buffer(midi_in, nframes)`, valid during this call.
    ///   - frames: the cycle's nframes.
    /// - Thread: audio (JACK's process callback)
    /// - Realtime: safe (no allocation, no lock: the JACK MIDI calls read the
    ///   port's shared buffer; the parser and the port's queue are fixed-size)
    public func readCycle(buffer: UnsafeMutableRawPointer, frames: Int) {
        let count = Int(jack_midi_get_event_count(buffer))
        var read = 0, malformed = 0, ignored = 0
        var event = jack_midi_event_t()
        for index in 0..<count {
            guard jack_midi_event_get(&event, buffer, UInt32(index)) == 0 else { continue }
            read += 1
            guard let message = parse(event.buffer, size: event.size) else {
                malformed += 1
                continue
            }
            guard forwardsToEngine(message) else {
                ignored += 1
                continue
            }
            port.send(message, at: .cycleFrame(min(Int(event.time), max(0, frames - 1))))
        }
        if read > 0 { eventsRead.add(read, ordering: .relaxed) }
        if malformed > 0 { eventsMalformed.add(malformed, ordering: .relaxed) }
        if ignored > 0 { eventsIgnored.add(ignored, ordering: .relaxed) }
        if disconnectsPending.exchange(0, ordering: .acquiring) > 0 {
            // After this cycle's events: whatever the leaving source sent last is released too.
            port.releaseAllNotes(at: .cycleFrame(0))
            releasesSent.add(1, ordering: .relaxed)
        }
    }

    /// The one message in a JACK event's bytes, or nil when they are not
    /// exactly one complete message.
    /// - Thread: audio
    /// - Realtime: safe
    private func parse(_ bytes: UnsafeMutablePointer<jack_midi_data_t>?, size: Int) -> MIDIMessage? {
        guard let bytes, size > 0 else { return nil }
        // A parser at power-up for each event (a value on the stack): nothing carries over between events.
        var parser = MIDIByteParser()
        var found: MIDIMessage?
        var messages = 0
        var endsAtLastByte = false
        for index in 0..<size {
            parser.parse(bytes[index]) { output in
                guard case .message(let message) = output else { return }
                found = message
                messages += 1
                endsAtLastByte = index == size - 1
            }
        }
        return messages == 1 && endsAtLastByte ? found : nil
    }

    /// Whether a message goes on to the engine: as for raw MIDI input, channel
    /// voice and mode messages, System Reset, Start, Continue, Stop, Song
    /// Position, Song Select and Tune Request do; Timing Clock, MTC quarter
    /// frames, Active Sensing and SysEx do not (Busker follows no external
    /// clock, and no instrument reads SysEx).
    /// - Thread: audio
    /// - Realtime: safe
    private func forwardsToEngine(_ message: MIDIMessage) -> Bool {
        switch message {
        case .timingClock, .timeCodeQuarterFrame, .activeSensing, .systemExclusive: false
        default: true
        }
    }

    // MARK: Any thread

    /// Sources connected to `midi_in`, as of the last connection change.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var connectedSourceCount: Int { connectionCount.load(ordering: .relaxed) }
    /// JACK events read from `midi_in` since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var readCount: Int { eventsRead.load(ordering: .relaxed) }
    /// Events skipped because they were not exactly one complete MIDI message.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var malformedCount: Int { eventsMalformed.load(ordering: .relaxed) }
    /// Well-formed events not forwarded (SysEx, clock, MTC, Active Sensing).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var ignoredCount: Int { eventsIgnored.load(ordering: .relaxed) }
    /// Releases queued because a source disconnected.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var disconnectReleaseCount: Int { releasesSent.load(ordering: .relaxed) }
}

/// The driver hands `midi_in`'s buffer to this input each cycle it renders.
extension JACKMIDIInput: JACKDriver.CycleMIDI {
}
