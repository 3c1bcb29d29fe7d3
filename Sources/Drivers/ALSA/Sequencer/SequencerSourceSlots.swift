/// Which sequencer source plays through which of a fixed pool of
/// `MIDIInputPort`s.
///
/// The engine tracks held notes per port, so each source that sends gets a
/// port of its own: when it goes away, exactly its notes are released. The
/// pool is fixed when the scheduler is built, so slots are lent and returned
/// rather than created. A source takes a slot when it first sends something
/// and gives it back when it exits or is unsubscribed.
///
/// A plain value with no locking: it belongs to the sequencer thread.
public struct SequencerSourceSlots: Sendable {
    public let capacity: Int
    private var owners: [SequencerAddress?]

    public init(capacity: Int) {
        precondition(capacity > 0, "a pool of at least one port")
        self.capacity = capacity
        owners = Array(repeating: nil, count: capacity)
    }

    /// The slot `source` holds, if any.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public func slot(of source: SequencerAddress) -> Int? {
        owners.firstIndex(of: source)
    }

    /// The slot `source` holds, lending it the first free one if it holds none.
    /// - Returns: nil when every slot is taken by another source.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public mutating func assign(_ source: SequencerAddress) -> Int? {
        if let held = slot(of: source) { return held }
        guard let free = owners.firstIndex(of: nil) else { return nil }
        owners[free] = source
        return free
    }

    /// Gives back `source`'s slot. - Returns: the slot, or nil if it held none.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public mutating func free(_ source: SequencerAddress) -> Int? {
        guard let held = slot(of: source) else { return nil }
        owners[held] = nil
        return held
    }

    /// Gives back the slots of every port of `client`. - Returns: those slots.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates the returned array)
    public mutating func freeClient(_ client: UInt8) -> [Int] {
        var freed: [Int] = []
        for index in owners.indices where owners[index]?.client == client {
            owners[index] = nil
            freed.append(index)
        }
        return freed
    }

    /// The source holding `slot`, if any.
    /// - Thread: midi-in, control
    /// - Realtime: safe
    public func source(inSlot slot: Int) -> SequencerAddress? {
        owners[slot]
    }

    /// The sources holding slots, by slot.
    public var assignments: [(slot: Int, source: SequencerAddress)] {
        owners.enumerated().compactMap { entry in entry.element.map { (entry.offset, $0) } }
    }
}
