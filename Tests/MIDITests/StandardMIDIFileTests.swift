import XCTest
import MIDI

/// Standard MIDI Files built byte by byte in the tests, with exact expected timings.
final class StandardMIDIFileTests: XCTestCase {
    private func noteOn(_ note: UInt8, _ velocity: UInt8 = 100, channel: UInt8 = 0) -> MIDIFileEvent.Kind {
        .message(.noteOn(channel: channel, note: note, velocity: velocity))
    }

    func testFormat0AtTheDefaultTempoWithRunningStatus() throws {
        // 96 ticks per quarter note, no tempo event: 120 BPM, so a quarter note is 0.5 s.
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([
            (0, [0xC0, 0x05]),
            (0, [0x90, 0x3C, 0x64]),
            (96, [0x3C, 0x00]),          // running status: note on, velocity 0
            (0, [0x40, 0x64]),
            (96, [0x80, 0x40, 0x40]),
            (0, endOfTrack),
        ])
        let file = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(file.format, .singleTrack)
        XCTAssertEqual(file.division, .ticksPerQuarterNote(96))
        XCTAssertEqual(file.tracks.count, 1)
        XCTAssertEqual(file.tracks[0].events, [
            MIDIFileEvent(tick: 0, kind: .message(.programChange(channel: 0, program: 5))),
            MIDIFileEvent(tick: 0, kind: noteOn(0x3C)),
            MIDIFileEvent(tick: 96, kind: noteOn(0x3C, 0)),
            MIDIFileEvent(tick: 96, kind: noteOn(0x40)),
            MIDIFileEvent(tick: 192, kind: .message(.noteOff(channel: 0, note: 0x40, velocity: 0x40))),
            MIDIFileEvent(tick: 192, kind: .meta(.endOfTrack)),
        ])
        let map = file.tempoMap()
        XCTAssertEqual(file.mergedEvents().map(\.seconds), [0, 0, 0.5, 0.5, 1.0, 1.0])
        XCTAssertEqual(map.sampleFrame(atTick: 96, sampleRate: 44_100), 22_050)
        XCTAssertEqual(map.sampleFrame(atTick: 192, sampleRate: 48_000), 48_000)
        XCTAssertEqual(file.endTick, 192)
    }

    func testTempoChangesMidFileAreExactInSecondsAndFrames() throws {
        // 480 ppqn. 120 BPM, then at tick 960 (1.0 s) 240 BPM, then at tick 1920 (1.5 s) 60 BPM.
        let bytes = header(format: 0, trackCount: 1, division: 480) + track([
            (0, tempoEvent(500_000)),
            (480, [0x90, 0x3C, 0x64]),     // 0.5 s
            (480, tempoEvent(250_000)),    // tick 960 = 1.0 s
            (480, [0x90, 0x3E, 0x64]),     // tick 1440 (the meta event cancelled running status) = 1.0 + 480 × 250 000 µs / 480 = 1.25 s
            (480, tempoEvent(1_000_000)),  // tick 1920 = 1.5 s
            (480, [0x90, 0x40, 0x64]),     // tick 2400 = 2.5 s
            (1, [0x41, 0x64]),             // running status; tick 2401 = 2.5 s + 1 000 000/480 µs = 2.502083… s
            (0, endOfTrack),
        ])
        let file = try StandardMIDIFile(bytes: bytes)
        let notes = file.mergedEvents().filter { if case .message = $0.kind { return true } else { return false } }
        XCTAssertEqual(notes.map(\.tick), [480, 1440, 2400, 2401])
        XCTAssertEqual(notes.map(\.seconds), [0.5, 1.25, 2.5, 2.5 + 1.0 / 480])
        let map = file.tempoMap()
        XCTAssertEqual(notes.map { map.sampleFrame(atTick: $0.tick, sampleRate: 48_000) }, [24_000, 60_000, 120_000, 120_100])
        XCTAssertEqual(notes.map { map.sampleFrame(atTick: $0.tick, sampleRate: 44_100) }, [22_050, 55_125, 110_250, 110_342])  // 110 341.875 → 110 342
        XCTAssertEqual(map.microsecondsPerQuarterNote(atTick: 959), 500_000)
        XCTAssertEqual(map.microsecondsPerQuarterNote(atTick: 960), 250_000)
        XCTAssertEqual(map.microsecondsPerQuarterNote(atTick: 100_000), 1_000_000)
        // Exact: 1 second is 480 × 10⁶ units; tick 2401 is 2.5 s + 10⁶ units.
        XCTAssertEqual(map.units(atTick: 2401), 2_500_000 * 480 + 1_000_000)
    }

    func testManyTempoChangesAccumulateNoRoundingError() {
        // 7 ppqn at a tempo change every tick: floating-point accumulation would drift; integers do not.
        let changes = (0..<10_000).map { (tick: $0, microsecondsPerQuarterNote: UInt32(500_000 + $0 % 3)) }
        let map = MIDITempoMap(division: .ticksPerQuarterNote(7), tempoChanges: changes)
        // Σ over 10 000 ticks of (500 000 + t mod 3) µs / 7: 10 000 × 500 000 + (3333 × 3 + 1 × 0) = 5 000 009 999 µs·tick.
        XCTAssertEqual(map.units(atTick: 10_000), 5_000_009_999)
        // × 48 000 / (7 × 10⁶) = 34 285 782.85… → 34 285 783.
        XCTAssertEqual(map.sampleFrame(atTick: 10_000, sampleRate: 48_000), 34_285_783)
    }

    func testFormat1TempoTrackTimesAllTracksAndMergeKeepsTrackThenFileOrder() throws {
        let tempoTrack = track([
            (0, textEvent(0x03, "Song")),
            (0, [0xFF, 0x58, 0x04, 0x04, 0x02, 0x18, 0x08]),  // 4/4
            (0, tempoEvent(600_000)),                          // 100 BPM: a quarter is 0.6 s
            (192, tempoEvent(300_000)),                        // at tick 192 (1.2 s): 200 BPM
            (0, endOfTrack),
        ])
        let piano = track([
            (0, textEvent(0x03, "Piano")),
            (96, [0x90, 0x3C, 0x64]),  // 0.6 s
            (0, [0x90, 0x40, 0x64]),   // same tick, file order kept
            (96, [0x80, 0x3C, 0x00]),  // tick 192: 1.2 s
            (96, [0x80, 0x40, 0x00]),  // tick 288: 1.2 + 0.3 = 1.5 s
            (0, endOfTrack),
        ])
        let drums = track([
            (96, [0x99, 0x24, 0x7F]),  // tick 96, after the piano's two notes at that tick
            (96, [0x89, 0x24, 0x00]),
            (0, tempoEvent(1_000_000)), // tempo outside the tempo track: ignored, as the spec puts the map in track 0
            (96, [0x99, 0x26, 0x7F]),
            (0, endOfTrack),
        ])
        let file = try StandardMIDIFile(bytes: header(format: 1, trackCount: 3, division: 96) + tempoTrack + piano + drums)
        XCTAssertEqual(file.format, .simultaneousTracks)
        XCTAssertEqual(file.tracks.map(\.name), ["Song", "Piano", nil])
        let merged = file.mergedEvents().filter { if case .message = $0.kind { return true } else { return false } }
        XCTAssertEqual(merged.map(\.trackIndex), [1, 1, 2, 1, 2, 1, 2])
        XCTAssertEqual(merged.map(\.kind), [
            noteOn(0x3C), noteOn(0x40), noteOn(0x24, 0x7F, channel: 9),
            .message(.noteOff(channel: 0, note: 0x3C, velocity: 0)), .message(.noteOff(channel: 9, note: 0x24, velocity: 0)),
            .message(.noteOff(channel: 0, note: 0x40, velocity: 0)), noteOn(0x26, 0x7F, channel: 9),
        ])
        XCTAssertEqual(merged.map(\.seconds), [0.6, 0.6, 0.6, 1.2, 1.2, 1.5, 1.5])
        XCTAssertEqual(merged.map { file.tempoMap().sampleFrame(atTick: $0.tick, sampleRate: 48_000) },
                       [28_800, 28_800, 28_800, 57_600, 57_600, 72_000, 72_000])
        // The whole merge: every event of every track, ticks never decreasing.
        let all = file.mergedEvents()
        XCTAssertEqual(all.count, file.tracks.reduce(0) { $0 + $1.events.count })
        XCTAssertEqual(all.map(\.tick), all.map(\.tick).sorted())
        XCTAssertEqual(file.endTick, 288)
    }

    func testFormat2TracksKeepTheirOwnTempo() throws {
        let first = track([(0, tempoEvent(1_000_000)), (96, [0x90, 0x3C, 0x64]), (0, endOfTrack)])
        let second = track([(96, [0x90, 0x3C, 0x64]), (0, endOfTrack)])
        let file = try StandardMIDIFile(bytes: header(format: 2, trackCount: 2, division: 96) + first + second)
        XCTAssertEqual(file.format, .independentTracks)
        XCTAssertEqual(file.timedEvents(ofTrack: 0)[1].seconds, 1.0)
        XCTAssertEqual(file.timedEvents(ofTrack: 1)[0].seconds, 0.5, "the default tempo: track 0's tempo is not track 1's")
        XCTAssertEqual(file.mergedEvents().map(\.trackIndex), [0, 0, 0], "format 2 plays the first sequence")
    }

    func testSMPTEDivisionIgnoresTempo() throws {
        // −25 fps, 40 ticks per frame: 1000 ticks per second (millisecond ticks).
        let division = Int(UInt8(bitPattern: -25)) << 8 | 40
        let bytes = header(format: 0, trackCount: 1, division: division) + track([
            (0, tempoEvent(250_000)),
            (1500, [0x90, 0x3C, 0x64]),
            (1, [0x80, 0x3C, 0x00]),
            (0, endOfTrack),
        ])
        let file = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(file.division, .smpte(.fps25, ticksPerFrame: 40))
        let notes = file.mergedEvents().filter { if case .message = $0.kind { return true } else { return false } }
        XCTAssertEqual(notes.map(\.seconds), [1.5, 1.501])
        XCTAssertEqual(notes.map { file.tempoMap().sampleFrame(atTick: $0.tick, sampleRate: 48_000) }, [72_000, 72_048])
    }

    func testSMPTEDropFrameIs30000Over1001FramesPerSecond() throws {
        let division = Int(UInt8(bitPattern: -29)) << 8 | 4
        let bytes = header(format: 0, trackCount: 1, division: division) + track([(120, [0x90, 0x3C, 0x64]), (0, endOfTrack)])
        let file = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(file.division, .smpte(.fps29_97DropFrame, ticksPerFrame: 4))
        // 120 ticks = 30 frames = 30 × 1001 / 30000 s = 1.001 s = 48 048 frames at 48 kHz.
        XCTAssertEqual(file.mergedEvents()[0].seconds, 1.001, accuracy: 1e-12)
        XCTAssertEqual(file.tempoMap().sampleFrame(atTick: 120, sampleRate: 48_000), 48_048)
        for (rate, fps) in [(-24, 24), (-30, 30)] {
            let other = try StandardMIDIFile(bytes: header(format: 0, trackCount: 1, division: Int(UInt8(bitPattern: Int8(rate))) << 8 | 1) + track([(0, endOfTrack)]))
            XCTAssertEqual(other.tempoMap().seconds(atTick: fps), 1.0)
        }
    }

    func testKaraokeFileLyricsFromTextEvents() throws {
        // The .kar convention: "@KMIDI KARAOKE FILE" in a text event, headers starting
        // with "@", then one text event per syllable; "\" starts a verse, "/" a line.
        let tempoTrack = track([(0, textEvent(0x01, "@KMIDI KARAOKE FILE")), (0, tempoEvent(500_000)), (0, endOfTrack)])
        let words = track([
            (0, textEvent(0x03, "Words")),
            (0, textEvent(0x01, "@LENGL")),
            (0, textEvent(0x01, "@TTwinkle")),
            (96, textEvent(0x01, "\\Twin")),
            (48, textEvent(0x01, "kle ")),
            (48, textEvent(0x01, "/lit")),
            (48, textEvent(0x01, Array("tle caf".utf8) + [0xE9])),  // Latin-1 é, as older .kar files are
            (0, endOfTrack),
        ])
        let melody = track([(96, [0x90, 0x3C, 0x64]), (96, [0x3C, 0x00]), (0, endOfTrack)])
        let file = try StandardMIDIFile(bytes: header(format: 1, trackCount: 3, division: 96) + tempoTrack + words + melody)
        XCTAssertTrue(file.isKaraoke)
        XCTAssertEqual(file.lyrics(), [
            MIDILyric(tick: 96, seconds: 0.5, text: "Twin", startsParagraph: true),
            MIDILyric(tick: 144, seconds: 0.75, text: "kle "),
            MIDILyric(tick: 192, seconds: 1.0, text: "lit", startsLine: true),
            MIDILyric(tick: 240, seconds: 1.25, text: "tle café"),
        ])
    }

    func testLyricMetaEventsOutsideKaraokeFiles() throws {
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([
            (0, textEvent(0x01, "just a text")),
            (96, textEvent(0x05, "Hel")),
            (96, textEvent(0x05, "lo")),
            (0, endOfTrack),
        ])
        let file = try StandardMIDIFile(bytes: bytes)
        XCTAssertFalse(file.isKaraoke)
        XCTAssertEqual(file.lyrics(), [MIDILyric(tick: 96, seconds: 0.5, text: "Hel"), MIDILyric(tick: 192, seconds: 1.0, text: "lo")])
    }

    func testMetaEventsAreDecoded() throws {
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([
            (0, [0xFF, 0x00, 0x02, 0x00, 0x07]),
            (0, [0xFF, 0x00, 0x00]),
            (0, textEvent(0x02, "(c) 2026")),
            (0, textEvent(0x0C, "reserved text type")),
            (0, [0xFF, 0x20, 0x01, 0x09]),
            (0, [0xFF, 0x21, 0x01, 0x01]),
            (0, [0xFF, 0x54, 0x05, 0x60, 0x01, 0x02, 0x03, 0x04]),
            (0, [0xFF, 0x58, 0x04, 0x06, 0x03, 0x24, 0x08]),
            (0, [0xFF, 0x59, 0x02, 0xFD, 0x01]),  // 3 flats, minor
            (0, [0xFF, 0x7F, 0x03, 0x00, 0x00, 0x41]),
            (0, [0xFF, 0x51, 0x02, 0x07, 0xA1]),  // tempo with a wrong length: kept, not interpreted
            (0, [0xFF, 0x60, 0x01, 0x05]),        // an unknown type
            (0, endOfTrack),
        ])
        let metas = try StandardMIDIFile(bytes: bytes).tracks[0].events.map(\.kind)
        XCTAssertEqual(metas, [
            .meta(.sequenceNumber(7)),
            .meta(.sequenceNumber(nil)),
            .meta(.text(.copyright, Array("(c) 2026".utf8))),
            .meta(.text(MIDIMetaEvent.TextType(rawValue: 0x0C), Array("reserved text type".utf8))),
            .meta(.channelPrefix(9)),
            .meta(.port(1)),
            .meta(.smpteOffset(hours: 0x60, minutes: 1, seconds: 2, frames: 3, hundredthsOfFrame: 4)),
            .meta(.timeSignature(numerator: 6, denominatorPowerOfTwo: 3, clocksPerClick: 0x24, thirtySecondNotesPerQuarter: 8)),
            .meta(.keySignature(sharps: -3, isMinor: true)),
            .meta(.sequencerSpecific([0x00, 0x00, 0x41])),
            .meta(.other(type: 0x51, data: [0x07, 0xA1])),
            .meta(.other(type: 0x60, data: [0x05])),
            .meta(.endOfTrack),
        ])
        XCTAssertEqual(MIDIMetaEvent.text(.copyright, Array("(c) 2026".utf8)).text, "(c) 2026")
    }

    func testSysExAndEscapeEvents() throws {
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([
            (0, [0x90, 0x3C, 0x64]),
            (0, [0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7]),   // GM System On, one packet
            (0, [0x90, 0x3C, 0x00]),                           // SysEx cancelled running status: full status again
            (10, [0xF0, 0x03, 0x43, 0x12, 0x00]),              // a SysEx in packets: first without F7 …
            (10, [0xF7, 0x02, 0x43, 0xF7]),                    // … continued and ended by an escape
            (0, [0xF7, 0x01, 0xF8]),                           // an escape carrying a real-time byte
            (0, endOfTrack),
        ])
        let kinds = try StandardMIDIFile(bytes: bytes).tracks[0].events.map(\.kind)
        XCTAssertEqual(kinds, [
            noteOn(0x3C), .sysEx([0x7E, 0x7F, 0x09, 0x01, 0xF7]), noteOn(0x3C, 0),
            .sysEx([0x43, 0x12, 0x00]), .escape([0x43, 0xF7]), .escape([0xF8]), .meta(.endOfTrack),
        ])
    }

    func testUnknownChunksAndALongerHeaderAreSkipped() throws {
        let longHeader = chunk("MThd", be16(1) + be16(2) + be16(96) + [0xAA, 0xBB])  // 8-byte header: honour its length
        let bytes = longHeader + chunk("XFIH", [1, 2, 3, 4, 5]) + track([(0, [0x90, 0x3C, 0x64]), (0, endOfTrack)])
            + chunk("Junk", []) + track([(5, [0xC0, 0x01]), (0, endOfTrack)]) + [0x00, 0x00]  // trailing padding ignored
        let file = try StandardMIDIFile(bytes: bytes)
        XCTAssertEqual(file.tracks.count, 2)
        XCTAssertEqual(file.tracks[1].events.first, MIDIFileEvent(tick: 5, kind: .message(.programChange(channel: 0, program: 1))))
    }

    func testEndOfTrackEndsTheTrackAndItsAbsenceIsTolerated() throws {
        let afterEnd = header(format: 0, trackCount: 1, division: 96)
            + chunk("MTrk", [0x00, 0x90, 0x3C, 0x64, 0x00, 0xFF, 0x2F, 0x00, 0xDE, 0xAD])
        XCTAssertEqual(try StandardMIDIFile(bytes: afterEnd).tracks[0].events.count, 2)
        let noEnd = header(format: 0, trackCount: 1, division: 96) + chunk("MTrk", [0x00, 0x90, 0x3C, 0x64])
        XCTAssertEqual(try StandardMIDIFile(bytes: noEnd).tracks[0].events.count, 1)
    }

    func testTheLargestDeltaTime() throws {
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([(0x0FFF_FFFF, endOfTrack)])
        XCTAssertEqual(Array(bytes[22..<26]), [0xFF, 0xFF, 0xFF, 0x7F])
        XCTAssertEqual(try StandardMIDIFile(bytes: bytes).endTick, 0x0FFF_FFFF)
    }

    func testReadingFromAPath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("busker-midi-\(getpid()).mid").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = header(format: 0, trackCount: 1, division: 96) + track([(96, [0x90, 0x3C, 0x64]), (0, endOfTrack)])
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let file = try StandardMIDIFile(contentsOfFile: path)
        XCTAssertEqual(file.mergedEvents().first?.seconds, 0.5)
    }
}

extension StandardMIDIFileTests {
    func testTempoMapEdges() {
        let map = MIDITempoMap(division: .ticksPerQuarterNote(96), tempoChanges: [(96, 250_000), (96, 1_000_000), (-5, 400_000)])
        XCTAssertEqual(map.microsecondsPerQuarterNote(atTick: 0), 400_000, "a negative tick counts as 0")
        XCTAssertEqual(map.microsecondsPerQuarterNote(atTick: 96), 1_000_000, "the last change at a tick wins")
        XCTAssertEqual(map.seconds(atTick: -10), 0)
        XCTAssertEqual(map.sampleFrame(atTick: Int.max, sampleRate: Int.max), Int.max, "saturates, does not trap")
    }
}
