import Engine
import MIDI
import Sequencing
import XCTest

/// The MIDI file player places every note on the frame the tempo map gives,
/// whatever the block size, and never leaves a note hanging on stop or loop.
final class MIDIFilePlayerTests: XCTestCase {
    private let rate = 48_000

    /// Format 1, 480 ticks per quarter. Track 0: 120 BPM, then 240 BPM from
    /// tick 960 (1.0 s). Note 60 from tick 480 (0.5 s = frame 24 000) to tick
    /// 1440 (1.0 s + 480 ticks at 0.25 s per quarter = 1.25 s = frame 60 000);
    /// track 1: note 64 (velocity 64, so the gate's level shows the hand-over)
    /// from tick 1440 to tick 1920 (1.5 s = frame 72 000).
    private func song() -> StandardMIDIFile {
        let tempoTrack = MIDIFileTrack(events: [
            MIDIFileEvent(tick: 0, kind: .meta(.tempo(microsecondsPerQuarterNote: 500_000))),
            MIDIFileEvent(tick: 0, kind: .message(.programChange(channel: 0, program: 13))),
            MIDIFileEvent(tick: 480, kind: .message(.noteOn(channel: 0, note: 60, velocity: 127))),
            MIDIFileEvent(tick: 960, kind: .meta(.tempo(microsecondsPerQuarterNote: 250_000))),
            MIDIFileEvent(tick: 1440, kind: .message(.noteOff(channel: 0, note: 60, velocity: 0))),
            MIDIFileEvent(tick: 1440, kind: .meta(.endOfTrack)),
        ])
        let melody = MIDIFileTrack(events: [
            MIDIFileEvent(tick: 1440, kind: .message(.noteOn(channel: 1, note: 64, velocity: 64))),
            MIDIFileEvent(tick: 1920, kind: .message(.noteOn(channel: 1, note: 64, velocity: 0))),
            MIDIFileEvent(tick: 1920, kind: .meta(.endOfTrack)),
        ])
        return StandardMIDIFile(format: .simultaneousTracks, division: .ticksPerQuarterNote(480), tracks: [tempoTrack, melody])
    }

    private func render(_ player: MIDIFilePlayer, frames: Int, cycle: Int, maxBlock: Int = 64,
                        beforeCycle: (Int) -> Void = { _ in }) throws -> [Float] {
        let scheduler = MIDIScheduler(ports: [], filePlayer: player, watchdogSeconds: 0)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(GateInstrument(events: scheduler.events))
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: Double(rate), maximumBlockSize: maxBlock)))
        let buffer = AudioBuffer(channelCount: 1, capacity: cycle)
        var out: [Float] = []
        while out.count < frames {
            beforeCycle(out.count)
            let n = min(cycle, frames - out.count)
            engine.render(input: nil, output: buffer.block(frames: n))
            out.append(contentsOf: UnsafeBufferPointer(start: buffer[0], count: n))
        }
        return out
    }

    /// The frames where the output level changes, with the new level.
    private func edges(_ out: [Float]) -> [Int] {
        var result: [Int] = []
        var last: Float = 0
        for (i, v) in out.enumerated() where v != last {
            result.append(i)
            last = v
        }
        return result
    }

    func testEventsLandOnTheTempoMapsFramesForEveryBlockSize() throws {
        for (cycle, maxBlock) in [(64, 64), (333, 64), (7, 7), (4096, 512)] {
            let player = MIDIFilePlayer(file: song(), sampleRate: rate)
            XCTAssertEqual(player.lengthFrames, 72_000)
            XCTAssertEqual(player.eventCount, 5)
            player.play()
            let out = try render(player, frames: 80_000, cycle: cycle, maxBlock: maxBlock)
            XCTAssertEqual(edges(out), [24_000, 60_000, 72_000], "cycle \(cycle)")
            XCTAssertEqual(player.state, .finished)
        }
    }

    /// Pause ends the song's notes at once and keeps its place; resume goes on
    /// from there, every later event shifted by the pause's length.
    func testPauseEndsTheNotesAndResumeGoesOnFromThePlace() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.play()
        var pausedState: MIDIFilePlayer.State?
        var pausedPosition = 0.0
        let out = try render(player, frames: 100_000, cycle: 100) { frame in
            if frame == 30_000 { player.pause() }
            if frame == 40_000 {
                pausedState = player.state
                pausedPosition = player.positionSeconds
                player.pause()  // a second pause changes nothing
            }
            if frame == 50_000 { player.resume() }
            if frame == 50_100 { player.resume() }  // nor a second resume
        }
        XCTAssertEqual(pausedState, .paused)
        XCTAssertEqual(pausedPosition, 30_000 / Double(rate), accuracy: 1e-9, "the place is kept")
        // Note 60 ends at the pause; note 64 comes 20 000 frames (the pause) late.
        XCTAssertEqual(edges(out), [24_000, 30_000, 80_000, 92_000])
        XCTAssertEqual(player.state, .finished)
    }

    func testPauseAndResumeDoNothingUnlessPlayingOrPaused() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.resume()
        _ = try render(player, frames: 1000, cycle: 100)
        XCTAssertEqual(player.state, .stopped, "resume does not start a stopped song")
        player.pause()
        _ = try render(player, frames: 1000, cycle: 100)
        XCTAssertEqual(player.state, .stopped)
    }

    func testNothingPlaysUntilAsked() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        let out = try render(player, frames: 30_000, cycle: 256)
        XCTAssertEqual(edges(out), [])
        XCTAssertEqual(player.state, .stopped)
    }

    func testLoopingStartsOverAtTheSongsEnd() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.isLooping = true
        player.play()
        let out = try render(player, frames: 150_000, cycle: 100)
        XCTAssertEqual(edges(out), [24_000, 60_000, 72_000, 96_000, 132_000, 144_000])
        XCTAssertEqual(player.state, .playing)
    }

    func testTempoScaleTwoPlaysTwiceAsFast() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.tempoScale = 2
        player.play()
        let out = try render(player, frames: 40_000, cycle: 64)
        XCTAssertEqual(edges(out), [12_000, 30_000, 36_000])
    }

    func testStopEndsHeldNotesAtOnceAndRewinds() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.play()
        var stopped = false, restarted = false
        let out = try render(player, frames: 100_000, cycle: 64) { frame in
            if frame >= 40_000 && !stopped { player.stop(); stopped = true }
            if frame >= 50_000 && !restarted { player.play(); restarted = true }
        }
        // Stopped mid-note at the cycle starting at frame 40 000; played again from the top at 50 048.
        XCTAssertEqual(edges(out), [24_000, 40_000, 50_048 + 24_000])
        XCTAssertEqual(player.state, .playing)
    }

    func testSchedulerWideReleaseEndsTheSongsNotesToo() throws {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        let scheduler = MIDIScheduler(ports: [], filePlayer: player)
        player.play()
        scheduler.beginCycle(sampleTime: 0, frameCount: 30_000, sampleRate: Double(rate), hostTime: 1)
        XCTAssertEqual(scheduler.heldCount, 1)
        scheduler.releaseAllNotes()
        scheduler.beginCycle(sampleTime: 30_000, frameCount: 64, sampleRate: Double(rate), hostTime: 2)
        XCTAssertEqual(collectMessages(scheduler.events), [.noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(scheduler.heldCount, 0)
    }

    func testALoopingEmptySongFinishesInsteadOfSpinning() throws {
        let empty = StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(96),
                                     tracks: [MIDIFileTrack(events: [MIDIFileEvent(tick: 0, kind: .meta(.endOfTrack))])])
        let player = MIDIFilePlayer(file: empty, sampleRate: rate)
        player.isLooping = true
        player.play()
        let out = try render(player, frames: 1024, cycle: 256)
        XCTAssertEqual(edges(out), [])
        XCTAssertEqual(player.state, .finished)
    }

    func testALoopingSongShorterThanTheTempoScaleStillMovesOn() throws {
        // 1 tick per quarter at 100 µs per quarter: the song lasts 5 frames, less than one output frame at ×8.
        let track = MIDIFileTrack(events: [
            MIDIFileEvent(tick: 0, kind: .meta(.tempo(microsecondsPerQuarterNote: 100))),
            MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 0, note: 60, velocity: 127))),
            MIDIFileEvent(tick: 1, kind: .message(.noteOff(channel: 0, note: 60, velocity: 0))),
            MIDIFileEvent(tick: 1, kind: .meta(.endOfTrack)),
        ])
        let player = MIDIFilePlayer(file: StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(1), tracks: [track]),
                                    sampleRate: rate)
        XCTAssertEqual(player.lengthFrames, 5)
        player.isLooping = true
        player.tempoScale = 8
        player.play()
        let out = try render(player, frames: 4096, cycle: 64)
        XCTAssertEqual(out.count, 4096, "every cycle came back")
        XCTAssertEqual(player.state, .playing)
    }

    func testANonFiniteTempoScaleIsIgnored() {
        let player = MIDIFilePlayer(file: song(), sampleRate: rate)
        player.tempoScale = 2
        player.tempoScale = .nan
        player.tempoScale = .infinity
        XCTAssertEqual(player.tempoScale, 2)
    }
}
