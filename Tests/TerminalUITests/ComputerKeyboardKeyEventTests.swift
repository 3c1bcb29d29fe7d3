import MIDI
import TerminalUI
import XCTest

/// Scripted byte streams from a terminal speaking the kitty keyboard protocol,
/// read as `Terminal` reads them and played as `busker play` plays them.
final class ComputerKeyboardKeyEventTests: XCTestCase {
    /// Each read at its time (seconds); the messages each read gives, in order.
    private func play(_ reads: [(Double, String)], keyboard: inout ComputerKeyboard) -> [[MIDIMessage]] {
        var input = KeyInput()
        return reads.map { time, bytes in
            input.feed(Array(bytes.utf8)).flatMap { keyboard.play($0, at: time) ?? [] } + keyboard.expire(at: time)
        }
    }

    private let c4: MIDIMessage = .noteOn(channel: 0, note: 60, velocity: 100)

    /// Press, auto-repeat for two seconds, release: one note-on at the press,
    /// one note-off at the release, nothing in between (the timing rules
    /// would have ended it 0.6 s after the last repeat seen, and restruck it).
    func testAHeldKeyHoldsItsNoteUntilTheRelease() {
        var keyboard = ComputerKeyboard()
        var reads: [(Double, String)] = [(0, "\u{1B}[122u")]
        reads += (1...40).map { (0.5 + Double($0) * 0.05, "\u{1B}[122;1:2u") }
        reads += [(3.0, ""), (4.0, "\u{1B}[122;1:3u"), (5.0, "")]
        let out = play(reads, keyboard: &keyboard)
        XCTAssertEqual(out.first, [c4])
        XCTAssertEqual(out.dropFirst().dropLast(2).flatMap { $0 }, [], "repeats and the wait sound nothing")
        XCTAssertEqual(out[out.count - 2], [.noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(out.last, [])
    }

    /// z, c, b down one after another, released in another order: every note
    /// holds until its own key comes up.
    func testAChordHoldsEveryNote() {
        var keyboard = ComputerKeyboard()
        let out = play([
            (0, "\u{1B}[122u"), (0.01, "\u{1B}[99u\u{1B}[98u"), (2, "\u{1B}[99;1:3u"),
            (3, "\u{1B}[98;1:3u\u{1B}[122;1:3u"),
        ], keyboard: &keyboard)
        XCTAssertEqual(out, [
            [c4],
            [.noteOn(channel: 0, note: 64, velocity: 100), .noteOn(channel: 0, note: 67, velocity: 100)],
            [.noteOff(channel: 0, note: 64, velocity: 0)],
            [.noteOff(channel: 0, note: 67, velocity: 0), .noteOff(channel: 0, note: 60, velocity: 0)],
        ])
    }

    /// Shift+Z (C#) released after Shift: the release reports plain z, and
    /// finds the note by its physical key.
    func testAReleaseFindsItsPressWhateverShiftDid() {
        var keyboard = ComputerKeyboard()
        let out = play([(0, "\u{1B}[122:90;2u"), (1, "\u{1B}[57441;1:3u"), (2, "\u{1B}[122;1:3u")], keyboard: &keyboard)
        XCTAssertEqual(out, [[.noteOn(channel: 0, note: 61, velocity: 100)], [], [.noteOff(channel: 0, note: 61, velocity: 0)]])
    }

    /// Drum pads strike once per press (no machine-gun from repeats) and close after their hold.
    func testDrumPadsStrikeOncePerPress() {
        var keyboard = ComputerKeyboard()
        let out = play([(0, "\u{1B}[49u"), (0.05, "\u{1B}[49;1:2u"), (0.2, "\u{1B}[49;1:2u"), (0.3, "\u{1B}[49;1:3u")],
                       keyboard: &keyboard)
        XCTAssertEqual(out, [[.noteOn(channel: 9, note: 36, velocity: 100)], [], [.noteOff(channel: 9, note: 36, velocity: 0)], []])
    }

    /// Split sequences, F5, Ctrl-Right, Alt-z and an unknown CSI between the
    /// notes: exactly the notes of the known keys.
    func testUnknownAndSplitSequencesSoundNothing() {
        var keyboard = ComputerKeyboard()
        let out = play([
            (0, "\u{1B}[15~\u{1B}[1;5C\u{1B}z\u{1B}[2;3;4 q\u{1B}[1"), (0.1, "5;1:3~\u{1B}[12"), (0.2, "2u"),
            (0.3, "\u{1B}[122;1:3"), (0.4, "u"),
        ], keyboard: &keyboard)
        XCTAssertEqual(out, [[], [], [c4], [], [.noteOff(channel: 0, note: 60, velocity: 0)]])
    }

    /// Esc, space and ↑ are the screen's, not the keyboard's; the arrows ← → step the octave.
    func testScreenKeysAreLeftToTheScreen() {
        var keyboard = ComputerKeyboard()
        var input = KeyInput()
        let events = input.feed(Array("\u{1B}[27u\u{1B}[32u\u{1B}[A\u{1B}[C\u{1B}[1;1:3C".utf8))
        XCTAssertEqual(events.count, 5)
        XCTAssertNil(keyboard.play(events[0], at: 0))
        XCTAssertNil(keyboard.play(events[1], at: 0))
        XCTAssertNil(keyboard.play(events[2], at: 0))
        XCTAssertEqual(keyboard.play(events[3], at: 0), [])
        XCTAssertEqual(keyboard.play(events[4], at: 0), [])
        XCTAssertEqual(keyboard.options.lowerC, 72)
    }
}
