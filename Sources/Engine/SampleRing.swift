import Synchronization

/// A wait-free single-producer/single-consumer ring of Float samples, for
/// streaming audio between threads: file reader → audio thread → file writer,
/// and the recording tap (audio thread) → a take's writer thread. Storage is
/// allocated once.
///
/// - Realtime: `write`, `read` and the counters are safe for their one producer
///   and one consumer thread.
public final class SampleRing: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Float>
    public let capacity: Int
    /// Samples ever read; written by the consumer only.
    private let readCount = Atomic<Int>(0)
    /// Samples ever written; written by the producer only.
    private let writeCount = Atomic<Int>(0)

    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    // MARK: Any thread

    /// Samples waiting to be read. Exact for the consumer.
    /// - Thread: any
    /// - Realtime: safe
    public var availableToRead: Int {
        writeCount.load(ordering: .acquiring) - readCount.load(ordering: .relaxed)
    }

    /// Room for writing. Exact for the producer.
    /// - Thread: any
    /// - Realtime: safe
    public var availableToWrite: Int {
        capacity - (writeCount.load(ordering: .relaxed) - readCount.load(ordering: .acquiring))
    }

    // MARK: Producer thread

    /// Writes up to `count` samples; returns how many fit. Producer only.
    /// - Thread: audio, reader (whichever is the ring's one producer)
    /// - Realtime: safe
    @discardableResult
    public func write(_ source: UnsafePointer<Float>, count: Int) -> Int {
        let w = writeCount.load(ordering: .relaxed)
        let free = capacity - (w - readCount.load(ordering: .acquiring))
        let n = min(count, free)
        if n <= 0 { return 0 }
        let start = w % capacity
        let first = min(n, capacity - start)
        (storage + start).update(from: source, count: first)
        if n > first { storage.update(from: source + first, count: n - first) }
        writeCount.store(w + n, ordering: .releasing)
        return n
    }

    // MARK: Consumer thread

    /// Reads up to `count` samples into `destination`; returns how many. Consumer only.
    /// - Thread: audio, writer, control (whichever is the ring's one consumer)
    /// - Realtime: safe
    @discardableResult
    public func read(into destination: UnsafeMutablePointer<Float>, count: Int) -> Int {
        let r = readCount.load(ordering: .relaxed)
        let available = writeCount.load(ordering: .acquiring) - r
        let n = min(count, available)
        if n <= 0 { return 0 }
        let start = r % capacity
        let first = min(n, capacity - start)
        destination.update(from: storage + start, count: first)
        if n > first { (destination + first).update(from: storage, count: n - first) }
        readCount.store(r + n, ordering: .releasing)
        return n
    }

    /// Drops up to `count` samples without copying them (a consumer skipping
    /// what it will never play, such as a stream's frames from before a seek);
    /// returns how many. Consumer only.
    /// - Thread: audio, writer, control (whichever is the ring's one consumer)
    /// - Realtime: safe
    @discardableResult
    public func discard(count: Int) -> Int {
        let r = readCount.load(ordering: .relaxed)
        let n = min(count, writeCount.load(ordering: .acquiring) - r)
        if n <= 0 { return 0 }
        readCount.store(r + n, ordering: .releasing)
        return n
    }
}
