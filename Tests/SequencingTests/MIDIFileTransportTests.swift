import Foundation
import MIDI
import Sequencing
import XCTest

/// The song transport: a seek lands on the bar's first frame with the song's
/// state chased, a loop section's seam falls on the exact frame, transposition
/// spares the drums and ends the notes it started, and nothing is left hanging.
final class MIDIFileTransportTests: XCTestCase {
    private let rate = 48_000

    /// A message at its frame on the engine timeline.
    struct Timed: Equatable, CustomStringConvertible {
        var frame: Int
        var message: MIDIMessage
        var description: String { "\(frame): \(message)" }
    }

    // MARK: The song

    /// 480 ticks per quarter. Bars 1–2 in 4/4 (1920 ticks), bars 3–6 in 3/4
    /// (1440 ticks); 120 BPM, 100 BPM from bar 2. Channel 0: a note 240
    /// ticks into each bar (note 59 + bar) ended 960 ticks later; program 5,
    /// volume 80 and a bend range of 12 semitones at the start; volume 60
    /// just after bar 2's start; program 7 and pan 30 at bar 3; a bend 960
    /// ticks into bar 3; reverb send 100 and the sustain pedal down from
    /// 480 ticks into bar 5 to the end. Channel 10: a kick (36) on each bar's
    /// first tick, 120 ticks long. The song ends where bar 7 would start.
    static let barTicks = [0, 1920, 3840, 5280, 6720, 8160, 9600]

    static func song() -> StandardMIDIFile {
        let bars = barTicks
        var tempo: [MIDIFileEvent] = [
            MIDIFileEvent(tick: 0, kind: .meta(.timeSignature(numerator: 4, denominatorPowerOfTwo: 2, clocksPerClick: 24, thirtySecondNotesPerQuarter: 8))),
            MIDIFileEvent(tick: 0, kind: .meta(.tempo(microsecondsPerQuarterNote: 500_000))),
            MIDIFileEvent(tick: bars[1], kind: .meta(.tempo(microsecondsPerQuarterNote: 600_000))),
            MIDIFileEvent(tick: bars[2], kind: .meta(.timeSignature(numerator: 3, denominatorPowerOfTwo: 2, clocksPerClick: 24, thirtySecondNotesPerQuarter: 8))),
        ]
        tempo.append(MIDIFileEvent(tick: bars[6], kind: .meta(.endOfTrack)))
        func cc(_ controller: UInt8, _ value: UInt8) -> MIDIFileEvent.Kind { .message(.controlChange(channel: 0, controller: controller, value: value)) }
        var melody: [(Int, MIDIFileEvent.Kind)] = [
            (0, .message(.programChange(channel: 0, program: 5))), (0, cc(7, 80)),
            (0, cc(101, 0)), (0, cc(100, 0)), (0, cc(6, 12)),
            (bars[1] + 10, cc(7, 60)),
            (bars[2], .message(.programChange(channel: 0, program: 7))), (bars[2], cc(10, 30)),
            (bars[2] + 960, .message(.pitchBend(channel: 0, value: 10_000))),
            (bars[4] + 480, cc(91, 100)), (bars[4] + 480, cc(64, 127)),
        ]
        for bar in 0..<6 {
            melody.append((bars[bar] + 240, .message(.noteOn(channel: 0, note: UInt8(60 + bar), velocity: 100))))
            melody.append((bars[bar] + 1200, .message(.noteOff(channel: 0, note: UInt8(60 + bar), velocity: 0))))
        }
        var drums: [(Int, MIDIFileEvent.Kind)] = []
        for bar in 0..<6 {
            drums.append((bars[bar], .message(.noteOn(channel: 9, note: 36, velocity: 110))))
            drums.append((bars[bar] + 120, .message(.noteOff(channel: 9, note: 36, velocity: 0))))
        }
        func track(_ events: [(Int, MIDIFileEvent.Kind)]) -> MIDIFileTrack {
            let sorted = events.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
            return MIDIFileTrack(events: sorted.map { MIDIFileEvent(tick: $0.0, kind: $0.1) } + [MIDIFileEvent(tick: bars[6], kind: .meta(.endOfTrack))])
        }
        return StandardMIDIFile(format: .simultaneousTracks, division: .ticksPerQuarterNote(480),
                                tracks: [MIDIFileTrack(events: tempo), track(melody), track(drums)])
    }

    /// The frame of `tick` by the tempo map (tempo scale 1).
    private func frame(_ tick: Int) -> Int {
        Self.song().tempoMap().sampleFrame(atTick: tick, sampleRate: rate)
    }

    /// Runs the player's cycles through a scheduler, `block` frames a cycle,
    /// calling `beforeCycle` with each cycle's first frame; returns every message at its frame.
    private func run(_ player: MIDIFilePlayer, frames: Int, block: Int, eventCapacity: Int = 2048,
                     beforeCycle: (Int) -> Void = { _ in }) -> [Timed] {
        let scheduler = MIDIScheduler(ports: [], filePlayer: player, watchdogSeconds: 0, eventCapacity: eventCapacity)
        var out: [Timed] = []
        var start = 0
        while start < frames {
            beforeCycle(start)
            let n = min(block, frames - start)
            scheduler.beginCycle(sampleTime: Int64(start), frameCount: n, sampleRate: Double(rate), hostTime: UInt64(start + 1))
            for event in collect(scheduler.events) { out.append(Timed(frame: start + event.offset, message: event.message)) }
            start += n
        }
        return out
    }

    private func noteOns(_ events: [Timed], channel: UInt8) -> [Timed] {
        events.filter { if case .noteOn(channel, _, let velocity) = $0.message { return velocity > 0 } else { return false } }
    }

    // MARK: Seek

    func testTheBarsFramesComeFromTheTempoMapAndTimeSignatures() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        XCTAssertEqual(player.barCount, 6)
        for bar in 1...6 { XCTAssertEqual(try player.frame(ofBar: bar), Int64(frame(Self.barTicks[bar - 1])), "bar \(bar)") }
        // 2 s of 4/4 at 120, 4 beats at 100 BPM (2.4 s), 3 beats (1.8 s) per bar after.
        XCTAssertEqual(try player.frame(ofBar: 4), Int64(rate * 2 + rate * 24 / 10 + rate * 18 / 10))
    }

    /// Seeking to bar 4 before playing: bar 4's kick comes on output frame 0
    /// and its note 240 ticks later by the tempo map, for every block size,
    /// and everything after is the same whatever the block size.
    func testASeekLandsOnTheBarsFirstFrameForEveryBlockSize() throws {
        let barFrame = frame(Self.barTicks[3])
        let noteFrame = frame(Self.barTicks[3] + 240) - barFrame
        var runs: [[Timed]] = []
        for block in [1, 64, 333] {
            let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
            try player.seek(toBar: 4)
            player.resume()
            let events = run(player, frames: 200_000, block: block)
            XCTAssertEqual(noteOns(events, channel: 9).first, Timed(frame: 0, message: .noteOn(channel: 9, note: 36, velocity: 110)), "block \(block)")
            XCTAssertEqual(noteOns(events, channel: 0).first, Timed(frame: noteFrame, message: .noteOn(channel: 0, note: 63, velocity: 100)), "block \(block)")
            XCTAssertFalse(events.contains { $0.message == .noteOn(channel: 0, note: 62, velocity: 100) }, "nothing before the bar")
            runs.append(events)
        }
        XCTAssertEqual(runs[0], runs[1])
        XCTAssertEqual(runs[0], runs[2])
    }

    /// A seek while playing takes effect at the next cycle's first frame:
    /// bar 2's kick there, its note 240 ticks (at 100 BPM) later.
    func testASeekWhilePlayingLandsAtTheNextCycle() throws {
        for block in [64, 333] {
            let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
            player.play()
            var seekFrame = -1
            let events = run(player, frames: 150_000, block: block) { start in
                if seekFrame < 0 && start >= 130_000 {
                    seekFrame = start
                    do { try player.seek(toBar: 2) } catch { XCTFail("\(error)") }
                }
            }
            let after = events.filter { $0.frame >= seekFrame }
            XCTAssertEqual(noteOns(after, channel: 9).first?.frame, seekFrame, "block \(block)")
            XCTAssertEqual(noteOns(after, channel: 0).first,
                           Timed(frame: seekFrame + frame(Self.barTicks[1] + 240) - frame(Self.barTicks[1]), message: .noteOn(channel: 0, note: 61, velocity: 100)))
        }
    }

    /// At tempo scale 2 the song after the seek runs twice as fast from the
    /// bar's first frame: bar 4's note at half its distance from the bar.
    func testASeekUnderATempoScale() throws {
        for block in [1, 64, 333] {
            let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
            player.tempoScale = 2
            try player.seek(toBar: 4)
            player.resume()
            let events = run(player, frames: 50_000, block: block)
            let distance = frame(Self.barTicks[3] + 240) - frame(Self.barTicks[3])
            XCTAssertEqual(noteOns(events, channel: 0).first?.frame, distance / 2, "block \(block)")
            XCTAssertEqual(noteOns(events, channel: 9).map(\.frame).prefix(2),
                           [0, (frame(Self.barTicks[4]) - frame(Self.barTicks[3])) / 2], "block \(block)")
        }
    }

    /// Seeking back from bar 5 (pedal down, notes held) to bar 4: the held
    /// notes end and the pedal lifts, then bar 4's state is sent: program 7,
    /// volume 60, pan 30, the reverb send's default (the song sets it only in
    /// bar 5), the bend range, the bend; no pedal (up at bar 4).
    func testASeekEndsHeldNotesAndChasesTheSongsState() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        player.play()
        let pedalDown = frame(Self.barTicks[4] + 480)
        var seekFrame = -1
        let events = run(player, frames: pedalDown + 10_000, block: 64) { start in
            if seekFrame < 0 && start > pedalDown + 100 {
                seekFrame = start
                do { try player.seek(toBar: 4) } catch { XCTFail("\(error)") }
            }
        }
        func cc(_ controller: UInt8, _ value: UInt8) -> MIDIMessage { .controlChange(channel: 0, controller: controller, value: value) }
        let atSeek = events.filter { $0.frame == seekFrame }.map(\.message)
        XCTAssertEqual(atSeek, [
            .noteOff(channel: 0, note: 64, velocity: 0), cc(64, 0),
            .programChange(channel: 0, program: 7), cc(7, 60), cc(10, 30), cc(91, 40),
            cc(101, 0), cc(100, 0), cc(6, 12), cc(38, 0), cc(101, 0), cc(100, 0),
            .pitchBend(channel: 0, value: 10_000),
            .noteOn(channel: 9, note: 36, velocity: 110),
        ])
        XCTAssertEqual(player.barPosition, MIDIBarMap.Position(bar: 4, beat: 1, beatsPerBar: 3))
    }

    /// Seeking into bar 6 chases the pedal down and the reverb send the song set.
    func testASeekChasesAPedalHeldAtTheTarget() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        try player.seek(toBar: 6)
        let events = run(player, frames: 64, block: 64)
        XCTAssertEqual(player.state, .paused, "a seek while stopped waits for resume")
        XCTAssertEqual(events.map(\.message).filter { if case .controlChange(0, let c, _) = $0 { return c == 91 || c == 64 } else { return false } },
                       [.controlChange(channel: 0, controller: 91, value: 100), .controlChange(channel: 0, controller: 64, value: 127)])
        player.stop()
        XCTAssertEqual(run(player, frames: 64, block: 64).map(\.message), [.controlChange(channel: 0, controller: 64, value: 0)],
                       "the chased pedal is lifted like the song's own")
    }

    /// The screen's bar and beat: a beat at 100 BPM is 28 800 frames, bar 3
    /// (3/4) starts at frame 211 200; at tempo scale 2 the song is there in
    /// half the output frames.
    func testThePositionReadsAsBarAndBeat() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        XCTAssertEqual(player.barPosition, MIDIBarMap.Position(bar: 1, beat: 1, beatsPerBar: 4))
        player.play()
        _ = run(player, frames: 239_999, block: 64)
        XCTAssertEqual(player.positionFrame, 239_999)
        XCTAssertEqual(player.barPosition, MIDIBarMap.Position(bar: 3, beat: 1, beatsPerBar: 3))
        _ = run(player, frames: 1, block: 1)
        XCTAssertEqual(player.barPosition, MIDIBarMap.Position(bar: 3, beat: 2, beatsPerBar: 3))

        let fast = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        fast.tempoScale = 2
        fast.play()
        _ = run(fast, frames: 120_000, block: 333)
        XCTAssertEqual(fast.positionFrame, 240_000)
        XCTAssertEqual(fast.barPosition, MIDIBarMap.Position(bar: 3, beat: 2, beatsPerBar: 3))
    }

    /// A seek by seconds lands on the nearest frame: 2.5 s is frame 120 000,
    /// beat 1 of bar 2 (which starts at 96 000); bar 3's kick follows 91 200 frames on.
    func testASeekBySecondsLandsOnItsFrame() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        try player.seek(toSeconds: 2.5)
        _ = run(player, frames: 64, block: 64)
        XCTAssertEqual(player.state, .paused)
        XCTAssertEqual(player.positionFrame, 120_000)
        XCTAssertEqual(player.barPosition, MIDIBarMap.Position(bar: 2, beat: 1, beatsPerBar: 4))
        player.resume()
        let events = run(player, frames: 100_000, block: 64)
        XCTAssertEqual(noteOns(events, channel: 9).first?.frame, frame(Self.barTicks[2]) - 120_000)
    }

    /// Busker's demo song (a real file, 70 s of piano and melody), sought to
    /// each of its bars: from there on the notes are those of the song played
    /// from the top, at the same distances from the bar (less the note-offs of
    /// notes struck before it), and the channels' program, bank, controllers,
    /// pedal and bend after the seek's first frame are those the song played
    /// from the top has on that frame (the demo sets programs only; the
    /// fixture's chase is checked above).
    func testEverySeekIntoTheDemoSongSoundsAsPlayingFromTheTop() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sounds/demo/busker-demo.mid").path
        let file = try StandardMIDIFile(contentsOfFile: path)
        let whole = MIDIFilePlayer(file: file, sampleRate: rate)
        whole.play()
        let length = Int(whole.lengthFrames)
        let top = run(whole, frames: length + 10, block: 256)
        func isNote(_ message: MIDIMessage) -> Bool {
            switch message { case .noteOn, .noteOff: return true; default: return false }
        }
        /// What a receiver keeps per channel, from the messages up to `frame`.
        func state(_ events: [Timed], through frame: Int) -> [String: Int] {
            var kept: [String: Int] = [:]
            for event in events where event.frame <= frame {
                switch event.message {
                case .programChange(let channel, let program): kept["\(channel) program"] = Int(program)
                case .pitchBend(let channel, let value): kept["\(channel) bend"] = Int(value)
                case .controlChange(let channel, let controller, let value) where [0, 1, 7, 10, 11, 32, 64, 91, 93].contains(controller):
                    kept["\(channel) cc \(controller)"] = Int(controller == 64 && value < 64 ? 0 : value)
                default: break
                }
            }
            return kept.filter { !($0.key.hasSuffix("cc 64") && $0.value == 0) }
        }
        let bars = try XCTUnwrap(whole.barCount)
        XCTAssertGreaterThan(bars, 8)
        var barsWithNotes = 0
        for bar in 1...bars {
            let barFrame = Int(try whole.frame(ofBar: bar))
            let player = MIDIFilePlayer(file: file, sampleRate: rate)
            try player.seek(toBar: bar)
            player.resume()
            let sought = run(player, frames: length - barFrame + 10, block: 256)
            var struckAfter = Set<String>()
            var expected: [Timed] = []
            for event in top where event.frame >= barFrame && isNote(event.message) {
                guard case .noteOn(let channel, let note, let velocity) = event.message, velocity > 0 else {
                    let key: String
                    switch event.message {
                    case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _): key = "\(channel) \(note)"
                    default: continue
                    }
                    if struckAfter.remove(key) != nil { expected.append(Timed(frame: event.frame - barFrame, message: event.message)) }
                    continue
                }
                struckAfter.insert("\(channel) \(note)")
                expected.append(Timed(frame: event.frame - barFrame, message: event.message))
            }
            XCTAssertEqual(sought.filter { isNote($0.message) }, expected, "bar \(bar)")
            XCTAssertEqual(state(sought, through: 0), state(top, through: barFrame), "bar \(bar)")
            XCTAssertFalse(bar > 1 && state(top, through: barFrame).isEmpty, "bar \(bar): a state to compare")
            if !expected.isEmpty { barsWithNotes += 1 }
        }
        XCTAssertGreaterThanOrEqual(barsWithNotes, bars - 1, "notes to compare after nearly every bar")
        print("demo song: \(bars) bars, \(state(top, through: length).count) values kept at its end: \(state(top, through: length).keys.sorted())")
    }

    func testBadPlacesAreRefusedWithTheirReason() {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        XCTAssertThrowsError(try player.seek(toBar: 7)) { XCTAssertEqual($0 as? MIDITransportError, .barOutOfRange(bar: 7, barCount: 6)) }
        XCTAssertThrowsError(try player.seek(toBar: 0)) { XCTAssertEqual($0 as? MIDITransportError, .barOutOfRange(bar: 0, barCount: 6)) }
        XCTAssertThrowsError(try player.seek(toSeconds: 60)) { error in
            XCTAssertEqual((error as? MIDITransportError)?.description, "60 s is beyond the song (it lasts 11.6 s)")
        }
        XCTAssertThrowsError(try player.seek(toSeconds: -1))
        XCTAssertThrowsError(try player.seek(toSeconds: .nan))
        XCTAssertThrowsError(try player.setLoopSection(startBar: 4, endBar: 4)) {
            XCTAssertEqual(($0 as? MIDITransportError)?.description, "a loop section must end after it starts (bar 4 to bar 4)")
        }
        XCTAssertThrowsError(try player.setLoopSection(startBar: 3, endBar: 8)) {
            XCTAssertEqual(($0 as? MIDITransportError)?.description, "bar 8 is beyond the song (it has 6 bars)")
        }
        XCTAssertNoThrow(try player.setLoopSection(startBar: 3, endBar: 7), "the bar after the last ends the section with the song")
        XCTAssertThrowsError(try player.setLoopSection(startSeconds: 2, endSeconds: 1))
        let smpte = StandardMIDIFile(format: .singleTrack, division: .smpte(.fps25, ticksPerFrame: 40),
                                     tracks: [MIDIFileTrack(events: [MIDIFileEvent(tick: 4000, kind: .meta(.endOfTrack))])])
        let timecode = MIDIFilePlayer(file: smpte, sampleRate: rate)
        XCTAssertNil(timecode.barCount)
        XCTAssertNil(timecode.barPosition)
        XCTAssertThrowsError(try timecode.seek(toBar: 1)) { XCTAssertEqual($0 as? MIDITransportError, .noBarsInTimecodeSong) }
        XCTAssertNoThrow(try timecode.seek(toSeconds: 2))
    }

    /// An event buffer too small for the song's starting state (16 events a
    /// cycle): play still starts, the state filling its first cycle (what
    /// does not fit is dropped, never waited for forever), so the first kick
    /// comes a cycle late, whole, and the song then plays on time.
    func testATinyEventBufferStillPlaysTheSong() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        player.play()
        let events = run(player, frames: frame(Self.barTicks[2]) + 10, block: 64, eventCapacity: 16)
        XCTAssertEqual(player.state, .playing)
        XCTAssertEqual(noteOns(events, channel: 9).map(\.frame), [64, frame(Self.barTicks[1]), frame(Self.barTicks[2])])
    }

    // MARK: Loop section

    /// Bars 2 and 3 repeat: at bar 4's first frame the song goes on from bar
    /// 2's, so bar 2's events come at that frame plus their distance from bar
    /// 2, each round; bar 4 never plays. The same for every block size.
    func testALoopSectionRepeatsWithTheSeamOnTheExactFrame() throws {
        let bar2 = frame(Self.barTicks[1]), bar4 = frame(Self.barTicks[3])
        let length = bar4 - bar2
        let noteInBar = frame(Self.barTicks[1] + 240) - bar2
        var runs: [[Timed]] = []
        for block in [1, 64, 333] {
            let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
            try player.setLoopSection(startBar: 2, endBar: 4)
            XCTAssertEqual(player.loopSection, Int64(bar2)..<Int64(bar4))
            XCTAssertEqual(player.barPosition(atFrame: Int64(bar4)), MIDIBarMap.Position(bar: 4, beat: 1, beatsPerBar: 3))
            player.play()
            let events = run(player, frames: bar4 + 3 * length + 100, block: block)
            var kicks = [0, bar2, frame(Self.barTicks[2])]
            for round in 0..<3 {
                let seam = bar4 + round * length
                kicks += [seam, seam + frame(Self.barTicks[2]) - bar2]
            }
            kicks.append(bar4 + 3 * length)
            XCTAssertEqual(noteOns(events, channel: 9).map(\.frame), kicks, "block \(block)")
            XCTAssertEqual(noteOns(events, channel: 0).filter { $0.frame >= bar4 }.prefix(2),
                           [Timed(frame: bar4 + noteInBar, message: .noteOn(channel: 0, note: 61, velocity: 100)),
                            Timed(frame: bar4 + frame(Self.barTicks[2] + 240) - bar2, message: .noteOn(channel: 0, note: 62, velocity: 100))])
            XCTAssertFalse(events.contains { $0.message == .noteOn(channel: 0, note: 63, velocity: 100) }, "bar 4 never plays")
            // The seam sends bar 2's state: program 5, volume 80 (60 comes 10 ticks in), pan's default.
            let seam = events.filter { $0.frame == bar4 }.map(\.message)
            XCTAssertEqual(Array(seam.prefix(3)), [.programChange(channel: 0, program: 5), .controlChange(channel: 0, controller: 7, value: 80),
                                                   .controlChange(channel: 0, controller: 10, value: 64)])
            XCTAssertEqual(player.state, .playing)
            runs.append(events)
        }
        XCTAssertEqual(runs[0], runs[1])
        XCTAssertEqual(runs[0], runs[2])
    }

    /// Under tempo scale ½ the section lasts twice as long, the seam still on a whole frame.
    func testALoopSectionUnderATempoScale() throws {
        let bar2 = frame(Self.barTicks[1]), bar3 = frame(Self.barTicks[2])
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        try player.setLoopSection(startBar: 2, endBar: 3)
        try player.seek(toBar: 2)
        player.tempoScale = 0.5
        player.resume()
        let events = run(player, frames: 4 * (bar3 - bar2) + 10, block: 64)
        XCTAssertEqual(noteOns(events, channel: 9).map(\.frame), [0, 2 * (bar3 - bar2), 4 * (bar3 - bar2)])
    }

    /// A section ending with the song (the bar after the last) repeats the
    /// song's end whether or not the whole song loops; clearing it lets the song finish.
    func testALoopSectionToTheSongsEndAndClearingIt() throws {
        let bar6 = frame(Self.barTicks[5]), end = frame(Self.barTicks[6])
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        try player.setLoopSection(startBar: 6, endBar: 7)
        try player.seek(toBar: 6)
        player.resume()
        var cleared = false
        let events = run(player, frames: 3 * (end - bar6) + 1000, block: 64) { start in
            if !cleared && start >= 2 * (end - bar6) + 64 {
                player.clearLoopSection()
                cleared = true
            }
        }
        XCTAssertEqual(noteOns(events, channel: 9).map(\.frame), [0, end - bar6, 2 * (end - bar6)])
        XCTAssertEqual(player.state, .finished)
        XCTAssertNil(player.loopSection)
    }

    /// A section set when the song is already past its end does not pull the
    /// song back: bars 5 and 6 play and the song ends; looping the whole song,
    /// it comes round and the section then repeats.
    func testASectionSetPastItsEndLetsTheSongPlayOn() throws {
        let bar2 = frame(Self.barTicks[1]), bar3 = frame(Self.barTicks[2])
        let bar5 = frame(Self.barTicks[4]), end = frame(Self.barTicks[6])
        for looping in [false, true] {
            let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
            player.isLooping = looping
            player.play()
            var setAt = -1
            let events = run(player, frames: end + bar3 + 2 * (bar3 - bar2) - 100, block: 64) { start in
                if setAt < 0 && start >= bar5 + 1000 {
                    setAt = start
                    do { try player.setLoopSection(startBar: 2, endBar: 3) } catch { XCTFail("\(error)") }
                }
            }
            let kicks = noteOns(events, channel: 9).map(\.frame).filter { $0 > setAt }
            XCTAssertEqual(kicks.first, frame(Self.barTicks[5]), "bar 6 plays after the section is set past it")
            if looping {
                XCTAssertEqual(Array(kicks.dropFirst()), [end, end + bar2, end + bar3, end + bar3 + (bar3 - bar2)],
                               "round again: bars 1 and 2, then bar 2 repeats")
            } else {
                XCTAssertEqual(kicks.count, 1)
                XCTAssertEqual(player.state, .finished)
            }
        }
    }

    // MARK: Transpose

    /// +3: channel 0's notes and pressure shift, the kick does not. The
    /// transposition changes to −5 while note 60 sounds: its note-off still
    /// ends 63. Then +30, clamped to +24: note 126 would be 150, so it and its
    /// note-off are dropped.
    func testTransposeShiftsMelodicNotesAndEndsWhatItStarted() throws {
        let track = MIDIFileTrack(events: [
            MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 0, note: 60, velocity: 100))),
            MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 9, note: 36, velocity: 100))),
            MIDIFileEvent(tick: 100, kind: .message(.noteOff(channel: 9, note: 36, velocity: 0))),
            MIDIFileEvent(tick: 200, kind: .message(.polyPressure(channel: 0, note: 60, pressure: 50))),
            MIDIFileEvent(tick: 480, kind: .message(.noteOn(channel: 0, note: 60, velocity: 0))),
            MIDIFileEvent(tick: 600, kind: .message(.noteOn(channel: 1, note: 70, velocity: 90))),
            MIDIFileEvent(tick: 700, kind: .message(.noteOff(channel: 1, note: 70, velocity: 0))),
            MIDIFileEvent(tick: 960, kind: .message(.noteOn(channel: 0, note: 126, velocity: 100))),
            MIDIFileEvent(tick: 1000, kind: .message(.noteOff(channel: 0, note: 126, velocity: 0))),
            MIDIFileEvent(tick: 1000, kind: .message(.noteOn(channel: 0, note: 0, velocity: 100))),
            MIDIFileEvent(tick: 1100, kind: .message(.noteOff(channel: 0, note: 0, velocity: 0))),
            MIDIFileEvent(tick: 1200, kind: .meta(.endOfTrack)),
        ])
        // 480 ticks per quarter at 120 BPM: 50 frames a tick.
        let player = MIDIFilePlayer(file: StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(480), tracks: [track]), sampleRate: rate)
        player.transposeSemitones = 3
        player.play()
        let events = run(player, frames: 1300 * 50, block: 64) { start in
            if start == 64 * 200 { player.transposeSemitones = -5 }  // frame 12 800: tick 256
            if start == 64 * 500 { player.transposeSemitones = 30 }  // clamped to 24; frame 32 000: tick 640
        }
        XCTAssertEqual(player.transposeSemitones, 24)
        XCTAssertEqual(events, [
            Timed(frame: 0, message: .noteOn(channel: 0, note: 63, velocity: 100)),
            Timed(frame: 0, message: .noteOn(channel: 9, note: 36, velocity: 100)),
            Timed(frame: 5_000, message: .noteOff(channel: 9, note: 36, velocity: 0)),
            Timed(frame: 10_000, message: .polyPressure(channel: 0, note: 63, pressure: 50)),
            Timed(frame: 24_000, message: .noteOn(channel: 0, note: 63, velocity: 0)),
            Timed(frame: 30_000, message: .noteOn(channel: 1, note: 65, velocity: 90)),
            Timed(frame: 35_000, message: .noteOff(channel: 1, note: 65, velocity: 0)),
            // 126 + 24 and 0 + 24: the first is dropped with its note-off.
            Timed(frame: 50_000, message: .noteOn(channel: 0, note: 24, velocity: 100)),
            Timed(frame: 55_000, message: .noteOff(channel: 0, note: 24, velocity: 0)),
        ])
    }

    /// A note struck again under a new transposition while it sounds: the
    /// earlier pitch ends first, and the one note-off ends the new one.
    func testANoteStruckAgainUnderANewTranspositionEndsTheOldPitch() throws {
        let track = MIDIFileTrack(events: [
            MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 0, note: 60, velocity: 100))),
            MIDIFileEvent(tick: 480, kind: .message(.noteOn(channel: 0, note: 60, velocity: 80))),
            MIDIFileEvent(tick: 960, kind: .message(.noteOff(channel: 0, note: 60, velocity: 0))),
            MIDIFileEvent(tick: 960, kind: .meta(.endOfTrack)),
        ])
        let player = MIDIFilePlayer(file: StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(480), tracks: [track]), sampleRate: rate)
        player.play()
        let events = run(player, frames: 50_000, block: 100) { start in
            if start == 10_000 { player.transposeSemitones = 2 }
        }
        XCTAssertEqual(events.map(\.message), [
            .noteOn(channel: 0, note: 60, velocity: 100),
            .noteOff(channel: 0, note: 60, velocity: 0), .noteOn(channel: 0, note: 62, velocity: 80),
            .noteOff(channel: 0, note: 62, velocity: 0),
        ])
    }

    // MARK: No hanging notes

    /// Pauses, resumes, seeks, sections, transpositions and the whole song
    /// looping, thrown at a playing song: a receiver that follows every
    /// message has no note sounding and no pedal down after each pause and
    /// after the stop, and never gets a note-off for a note it does not hold.
    func testTheTransportNeverLeavesANoteHanging() throws {
        let player = MIDIFilePlayer(file: Self.song(), sampleRate: rate)
        player.isLooping = true
        player.play()
        var sounding = Set<Int>(), pedals = Set<UInt8>()
        var strayNoteOffs = 0, checkedPauses = 0
        var pausedAt: Int?
        let scheduler = MIDIScheduler(ports: [], filePlayer: player, watchdogSeconds: 0)
        var step = 0
        for cycle in 0..<12_000 {
            let start = cycle * 100
            if cycle % 97 == 0 {
                step += 1
                switch step % 8 {
                case 0: player.pause(); pausedAt = cycle
                case 1: player.resume()
                case 2: try player.seek(toBar: 1 + step % 6)
                case 3: try player.setLoopSection(startBar: 1 + step % 3, endBar: 4 + step % 3)
                case 4: player.transposeSemitones = (step * 7) % 49 - 24
                case 5: try player.seek(toSeconds: Double(step % 9))
                case 6: player.clearLoopSection()
                default: player.tempoScale = [0.5, 1, 1.7][step % 3]
                }
            }
            scheduler.beginCycle(sampleTime: Int64(start), frameCount: 100, sampleRate: Double(rate), hostTime: UInt64(cycle + 1))
            for event in collect(scheduler.events) {
                switch event.message {
                case .noteOn(let channel, let note, let velocity) where velocity > 0:
                    sounding.insert(Int(channel) * 128 + Int(note))
                case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
                    if sounding.remove(Int(channel) * 128 + Int(note)) == nil { strayNoteOffs += 1 }
                case .controlChange(let channel, 64, let value):
                    if value >= 64 { pedals.insert(channel) } else { pedals.remove(channel) }
                default:
                    break
                }
            }
            if let paused = pausedAt, paused == cycle {
                XCTAssertEqual(sounding, [], "after the pause at cycle \(cycle)")
                XCTAssertEqual(pedals, [], "after the pause at cycle \(cycle)")
                checkedPauses += 1
            }
        }
        player.stop()
        scheduler.beginCycle(sampleTime: 1_200_000, frameCount: 100, sampleRate: Double(rate), hostTime: 20_000)
        for event in collect(scheduler.events) {
            switch event.message {
            case .noteOff(let channel, let note, _): sounding.remove(Int(channel) * 128 + Int(note))
            case .controlChange(let channel, 64, let value) where value < 64: pedals.remove(channel)
            default: break
            }
        }
        XCTAssertGreaterThan(checkedPauses, 10)
        XCTAssertEqual(sounding, [], "after the stop")
        XCTAssertEqual(pedals, [], "after the stop")
        XCTAssertEqual(strayNoteOffs, 0, "note-offs match note-ons")
    }
}
