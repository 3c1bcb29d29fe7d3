import CALSA
import MIDI
import Sequencing

/// The sequencer thread's dispatcher: each event that arrives at Busker's
/// port goes to the `MIDIInputPort` of the source that sent it, and each
/// announcement that a source went away releases that source's notes.
///
/// Sources borrow ports from a fixed pool (`SequencerSourceSlots`), so the
/// engine tracks every source's notes separately; a source that exits, or
/// whose subscription to Busker is removed, gives its port back after a
/// release. Active Sensing is watched per source: once a source has sent
/// one, more than 300 ms without an event from it releases its notes.
///
/// Plain logic over `snd_seq_event_t` values and the clock it is given, so
/// tests drive it with events built in Swift. The sequencer thread owns it
/// and is the only producer of every port in the pool.
/// - Realtime: unsafe (allocates when a client exits; no locks). The sequencer
///   thread, never the audio thread.
public final class SequencerEventRouter {
    /// A change of the sequencer's graph that the owner may act on.
    public enum Notice: Equatable, Sendable {
        /// A port appeared (`auto` may subscribe to it).
        case portStarted(SequencerAddress)
        /// A port went away; its notes have been released.
        case portExited(SequencerAddress)
        /// A client went away with all its ports; their notes have been released.
        case clientExited(UInt8)
        /// `sender` was connected to Busker's port (by Busker or by `aconnect`).
        case subscribed(sender: SequencerAddress)
        /// `sender` was disconnected from Busker's port; its notes have been released.
        case unsubscribed(sender: SequencerAddress)
    }

    /// What the router has seen, for the TUI.
    public struct Counters: Equatable, Sendable {
        /// Every event routed, announcements included.
        public var events = 0
        public var messagesForwarded = 0
        /// Messages not forwarded (clock, quarter frames, active sensing; see `RawMIDIInput.forwardsToEngine`).
        public var messagesFiltered = 0
        public var sysExEvents = 0
        /// Events from a source that no port of the pool was free for.
        public var droppedWithoutSlot = 0
        /// Releases sent because a source exited, was unsubscribed or fell silent.
        public var releases = 0
        public var activeSensingTimeouts = 0
        public init() {}
    }

    /// The pool, fixed at init; slot n sends into `ports[n]`.
    public let ports: [MIDIInputPort]
    /// Busker's own port: subscription notices for it concern Busker.
    public let ownAddress: SequencerAddress
    public private(set) var slots: SequencerSourceSlots
    public private(set) var counters = Counters()
    /// Per slot: when its source last sent anything, once it has sent Active Sensing; else nil.
    private var lastEventWhileSensing: [UInt64?]

    public init(ports: [MIDIInputPort], ownAddress: SequencerAddress) {
        precondition(!ports.isEmpty, "the sequencer input needs at least one MIDIInputPort")
        self.ports = ports
        self.ownAddress = ownAddress
        slots = SequencerSourceSlots(capacity: ports.count)
        lastEventWhileSensing = Array(repeating: nil, count: ports.count)
    }

    /// Routes one event received at `hostTime` (CLOCK_MONOTONIC ns).
    /// - Returns: a notice for announcements the owner may act on, else nil.
    /// - Thread: midi-in
    /// - Realtime: unsafe (allocates when a client exits: `SequencerSourceSlots.freeClient`)
    @discardableResult
    public func route(_ event: snd_seq_event_t, at hostTime: UInt64) -> Notice? {
        counters.events += 1
        let type = UInt32(event.type)
        switch type {
        case SND_SEQ_EVENT_CLIENT_EXIT.rawValue:
            let client = event.data.addr.client
            for slot in slots.freeClient(client) { release(slot, at: hostTime) }
            return .clientExited(client)
        case SND_SEQ_EVENT_PORT_EXIT.rawValue:
            let address = SequencerAddress(event.data.addr)
            if let slot = slots.free(address) { release(slot, at: hostTime) }
            return .portExited(address)
        case SND_SEQ_EVENT_PORT_START.rawValue:
            return .portStarted(SequencerAddress(event.data.addr))
        case SND_SEQ_EVENT_PORT_SUBSCRIBED.rawValue, SND_SEQ_EVENT_PORT_UNSUBSCRIBED.rawValue:
            let sender = SequencerAddress(event.data.connect.sender)
            guard SequencerAddress(event.data.connect.dest) == ownAddress else { return nil }
            guard type == SND_SEQ_EVENT_PORT_UNSUBSCRIBED.rawValue else { return .subscribed(sender: sender) }
            if let slot = slots.free(sender) { release(slot, at: hostTime) }
            return .unsubscribed(sender: sender)
        default:
            break
        }
        let source = SequencerAddress(event.source)
        // The System client only announces; it never plays.
        guard !source.isSystem else { return nil }
        if let slot = slots.slot(of: source), lastEventWhileSensing[slot] != nil {
            lastEventWhileSensing[slot] = hostTime
        }
        if SequencerEventConverter.isSysEx(event) {
            counters.sysExEvents += 1
            return nil
        }
        SequencerEventConverter.convert(event) { message in
            deliver(message, from: source, at: hostTime)
        }
        return nil
    }

    /// When the next Active Sensing timeout falls due, or nil when no source is being watched.
    /// - Thread: midi-in
    /// - Realtime: safe
    public var nextActiveSensingDeadline: UInt64? {
        var earliest: UInt64?
        for case let last? in lastEventWhileSensing {
            let deadline = last + RawMIDIInput.activeSensingTimeoutNanoseconds
            earliest = min(earliest ?? deadline, deadline)
        }
        return earliest
    }

    /// Releases the notes of every watched source silent for more than 300 ms
    /// at `now`; such a source keeps its slot, unwatched until its next Active Sensing.
    /// - Thread: midi-in
    /// - Realtime: safe
    public func checkActiveSensing(at now: UInt64) {
        for slot in lastEventWhileSensing.indices {
            guard let last = lastEventWhileSensing[slot], now >= last + RawMIDIInput.activeSensingTimeoutNanoseconds else { continue }
            counters.activeSensingTimeouts += 1
            release(slot, at: now)
        }
    }

    /// Releases the notes of every port, keeping the sources connected: after
    /// the kernel dropped events (an input overrun), some may have been note-offs.
    /// - Thread: midi-in
    /// - Realtime: safe
    public func releaseNotesAfterLoss(at hostTime: UInt64) {
        for slot in ports.indices { ports[slot].releaseAllNotes(at: .hostNanoseconds(hostTime)) }
    }

    /// Releases every port of the pool (on stop), held or not, and frees every slot.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public func releaseAll(at hostTime: UInt64) {
        for slot in ports.indices {
            if let source = slots.source(inSlot: slot) { _ = slots.free(source) }
            release(slot, at: hostTime)
        }
    }

    /// Sends `message` into the port of `source`'s slot, lending it one;
    /// Active Sensing only starts the watch.
    /// - Thread: midi-in
    /// - Realtime: safe
    private func deliver(_ message: MIDIMessage, from source: SequencerAddress, at hostTime: UInt64) {
        if message == .activeSensing {
            counters.messagesFiltered += 1
            if let slot = slots.assign(source) { lastEventWhileSensing[slot] = hostTime }
            return
        }
        guard RawMIDIInput.forwardsToEngine(message) else {
            counters.messagesFiltered += 1
            return
        }
        guard let slot = slots.assign(source) else {
            counters.droppedWithoutSlot += 1
            return
        }
        ports[slot].send(message, at: .hostNanoseconds(hostTime))
        counters.messagesForwarded += 1
    }

    /// Releases the notes of `slot`'s port and stops watching it.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    private func release(_ slot: Int, at hostTime: UInt64) {
        lastEventWhileSensing[slot] = nil
        ports[slot].releaseAllNotes(at: .hostNanoseconds(hostTime))
        counters.releases += 1
    }
}
