/// Which notes one MIDI source is holding down, and since when.
///
/// The engine keeps one per source so that it can end exactly that source's
/// notes when the source stops, disconnects or is lost (a note-off for every
/// held key and a sustain release on every channel whose pedal is down),
/// and so that a watchdog can end notes held longer than a limit. Sending
/// note-offs rather than "All Notes Off" leaves other sources' notes alone.
///
/// Storage (16 channels × 128 notes) is allocated at init; `observe`,
/// `releaseAll` and `releaseNotes(startedBefore:)` never allocate.
public final class HeldNotes: @unchecked Sendable {
    private static let free: Int64 = -1
    /// Start frame of each held note, `free` when not held; index channel * 128 + note.
    private let startFrames: UnsafeMutablePointer<Int64>
    /// Bit n set: the sustain pedal (CC 64) is down on channel n.
    public private(set) var sustainedChannels: UInt16 = 0
    /// The frame each channel's pedal went down, for the watchdog.
    private let pedalFrames: UnsafeMutablePointer<Int64>
    /// How many notes are held.
    public private(set) var count = 0

    public init() {
        startFrames = .allocate(capacity: 16 * 128)
        startFrames.initialize(repeating: Self.free, count: 16 * 128)
        pedalFrames = .allocate(capacity: 16)
        pedalFrames.initialize(repeating: 0, count: 16)
    }

    deinit {
        startFrames.deallocate()
        pedalFrames.deallocate()
    }

    // MARK: Audio thread

    /// Whether `note` on `channel` is held.
    /// - Thread: audio
    /// - Realtime: safe
    public func isHeld(channel: UInt8, note: UInt8) -> Bool {
        startFrames[Int(channel & 0x0F) * 128 + Int(note & 0x7F)] != Self.free
    }

    /// Updates the state for a message the source sent at `frame`.
    /// - Thread: audio
    /// - Realtime: safe
    public func observe(_ message: MIDIMessage, at frame: Int64) {
        switch message {
        case .noteOn(let channel, let note, let velocity):
            if velocity == 0 { release(channel: channel, note: note) } else { hold(channel: channel, note: note, at: frame) }
        case .noteOff(let channel, let note, _):
            release(channel: channel, note: note)
        case .controlChange(let channel, let controller, let value):
            let bit = UInt16(1) << UInt16(channel & 0x0F)
            switch controller {
            case 64:
                if value >= 64 {
                    if sustainedChannels & bit == 0 { pedalFrames[Int(channel & 0x0F)] = frame }
                    sustainedChannels |= bit
                } else {
                    sustainedChannels &= ~bit
                }
            case 120, 123, 124, 125, 126, 127:
                // All Sound Off, All Notes Off and the mode changes (which imply it).
                for note in 0..<128 { release(channel: channel, note: UInt8(note)) }
            case 121:
                // Reset All Controllers lifts the pedal.
                sustainedChannels &= ~bit
            default:
                break
            }
        case .systemReset:
            clear()
        default:
            break
        }
    }

    /// Calls `emit` with a note-off for every held note and a sustain-off for
    /// every channel whose pedal is down, then forgets them all.
    /// - Returns: how many messages were emitted.
    /// - Thread: audio
    /// - Realtime: safe (`emit` must be too)
    @discardableResult
    public func releaseAll(_ emit: (MIDIMessage) -> Void) -> Int {
        var emitted = 0
        if count > 0 {
            for index in 0..<(16 * 128) where startFrames[index] != Self.free {
                emit(.noteOff(channel: UInt8(index / 128), note: UInt8(index % 128), velocity: 0))
                emitted += 1
            }
        }
        for channel in 0..<16 where sustainedChannels & (1 << channel) != 0 {
            emit(.controlChange(channel: UInt8(channel), controller: 64, value: 0))
            emitted += 1
        }
        clear()
        return emitted
    }

    /// Calls `emit` with a note-off for every note held since before `frame`,
    /// and a sustain-off for every pedal down since before it, and forgets
    /// them. The watchdog for stuck notes (a lost note-off or pedal release).
    /// - Returns: how many notes and pedals were released.
    /// - Thread: audio
    /// - Realtime: safe (`emit` must be too)
    @discardableResult
    public func releaseNotes(startedBefore frame: Int64, _ emit: (MIDIMessage) -> Void) -> Int {
        var released = 0
        if count > 0 {
            for index in 0..<(16 * 128) where startFrames[index] != Self.free && startFrames[index] < frame {
                startFrames[index] = Self.free
                count -= 1
                released += 1
                emit(.noteOff(channel: UInt8(index / 128), note: UInt8(index % 128), velocity: 0))
            }
        }
        for channel in 0..<16 where sustainedChannels & (1 << channel) != 0 && pedalFrames[channel] < frame {
            sustainedChannels &= ~(1 << UInt16(channel))
            released += 1
            emit(.controlChange(channel: UInt8(channel), controller: 64, value: 0))
        }
        return released
    }

    /// Forgets every note and pedal without emitting anything.
    /// - Thread: audio
    /// - Realtime: safe
    public func clear() {
        if count > 0 { startFrames.update(repeating: Self.free, count: 16 * 128) }
        count = 0
        sustainedChannels = 0
    }

    /// Marks `note` on `channel` held since `frame`.
    /// - Thread: audio
    /// - Realtime: safe
    private func hold(channel: UInt8, note: UInt8, at frame: Int64) {
        let index = Int(channel & 0x0F) * 128 + Int(note & 0x7F)
        if startFrames[index] == Self.free { count += 1 }
        startFrames[index] = frame
    }

    /// Marks `note` on `channel` released.
    /// - Thread: audio
    /// - Realtime: safe
    private func release(channel: UInt8, note: UInt8) {
        let index = Int(channel & 0x0F) * 128 + Int(note & 0x7F)
        if startFrames[index] != Self.free {
            startFrames[index] = Self.free
            count -= 1
        }
    }
}
