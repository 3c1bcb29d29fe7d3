import MIDI
import Synchronization

/// The channels of a synth that wait for a preset to become resident, and
/// the messages held back for them meanwhile.
///
/// When a program change selects a preset still on disk, its channel waits:
/// every later message on that channel (the note that asked for the
/// instrument, its note-off, pedal, bends) is held here in order, and
/// replayed when the preset is in, so the notes sound late rather than wrong
/// or not at all, and the audio thread never waits. Other channels play on.
/// A channel holds at most `capacity` messages; beyond, messages are
/// dropped and counted.
///
/// Audio thread only, but for `droppedCount`; storage is allocated at init.
final class PresetWaits {
    /// Messages held per waiting channel.
    static let capacity = 256

    /// Bit `n` set: channel `n` waits.
    private(set) var waitingChannels: UInt16 = 0
    /// The preset index each channel waits for.
    private let awaited: UnsafeMutablePointer<Int>
    /// `capacity` messages per channel, a ring each.
    private let held: UnsafeMutablePointer<MIDIMessage>
    private let heads: UnsafeMutablePointer<Int>
    private let counts: UnsafeMutablePointer<Int>
    private let dropped = Atomic<Int>(0)

    /// - Realtime: unsafe (allocates). Control thread.
    init() {
        awaited = .allocate(capacity: 16)
        awaited.initialize(repeating: -1, count: 16)
        held = .allocate(capacity: 16 * Self.capacity)
        held.initialize(repeating: .systemReset, count: 16 * Self.capacity)
        heads = .allocate(capacity: 16)
        heads.initialize(repeating: 0, count: 16)
        counts = .allocate(capacity: 16)
        counts.initialize(repeating: 0, count: 16)
    }

    deinit {
        awaited.deallocate()
        held.deinitialize(count: 16 * Self.capacity)
        held.deallocate()
        heads.deallocate()
        counts.deallocate()
    }

    /// Messages dropped because a waiting channel's queue was full.
    /// - Thread: any
    /// - Realtime: safe
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    // MARK: Audio thread

    /// Whether `channel` (0–15) waits.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    func isWaiting(_ channel: Int) -> Bool { waitingChannels & (1 << UInt16(channel)) != 0 }

    /// The preset `channel` waits for, or nil.
    /// - Thread: audio
    /// - Realtime: safe
    func awaitedPreset(_ channel: Int) -> Int? { isWaiting(channel) ? awaited[channel] : nil }

    /// Holds `message` back if its channel waits.
    /// - Returns: true when held (or dropped); false when the message should be applied now.
    /// - Thread: audio
    /// - Realtime: safe
    func hold(_ message: MIDIMessage) -> Bool {
        guard waitingChannels != 0, let channel = message.channel.map(Int.init), channel < 16, isWaiting(channel) else { return false }
        let count = counts[channel]
        guard count < Self.capacity else {
            dropped.add(1, ordering: .relaxed)
            return true
        }
        held[channel * Self.capacity + (heads[channel] + count) % Self.capacity] = message
        counts[channel] = count + 1
        return true
    }

    /// Makes `channel` wait for the preset at `index`; messages already held stay, in order.
    /// - Thread: audio
    /// - Realtime: safe
    func wait(_ channel: Int, for index: Int) {
        awaited[channel] = index
        waitingChannels |= 1 << UInt16(channel)
    }

    /// Ends `channel`'s wait; its held messages stay for `nextHeld`.
    /// - Thread: audio
    /// - Realtime: safe
    func endWait(_ channel: Int) {
        waitingChannels &= ~(1 << UInt16(channel))
        awaited[channel] = -1
    }

    /// The oldest message held for `channel`, removed, or nil.
    /// - Thread: audio
    /// - Realtime: safe
    func nextHeld(_ channel: Int) -> MIDIMessage? {
        guard counts[channel] > 0 else { return nil }
        let message = held[channel * Self.capacity + heads[channel]]
        heads[channel] = (heads[channel] + 1) % Self.capacity
        counts[channel] -= 1
        return message
    }

    /// Ends every wait and drops every held message (a system reset).
    /// - Thread: audio
    /// - Realtime: safe
    func clear() {
        for channel in 0..<16 {
            heads[channel] = 0
            counts[channel] = 0
            awaited[channel] = -1
        }
        waitingChannels = 0
    }
}
