import MIDI
import XCTest

final class ComputerKeyboardTests: XCTestCase {
    func testLetterRowsPlayTwoChromaticOctavesFromMiddleC() {
        let expected: [(Character, Int)] = [
            ("z", 60), ("s", 61), ("x", 62), ("d", 63), ("c", 64), ("v", 65), ("g", 66), ("b", 67), ("h", 68),
            ("n", 69), ("j", 70), ("m", 71), (",", 72), ("l", 73), (".", 74), (";", 75), ("/", 76),
            ("q", 72), ("Q", 73), ("w", 74), ("W", 75), ("e", 76), ("r", 77), ("R", 78), ("t", 79), ("y", 81),
            ("u", 83), ("i", 84), ("o", 86), ("p", 88), ("Z", 61), ("V", 66), ("S", 62), ("J", 71), (":", 76),
        ]
        for (key, note) in expected {
            var keyboard = ComputerKeyboard()
            XCTAssertEqual(keyboard.press(key, at: 0), [.noteOn(channel: 0, note: UInt8(note), velocity: 100)], "key \(key)")
        }
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.press("k", at: 0), [], "unbound keys play nothing")
        XCTAssertEqual(keyboard.press("\u{1B}", at: 0), [])
    }

    func testNumberRowPlaysGMDrumsOnChannelTenWithShiftForAccents() {
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.press("1", at: 0), [.noteOn(channel: 9, note: 36, velocity: 100)])
        XCTAssertEqual(keyboard.press("#", at: 0), [.noteOn(channel: 9, note: 42, velocity: 127)])
        XCTAssertEqual(keyboard.press("=", at: 0), [.noteOn(channel: 9, note: 37, velocity: 100)])
        XCTAssertEqual(keyboard.expire(at: 0.2), [
            .noteOff(channel: 9, note: 36, velocity: 0), .noteOff(channel: 9, note: 37, velocity: 0),
            .noteOff(channel: 9, note: 42, velocity: 0),
        ])
        for (key, note) in ComputerKeyboard.drumRow {
            XCTAssertNotNil(ComputerKeyboard.binding(for: key), "\(key)")
            XCTAssertTrue((35...81).contains(note))
        }
    }

    func testANoteEndsAfterTheHoldAndAutoRepeatKeepsItSounding() {
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.press("z", at: 10.0), [.noteOn(channel: 0, note: 60, velocity: 100)])
        XCTAssertEqual(keyboard.expire(at: 10.5), [])
        // The terminal's first auto-repeat, after its delay, looks like a second tap: it restrikes.
        XCTAssertEqual(keyboard.press("z", at: 10.5), [
            .noteOff(channel: 0, note: 60, velocity: 0), .noteOn(channel: 0, note: 60, velocity: 100),
        ])
        // Auto-repeat every 40 ms while the key is down then extends the note.
        var t = 10.54
        while t < 12 {
            XCTAssertEqual(keyboard.press("z", at: t), [], "repeat at \(t)")
            t += 0.04
        }
        XCTAssertEqual(keyboard.expire(at: t - 0.04 + 0.59), [])
        XCTAssertEqual(keyboard.expire(at: t - 0.04 + 0.61), [.noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(keyboard.releaseAll(), [], "nothing left sounding")
    }

    func testASecondTapRestrikesTheNote() {
        var keyboard = ComputerKeyboard()
        _ = keyboard.press("c", at: 1.0)
        XCTAssertEqual(keyboard.press("c", at: 1.3), [
            .noteOff(channel: 0, note: 64, velocity: 0), .noteOn(channel: 0, note: 64, velocity: 100),
        ])
    }

    func testHeldDrumKeysDoNotMachineGun() {
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.press("2", at: 0).count, 1)
        XCTAssertEqual(keyboard.press("2", at: 0.04), [])
        XCTAssertEqual(keyboard.press("2", at: 0.3), [
            .noteOff(channel: 9, note: 38, velocity: 0), .noteOn(channel: 9, note: 38, velocity: 100),
        ], "closed (it was due at 0.1 s), then struck again")
    }

    func testOctaveKeysShiftWithinTheMIDIRange() {
        var keyboard = ComputerKeyboard()
        _ = keyboard.press("]", at: 0)
        XCTAssertEqual(keyboard.octaveName, "C5")
        XCTAssertEqual(keyboard.press("z", at: 1), [.noteOn(channel: 0, note: 72, velocity: 100)])
        for i in 0..<20 { _ = keyboard.press("[", at: 2 + Double(i)) }
        XCTAssertEqual(keyboard.options.lowerC, 0)
        for i in 0..<20 { _ = keyboard.press("]", at: 30 + Double(i)) }
        XCTAssertEqual(keyboard.options.lowerC, 96, "the top key, E two octaves up, stays at or below 127")
    }

    func testReleaseAllEndsEverythingSounding() {
        var keyboard = ComputerKeyboard()
        _ = keyboard.press("z", at: 0)
        _ = keyboard.press("1", at: 0)
        XCTAssertEqual(keyboard.releaseAll(), [.noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 9, note: 36, velocity: 0)])
        XCTAssertEqual(keyboard.expire(at: 100), [])
    }

    // MARK: Real releases (the kitty keyboard protocol)

    func testWithReleasesANoteSoundsFromKeyDownToKeyUpWithNoTimeLimit() {
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.keyDown("z", keyCode: 122, at: 0), [.noteOn(channel: 0, note: 60, velocity: 100)])
        XCTAssertEqual(keyboard.expire(at: 1000), [], "no hold time runs out")
        XCTAssertEqual(keyboard.keyUp(keyCode: 122, at: 1000), [.noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(keyboard.keyUp(keyCode: 122, at: 1001), [], "a second release ends nothing")
        XCTAssertEqual(keyboard.keyUp(keyCode: 107, at: 1001), [], "k plays nothing and ends nothing")
    }

    /// S and Shift+Z are both C#: the note ends when the last of them comes up.
    func testTwoKeysOnOneNoteEndItAtTheLastRelease() {
        var keyboard = ComputerKeyboard()
        XCTAssertEqual(keyboard.keyDown("s", keyCode: 115, at: 0), [.noteOn(channel: 0, note: 61, velocity: 100)])
        XCTAssertEqual(keyboard.keyDown("Z", keyCode: 122, at: 1), [
            .noteOff(channel: 0, note: 61, velocity: 0), .noteOn(channel: 0, note: 61, velocity: 100),
        ])
        XCTAssertEqual(keyboard.keyUp(keyCode: 115, at: 2), [])
        XCTAssertEqual(keyboard.keyUp(keyCode: 122, at: 3), [.noteOff(channel: 0, note: 61, velocity: 0)])
    }

    /// A press whose release never came (focus lost): the next press of the
    /// key ends the old note before it strikes; Backspace's releaseAll ends all.
    func testALostReleaseEndsAtTheNextPressOrReleaseAll() {
        var keyboard = ComputerKeyboard()
        _ = keyboard.keyDown("z", keyCode: 122, at: 0)
        _ = keyboard.keyDown("]", keyCode: 93, at: 1)
        XCTAssertEqual(keyboard.keyDown("z", keyCode: 122, at: 2), [
            .noteOff(channel: 0, note: 60, velocity: 0), .noteOn(channel: 0, note: 72, velocity: 100),
        ])
        _ = keyboard.keyDown("x", keyCode: 120, at: 3)
        XCTAssertEqual(keyboard.releaseAll(), [.noteOff(channel: 0, note: 72, velocity: 0), .noteOff(channel: 0, note: 74, velocity: 0)])
        XCTAssertEqual(keyboard.keyUp(keyCode: 122, at: 4), [])
    }

    func testLegendNamesEveryKeyInLettersAndSolfege() {
        let keyboard = ComputerKeyboard()
        let letters = keyboard.legend().joined(separator: "\n")
        XCTAssertTrue(letters.contains("z=C4"))
        XCTAssertTrue(letters.contains("p=E6"))
        XCTAssertTrue(letters.contains("1=kick"))
        XCTAssertTrue(keyboard.legend(style: .solfege).joined().contains("z=Do4"))
    }

    func testNoteNames() {
        XCTAssertEqual(NoteName.name(of: 21), "A0")
        XCTAssertEqual(NoteName.name(of: 108), "C8")
        XCTAssertEqual(NoteName.name(of: 61), "C#4")
        XCTAssertEqual(NoteName.name(of: 67, style: .solfege), "Sol4")
        XCTAssertEqual(NoteName.name(of: 0), "C-1")
        XCTAssertEqual(NoteName.frequency(of: 69), 440, accuracy: 1e-9)
        XCTAssertEqual(NoteName.frequency(of: 60), 261.6256, accuracy: 1e-3)
        XCTAssertTrue(NoteName.isBlackKey(70))
        XCTAssertFalse(NoteName.isBlackKey(71))
    }
}
