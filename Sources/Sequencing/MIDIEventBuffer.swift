import MIDI

/// A MIDI message placed at a frame of the block being rendered.
public struct ScheduledMIDIEvent: Equatable, Sendable {
    /// Frames from the start of the current block, 0 ..< block frame count.
    public var offset: Int
    public var message: MIDIMessage

    // MARK: Audio thread

    /// - Thread: audio
    /// - Realtime: safe
    public init(offset: Int, message: MIDIMessage) {
        self.offset = offset
        self.message = message
    }
}

/// The MIDI events of one audio cycle, in frame order, as instruments see them.
///
/// `MIDIScheduler` fills it at the start of each cycle. When the engine splits
/// a cycle into several blocks (a driver period larger than the plan's maximum
/// block), the buffer shows each block only its own events, with offsets
/// relative to that block. An instrument's render therefore reads
/// `events[0 ..< events.count]`, renders up to each event's `offset`, applies
/// it, and goes on: that is how a note starts at its frame and not at the
/// start of the block (JUCE's `MidiBuffer` in `processBlock`, the same idea).
///
/// Storage is allocated once; events beyond the capacity in one cycle are
/// dropped and counted, never allocated for.
public final class MIDIEventBuffer: @unchecked Sendable {
    // MARK: Audio thread only
    private let storage: UnsafeMutablePointer<ScheduledMIDIEvent>
    public let capacity: Int
    /// Events in the whole cycle, offsets relative to the cycle start.
    private(set) var cycleCount = 0
    private var windowStart = 0
    private var windowEnd = 0
    private var windowOffset = 0
    /// Events dropped because a cycle was full. The audio thread's count: read
    /// it there or once rendering has stopped (others use `MIDIScheduler.overflowCount`).
    public private(set) var overflowCount = 0

    public init(capacity: Int = 2048) {
        precondition(capacity > 0)
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
    }

    deinit {
        storage.deallocate()
    }

    // MARK: Audio thread: instruments

    /// Events in the current block.
    /// - Thread: audio
    /// - Realtime: safe
    public var count: Int { windowEnd - windowStart }

    /// The `index`th event of the current block, its offset relative to the block.
    /// - Thread: audio
    /// - Realtime: safe
    public subscript(index: Int) -> ScheduledMIDIEvent {
        var event = storage[windowStart + index]
        event.offset -= windowOffset
        return event
    }

    // MARK: Audio thread: scheduler

    /// Events the cycle can still take.
    /// - Thread: audio
    /// - Realtime: safe
    var freeSpace: Int { capacity - cycleCount }

    /// Empties the buffer for a new cycle.
    /// - Thread: audio
    /// - Realtime: safe
    func beginCycle() {
        cycleCount = 0
        windowStart = 0
        windowEnd = 0
        windowOffset = 0
    }

    /// Inserts `message` at `offset` frames into the cycle, after any event
    /// already at that offset (so each source's order is kept, and sources
    /// merge by time).
    /// - Returns: false when the buffer is full (the event is counted as dropped).
    /// - Thread: audio
    /// - Realtime: safe
    @discardableResult
    func insert(_ message: MIDIMessage, at offset: Int) -> Bool {
        guard cycleCount < capacity else {
            overflowCount &+= 1
            return false
        }
        var slot = cycleCount
        while slot > 0 && storage[slot - 1].offset > offset {
            storage[slot] = storage[slot - 1]
            slot -= 1
        }
        storage[slot] = ScheduledMIDIEvent(offset: offset, message: message)
        cycleCount += 1
        windowEnd = cycleCount
        return true
    }

    /// Calls `body` with every message of the cycle, in order.
    /// - Thread: audio
    /// - Realtime: safe (`body` must be too)
    func forEachInCycle(_ body: (MIDIMessage) -> Void) {
        for index in 0..<cycleCount { body(storage[index].message) }
    }

    /// Shows only the events of the block `offset ..< offset + frameCount` of the cycle.
    /// - Thread: audio
    /// - Realtime: safe
    func showBlock(offset: Int, frameCount: Int) {
        var lower = 0
        while lower < cycleCount && storage[lower].offset < offset { lower += 1 }
        var upper = lower
        while upper < cycleCount && storage[upper].offset < offset + frameCount { upper += 1 }
        windowStart = lower
        windowEnd = upper
        windowOffset = offset
    }
}
