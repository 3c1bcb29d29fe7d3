import MIDI
import Synchronization

/// What the screen shows of the MIDI going by: which piano keys are down and
/// which notes and drum pads were struck since the screen last looked.
///
/// The audio thread observes every event it delivers; the control thread
/// reads bitmaps (bit n = note n) through atomics. Struck notes are latched
/// until taken, so a staccato note or a 5 ms drum hit still lights up on a
/// screen that redraws every 33 ms.
public final class NoteActivity: @unchecked Sendable {
    // MARK: Shared (atomics)
    private let heldLow = Atomic<UInt64>(0), heldHigh = Atomic<UInt64>(0)
    private let struckLow = Atomic<UInt64>(0), struckHigh = Atomic<UInt64>(0)
    private let drumLow = Atomic<UInt64>(0), drumHigh = Atomic<UInt64>(0)

    // MARK: Audio thread only
    /// Notes held on the melodic channels (all but GM percussion).
    private let melodic = HeldNotes()

    public init() {}

    // MARK: Audio thread

    /// Notes one delivered message in the held, struck and drum bitmaps.
    /// - Thread: audio
    /// - Realtime: safe
    func observe(_ message: MIDIMessage) {
        let channel: UInt8, note: UInt8
        switch message {
        case .noteOn(let c, let n, _), .noteOff(let c, let n, _):
            channel = c
            note = n
        case .controlChange(let c, let controller, _) where c != 9 && (controller == 120 || controller >= 123):
            // All Sound Off, All Notes Off and the mode changes clear many keys
            // at once; other controllers (mod wheel, pedal) change none.
            melodic.observe(message, at: 0)
            publishHeld()
            return
        case .systemReset:
            melodic.observe(message, at: 0)
            publishHeld()
            return
        default:
            return
        }
        let struck = !message.isNoteOff
        if channel == 9 {
            if struck { Self.set(note, low: drumLow, high: drumHigh) }
            return
        }
        melodic.observe(message, at: 0)
        if struck { Self.set(note, low: struckLow, high: struckHigh) }
        var stillHeld = false
        for c: UInt8 in 0..<16 where c != 9 && melodic.isHeld(channel: c, note: note) {
            stillHeld = true
            break
        }
        let bit = UInt64(1) << UInt64(note & 63)
        switch (note < 64, stillHeld) {
        case (true, true): heldLow.bitwiseOr(bit, ordering: .relaxed)
        case (true, false): heldLow.bitwiseAnd(~bit, ordering: .relaxed)
        case (false, true): heldHigh.bitwiseOr(bit, ordering: .relaxed)
        case (false, false): heldHigh.bitwiseAnd(~bit, ordering: .relaxed)
        }
    }

    /// Recomputes the held bitmaps from `melodic` (after a message that ends many notes).
    /// - Thread: audio
    /// - Realtime: safe
    private func publishHeld() {
        var low: UInt64 = 0, high: UInt64 = 0
        for c: UInt8 in 0..<16 where c != 9 {
            for n: UInt8 in 0..<128 where melodic.isHeld(channel: c, note: n) {
                if n < 64 { low |= 1 << UInt64(n) } else { high |= 1 << UInt64(n - 64) }
            }
        }
        heldLow.store(low, ordering: .relaxed)
        heldHigh.store(high, ordering: .relaxed)
    }

    /// Sets `note`'s bit in the bitmap pair `low`/`high`.
    /// - Thread: audio
    /// - Realtime: safe (an atomic bitwise or)
    private static func set(_ note: UInt8, low: borrowing Atomic<UInt64>, high: borrowing Atomic<UInt64>) {
        let bit = UInt64(1) << UInt64(note & 63)
        if note < 64 { low.bitwiseOr(bit, ordering: .relaxed) } else { high.bitwiseOr(bit, ordering: .relaxed) }
    }

    // MARK: Control thread

    /// Whether piano key `note` is down now (on any melodic channel).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public func isHeld(_ note: Int) -> Bool {
        guard (0..<128).contains(note) else { return false }
        let word = note < 64 ? heldLow.load(ordering: .relaxed) : heldHigh.load(ordering: .relaxed)
        return word & (1 << UInt64(note & 63)) != 0
    }

    /// Melodic notes struck since the last call, as a set of note numbers.
    public func takeStruckNotes() -> Set<Int> {
        Self.notes(low: struckLow.exchange(0, ordering: .relaxed), high: struckHigh.exchange(0, ordering: .relaxed))
    }

    /// Drum notes (channel 10) struck since the last call.
    public func takeDrumHits() -> Set<Int> {
        Self.notes(low: drumLow.exchange(0, ordering: .relaxed), high: drumHigh.exchange(0, ordering: .relaxed))
    }

    private static func notes(low: UInt64, high: UInt64) -> Set<Int> {
        var result = Set<Int>()
        for n in 0..<64 where low & (1 << UInt64(n)) != 0 { result.insert(n) }
        for n in 0..<64 where high & (1 << UInt64(n)) != 0 { result.insert(n + 64) }
        return result
    }
}
