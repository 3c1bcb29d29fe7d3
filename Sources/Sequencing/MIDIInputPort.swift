import CRealtimeSupport
import Engine
import MIDI
import Synchronization

/// One MIDI source's lane into the audio thread: a wait-free SPSC queue of
/// timestamped events.
///
/// Exactly one thread sends into a port (the sequencer thread, a raw MIDI
/// reader, the control thread for the computer keyboard); the audio thread
/// drains every port at the start of each cycle through `MIDIScheduler`.
/// Each port's notes are tracked separately, so when a source goes away only
/// its own notes are released.
public final class MIDIInputPort: @unchecked Sendable {
    /// A short name for the TUI and diagnostics ("keyboard", "file", "20:0").
    public let name: String

    // MARK: Shared (atomics)
    let queue: SPSCQueue<MIDIInputEvent>
    /// Set when a release could not be queued; the scheduler releases at its next cycle.
    let releaseRequested = Atomic<Bool>(false)
    private let dropped = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)

    /// - Parameter capacity: events that can wait between two cycles. 4096 is
    ///   about 4 s of a saturated 31 250-baud MIDI cable (about 1000 three-byte
    ///   messages a second), far more than one cycle ever holds.
    public init(name: String, capacity: Int = 4096) {
        self.name = name
        queue = SPSCQueue(capacity: capacity)
    }

    /// The clock that `MIDIEventTime.hostNanoseconds` counts.
    /// - Thread: any
    /// - Realtime: safe (`clock_gettime`, which does not block)
    public static var hostTimeNow: UInt64 { busker_monotonic_nanoseconds() }

    // MARK: Producer thread

    /// Queues `message`. Producer thread only.
    /// - Returns: false when the queue is full; the message is dropped and counted.
    /// - Thread: midi-in, control (whichever is the port's one producer)
    /// - Realtime: safe
    @discardableResult
    public func send(_ message: MIDIMessage, at time: MIDIEventTime = .now) -> Bool {
        if queue.push(MIDIInputEvent(time: time, item: .message(message))) { return true }
        dropped.add(1, ordering: .relaxed)
        return false
    }

    /// Asks the engine to release every note this source holds: call it when the
    /// source stops, disconnects or is lost. Never lost: when the queue is full
    /// a flag carries the request instead. Producer thread only.
    /// - Thread: midi-in, control (whichever is the port's one producer)
    /// - Realtime: safe
    public func releaseAllNotes(at time: MIDIEventTime = .now) {
        if !queue.push(MIDIInputEvent(time: time, item: .releaseAllNotes)) {
            releaseRequested.store(true, ordering: .releasing)
        }
    }

    // MARK: Consumer thread

    /// Takes the next event off the queue, for a consumer other than the
    /// audio thread's `MIDIScheduler`: `busker live`, which has no
    /// instruments, reads its MIDI controls on the control thread. A port has
    /// exactly one consumer: never attach a port read here to a scheduler.
    /// A release the queue had no room for comes back as `.releaseAllNotes`.
    /// - Thread: control (the port's one consumer)
    /// - Realtime: safe
    public func receive() -> MIDIInputEvent? {
        if let event = queue.pop() {
            delivered.add(1, ordering: .relaxed)
            return event
        }
        if releaseRequested.exchange(false, ordering: .acquiring) {
            return MIDIInputEvent(time: .now, item: .releaseAllNotes)
        }
        return nil
    }

    // MARK: Any thread

    /// Messages dropped because the queue was full.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }
    /// Messages the audio thread has taken from this port.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var deliveredCount: Int { delivered.load(ordering: .relaxed) }
}
