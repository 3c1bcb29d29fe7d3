import Benchmarks
import MIDI
import XCTest

/// What `busker bench --stage` plays is what it says it plays: the song is
/// 16 channels with 15 programs of their own and drums on channel 10, the
/// keyboard holds a 16-note chord over a running part and plays 16ths on
/// channel 10, and no note outlives the loop.
final class StageBenchMIDITests: XCTestCase {
    /// The channel messages of `file`, in the order they play, with their ticks.
    private func messages(_ file: StandardMIDIFile) -> [(tick: Int, message: MIDIMessage)] {
        file.mergedEvents().compactMap { event in
            if case .message(let message) = event.kind { return (event.tick, message) }
            return nil
        }
    }

    /// Every note-on is ended before the file's end, and nothing is left held.
    private func assertEveryNoteEnds(_ file: StandardMIDIFile, file path: StaticString = #filePath, line: UInt = #line) {
        var held: [Int: Int] = [:]
        for (tick, message) in messages(file) {
            XCTAssertLessThan(tick, file.endTick, "an event at or past the loop point", file: path, line: line)
            switch message {
            case let .noteOn(channel, note, velocity) where velocity > 0: held[Int(channel) * 128 + Int(note), default: 0] += 1
            case let .noteOff(channel, note, _): held[Int(channel) * 128 + Int(note), default: 0] -= 1
            default: break
            }
        }
        XCTAssertEqual(held.values.filter { $0 != 0 }.count, 0, "notes left held: \(held.filter { $0.value != 0 })", file: path, line: line)
    }

    func testTheSongPlays16ChannelsWith15ProgramsAndDrumsOnChannel10() {
        let song = StageBenchMIDI.backingSong()
        let all = messages(song)
        var programs: [UInt8: UInt8] = [:]
        var noteChannels: Set<UInt8> = []
        for (_, message) in all {
            if case let .programChange(channel, program) = message { programs[channel] = program }
            if case let .noteOn(channel, _, velocity) = message, velocity > 0 { noteChannels.insert(channel) }
        }
        XCTAssertEqual(noteChannels, Set(0...15), "notes on every channel")
        XCTAssertEqual(Set(programs.keys), Set(0...15))
        let melodic = programs.filter { $0.key != 9 }.map(\.value)
        XCTAssertEqual(Set(melodic).count, 15, "15 different programs: \(programs)")
        // 4 bars at 120 BPM, 480 ticks a quarter: 8 s.
        XCTAssertEqual(song.endTick, 4 * 4 * 480)
        XCTAssertEqual(song.tempoMap().seconds(atTick: song.endTick), 8, accuracy: 1e-9)
        assertEveryNoteEnds(song)
    }

    func testThePerformanceHoldsA16NoteChordOverARunningPartAndDrumsIn16ths() {
        let withChord = messages(StageBenchMIDI.performance(chord: true))
        let atTop = withChord.filter { $0.tick == 0 }.compactMap { event -> UInt8? in
            if case let .noteOn(0, note, velocity) = event.message, velocity > 0 { return note }
            return nil
        }
        // The chord's 16 keys and the running part's first note (C5, also one of the chord's), on channel 1.
        XCTAssertEqual(atTop.count, 17, "\(atTop)")
        XCTAssertEqual(Set(atTop), Set(StageBenchMIDI.chordNotes))
        XCTAssertEqual(StageBenchMIDI.chordNotes.count, 16)
        // Channel 10: a hi-hat (42) on each of the 64 sixteenths of the four bars.
        let sixteenth = 480 / 4
        let hats = withChord.filter {
            if case let .noteOn(9, 42, velocity) = $0.message { return velocity > 0 }
            return false
        }.map(\.tick)
        XCTAssertEqual(hats, (0..<64).map { $0 * sixteenth })
        assertEveryNoteEnds(StageBenchMIDI.performance(chord: true))

        // Without the chord, only the chord's notes are gone.
        let without = messages(StageBenchMIDI.performance(chord: false))
        XCTAssertEqual(withChord.count - without.count, 2 * 2 * 16, "two strikes of 16 keys, on and off")
    }

    func testPrivateMemoryReadsRssAnonAndRssFileOfAStatusText() throws {
        // As the kernel writes it: a tab, then the number right-aligned in 8 columns (none left past 8 digits).
        let status = "Name:\tbusker\nVmRSS:\t  150000 kB\nRssAnon:\t   20700 kB\nRssFile:\t123456789 kB\nRssShmem:\t  102600 kB\n"
        let memory = try XCTUnwrap(PrivateMemory.parse(status: status))
        XCTAssertEqual(memory.anonymous, 20700 * 1024)
        XCTAssertEqual(memory.file, 123_456_789 * 1024)
        XCTAssertEqual(memory.total, (20700 + 123_456_789) * 1024, "shared memory is not counted")
        XCTAssertNil(PrivateMemory.parse(status: "Name:\tbusker\nVmRSS:\t1 kB\n"))
        XCTAssertNotNil(PrivateMemory.current(), "this process's own status has both")
    }
}
