import MIDI

/// Shifts a song's notes by semitones on the audio thread, remembering which
/// note it sent for each of the song's notes, so a note-off always ends the
/// note its note-on started even when the shift changed in between.
///
/// Note-ons, note-offs and polyphonic pressure of every channel but the drum
/// channel (10, channel 9 here: its notes are drums, not pitches) are shifted.
/// A note-on that would leave 0…127 is dropped, and so are its note-off and
/// pressure. A note struck again while it sounds, under a new shift, first
/// ends the note the earlier shift sent (as a receiver ends a key struck twice).
///
/// Storage (16 × 128 notes) is allocated at init; nothing else allocates.
final class NoteTransposer {
    /// The drum channel, never shifted.
    static var drumChannel: UInt8 { 9 }
    private static var none: Int16 { -1 }
    /// The note sent for each song note that sounds; index channel * 128 + note.
    private let sent: UnsafeMutablePointer<Int16>

    /// - Realtime: unsafe (allocates). Control thread.
    init() {
        sent = .allocate(capacity: 16 * 128)
        sent.initialize(repeating: Self.none, count: 16 * 128)
    }

    deinit {
        sent.deallocate()
    }

    // MARK: Audio thread

    /// Calls `emit` with what the song's `message` becomes under a shift of
    /// `semitones`: nothing, the message shifted, or (a note struck again)
    /// a note-off and the new note-on.
    /// - Thread: audio
    /// - Realtime: safe (`emit` must be too)
    func translate(_ message: MIDIMessage, semitones: Int, _ emit: (MIDIMessage) -> Void) {
        switch message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0 && channel & 0x0F != Self.drumChannel:
            let index = Self.index(channel, note)
            let shifted = Int(note & 0x7F) + semitones
            let previous = sent[index]
            if previous != Self.none && Int(previous) != shifted {
                emit(.noteOff(channel: channel, note: UInt8(previous), velocity: 0))
                sent[index] = Self.none
            }
            guard (0...127).contains(shifted) else { return }
            sent[index] = Int16(shifted)
            emit(.noteOn(channel: channel, note: UInt8(shifted), velocity: velocity))
        case .noteOn(let channel, let note, _) where channel & 0x0F != Self.drumChannel:
            let index = Self.index(channel, note)
            guard sent[index] != Self.none else { return }
            emit(.noteOn(channel: channel, note: UInt8(sent[index]), velocity: 0))
            sent[index] = Self.none
        case .noteOff(let channel, let note, let velocity) where channel & 0x0F != Self.drumChannel:
            let index = Self.index(channel, note)
            guard sent[index] != Self.none else { return }
            emit(.noteOff(channel: channel, note: UInt8(sent[index]), velocity: velocity))
            sent[index] = Self.none
        case .polyPressure(let channel, let note, let pressure) where channel & 0x0F != Self.drumChannel:
            let index = Self.index(channel, note)
            guard sent[index] != Self.none else { return }
            emit(.polyPressure(channel: channel, note: UInt8(sent[index]), pressure: pressure))
        default:
            emit(message)
        }
    }

    /// Forgets every note: the player has ended them all.
    /// - Thread: audio
    /// - Realtime: safe
    func clear() {
        sent.update(repeating: Self.none, count: 16 * 128)
    }

    /// - Thread: audio
    /// - Realtime: safe
    private static func index(_ channel: UInt8, _ note: UInt8) -> Int {
        Int(channel & 0x0F) * 128 + Int(note & 0x7F)
    }
}
