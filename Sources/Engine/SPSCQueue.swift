import Synchronization

/// A bounded, wait-free, single-producer/single-consumer queue.
///
/// One thread pushes and one other thread pops; neither ever waits for the
/// other. Storage is allocated once, at init. This is how commands, events and
/// retired objects cross between threads. Each queue has one producer and one
/// consumer thread:
/// - MIDI input ports: midi-in (or the control thread, for the computer
///   keyboard) → audio;
/// - retired plans, synths and kits, and the ALSA driver's events: audio → control;
/// - a recording's gaps and MIDI: audio → writer.
///
/// - Realtime: `push`, `pop`, `peek`, `count`, `hasSpace` are safe (no allocation, no locks).
///   A pushed class reference is retained; the thread that pops it decides where
///   it is finally released, so retired objects are always popped off the audio thread.
public final class SPSCQueue<Element>: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Element>
    @usableFromInline let mask: Int
    /// Next slot to read; written by the consumer only.
    @usableFromInline let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    @usableFromInline let tail = Atomic<Int>(0)

    /// - Parameter capacity: rounded up to a power of two.
    public init(capacity: Int) {
        precondition(capacity > 0)
        var size = 1
        while size < capacity { size <<= 1 }
        storage = .allocate(capacity: size)
        mask = size - 1
    }

    deinit {
        while pop() != nil {}
        storage.deallocate()
    }

    /// - Thread: any
    /// - Realtime: safe
    public var capacity: Int { mask + 1 }

    // MARK: Producer thread

    /// Adds `element` unless the queue is full. Producer thread only.
    /// - Returns: false (and drops nothing: the caller still owns `element`) when full.
    /// - Thread: audio, midi-in, control (whichever is the queue's one producer)
    /// - Realtime: safe
    @inlinable @discardableResult
    public func push(_ element: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t - head.load(ordering: .acquiring) > mask { return false }
        (storage + (t & mask)).initialize(to: element)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    // MARK: Consumer thread

    /// Removes the oldest element, or returns nil when empty. Consumer thread only.
    /// - Thread: audio, control, writer (whichever is the queue's one consumer)
    /// - Realtime: safe
    @inlinable
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let element = (storage + (h & mask)).move()
        head.store(h + 1, ordering: .releasing)
        return element
    }

    /// A copy of the oldest element, left in the queue, or nil when empty.
    /// Consumer thread only. Lets a consumer look at a timestamp before
    /// deciding whether the element is due.
    /// - Thread: audio, control, writer (whichever is the queue's one consumer)
    /// - Realtime: safe
    @inlinable
    public func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        return storage[h & mask]
    }

    // MARK: Any thread

    /// How many elements are waiting; exact for the consumer, a lower bound for others.
    /// - Thread: any
    /// - Realtime: safe
    @inlinable
    public var count: Int { tail.load(ordering: .acquiring) - head.load(ordering: .acquiring) }

    /// Whether a push would succeed now; exact for the producer.
    /// - Thread: any
    /// - Realtime: safe
    @inlinable
    public var hasSpace: Bool { tail.load(ordering: .relaxed) - head.load(ordering: .acquiring) <= mask }
}
