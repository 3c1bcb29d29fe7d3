import Engine
import MIDI
import Sequencing
import XCTest

/// MIDI events reach instruments at their frame: sample-stamped events land
/// exactly, host-stamped ones keep their spacing one cycle later, and every
/// source's notes are released when it goes away or the watchdog fires.
final class MIDISchedulerTests: XCTestCase {
    private let rate = 48_000.0

    /// Renders `totalFrames` through a gate instrument in cycles of `cycle`
    /// frames with plans of at most `maxBlock` frames, calling `beforeCycle`
    /// with each cycle's start frame, and returns the output.
    private func renderGate(scheduler: MIDIScheduler, totalFrames: Int, cycle: Int, maxBlock: Int,
                            beforeCycle: (Int) -> Void = { _ in }) throws -> [Float] {
        let graph = AudioGraph(inputChannelCount: 0)
        let gate = graph.add(GateInstrument(events: scheduler.events))
        graph.output = gate
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: maxBlock)))
        let buffer = AudioBuffer(channelCount: 1, capacity: cycle)
        var out: [Float] = []
        var done = 0
        while done < totalFrames {
            let n = min(cycle, totalFrames - done)
            beforeCycle(done)
            engine.render(input: nil, output: buffer.block(frames: n))
            out.append(contentsOf: UnsafeBufferPointer(start: buffer[0], count: n))
            done += n
        }
        return out
    }

    private func firstFrame(in output: [Float], from start: Int = 0, where condition: (Float) -> Bool) -> Int? {
        (start..<output.count).first { condition(output[$0]) }
    }

    // MARK: Sample-accurate placement

    func testNoteOnStampedMidBlockSoundsFromThatFrame() throws {
        for (cycle, maxBlock) in [(64, 64), (256, 64), (333, 512), (1, 1)] {
            let port = MIDIInputPort(name: "test")
            let scheduler = MIDIScheduler(ports: [port])
            port.send(.noteOn(channel: 0, note: 60, velocity: 127), at: .sample(1000))
            port.send(.noteOff(channel: 0, note: 60, velocity: 0), at: .sample(1777))
            let out = try renderGate(scheduler: scheduler, totalFrames: 2400, cycle: cycle, maxBlock: maxBlock)
            XCTAssertEqual(firstFrame(in: out) { $0 > 0.5 }, 1000, "cycle \(cycle), block \(maxBlock)")
            XCTAssertEqual(firstFrame(in: out, from: 1000) { $0 < 0.5 }, 1777, "cycle \(cycle), block \(maxBlock)")
        }
    }

    func testEventsStampedInThePastLandAtTheCycleStartInOrder() throws {
        let port = MIDIInputPort(name: "test")
        let scheduler = MIDIScheduler(ports: [port])
        scheduler.beginCycle(sampleTime: 512, frameCount: 128, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(scheduler.events.count, 0)
        port.send(.noteOn(channel: 0, note: 1, velocity: 1), at: .sample(10))
        port.send(.noteOn(channel: 0, note: 2, velocity: 1), at: .now)
        port.send(.noteOn(channel: 0, note: 3, velocity: 1), at: .sample(700))
        port.send(.noteOn(channel: 0, note: 4, velocity: 1), at: .sample(800))
        scheduler.beginCycle(sampleTime: 640, frameCount: 128, sampleRate: rate, hostTime: 2)
        XCTAssertEqual(collect(scheduler.events), [
            ScheduledMIDIEvent(offset: 0, message: .noteOn(channel: 0, note: 1, velocity: 1)),
            ScheduledMIDIEvent(offset: 0, message: .noteOn(channel: 0, note: 2, velocity: 1)),
            ScheduledMIDIEvent(offset: 60, message: .noteOn(channel: 0, note: 3, velocity: 1)),
        ])
        // Not due yet: it stays queued for the next cycle.
        scheduler.beginCycle(sampleTime: 768, frameCount: 128, sampleRate: rate, hostTime: 3)
        XCTAssertEqual(collect(scheduler.events), [ScheduledMIDIEvent(offset: 32, message: .noteOn(channel: 0, note: 4, velocity: 1))])
    }

    func testCycleFrameStampsLandOnThatFrameOfTheCycleThatTakesThem() {
        let port = MIDIInputPort(name: "jack")
        let scheduler = MIDIScheduler(ports: [port])
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: rate, hostTime: 1)
        // Queued just before the cycle at 64 renders, as JACK MIDI in does.
        port.send(.noteOn(channel: 0, note: 1, velocity: 1), at: .cycleFrame(0))
        port.send(.noteOn(channel: 0, note: 2, velocity: 1), at: .cycleFrame(37))
        port.send(.noteOn(channel: 0, note: 3, velocity: 1), at: .cycleFrame(63))
        port.send(.noteOn(channel: 0, note: 4, velocity: 1), at: .cycleFrame(500))  // past the cycle: its last frame
        scheduler.beginCycle(sampleTime: 64, frameCount: 64, sampleRate: rate, hostTime: 2)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [0, 37, 63, 63])
        XCTAssertEqual(collect(scheduler.events).map(\.message), (1...4).map { .noteOn(channel: 0, note: UInt8($0), velocity: 1) })
        scheduler.beginCycle(sampleTime: 128, frameCount: 64, sampleRate: rate, hostTime: 3)
        XCTAssertEqual(scheduler.events.count, 0)
    }

    func testHostTimeStampsKeepTheirSpacingOneCycleLater() {
        let port = MIDIInputPort(name: "live")
        let scheduler = MIDIScheduler(ports: [port])
        // Cycle starts every 2 ms (96 frames at 48 kHz), in host nanoseconds.
        scheduler.beginCycle(sampleTime: 0, frameCount: 96, sampleRate: rate, hostTime: 10_000_000)
        port.send(.noteOn(channel: 0, note: 60, velocity: 100), at: .hostNanoseconds(10_500_000))  // a quarter in
        port.send(.noteOff(channel: 0, note: 60, velocity: 0), at: .hostNanoseconds(11_500_000))   // three quarters in
        port.send(.noteOn(channel: 0, note: 62, velocity: 100), at: .hostNanoseconds(12_400_000))  // after this cycle's start
        scheduler.beginCycle(sampleTime: 96, frameCount: 96, sampleRate: rate, hostTime: 12_000_000)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [24, 72])
        scheduler.beginCycle(sampleTime: 192, frameCount: 96, sampleRate: rate, hostTime: 14_000_000)
        XCTAssertEqual(collect(scheduler.events), [ScheduledMIDIEvent(offset: 19, message: .noteOn(channel: 0, note: 62, velocity: 100))])
    }

    func testSourcesMergeInTimeOrderAndKeepTheirOwnOrderAtEqualFrames() {
        let a = MIDIInputPort(name: "a"), b = MIDIInputPort(name: "b")
        let scheduler = MIDIScheduler(ports: [a, b])
        a.send(.noteOn(channel: 0, note: 1, velocity: 1), at: .sample(50))
        a.send(.noteOff(channel: 0, note: 1, velocity: 0), at: .sample(50))
        b.send(.noteOn(channel: 1, note: 2, velocity: 1), at: .sample(10))
        b.send(.noteOn(channel: 1, note: 3, velocity: 1), at: .sample(90))
        scheduler.beginCycle(sampleTime: 0, frameCount: 128, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [10, 50, 50, 90])
        XCTAssertEqual(collect(scheduler.events)[1].message, .noteOn(channel: 0, note: 1, velocity: 1))
        XCTAssertEqual(collect(scheduler.events)[2].message, .noteOff(channel: 0, note: 1, velocity: 0))
    }

    func testABlockSeesOnlyItsOwnEventsWithRelativeOffsets() {
        let port = MIDIInputPort(name: "a")
        let scheduler = MIDIScheduler(ports: [port])
        for frame in [0, 63, 64, 100, 255] {
            port.send(.noteOn(channel: 0, note: UInt8(frame % 128), velocity: 1), at: .sample(Int64(frame)))
        }
        scheduler.beginCycle(sampleTime: 0, frameCount: 256, sampleRate: rate, hostTime: 1)
        scheduler.showBlock(offset: 64, frameCount: 64)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [0, 36])
        scheduler.showBlock(offset: 192, frameCount: 64)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [63])
        scheduler.showBlock(offset: 0, frameCount: 64)
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [0, 63])
    }

    func testWhatDoesNotFitInACycleWaitsForTheNextInsteadOfBeingLost() {
        let port = MIDIInputPort(name: "a", capacity: 256)
        let scheduler = MIDIScheduler(ports: [port], eventCapacity: 32)  // 8 slots kept for releases
        for i in 0..<40 { port.send(.noteOn(channel: 0, note: UInt8(i), velocity: 1), at: .now) }
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(scheduler.events.count, 24)
        XCTAssertEqual(scheduler.heldCount, 24, "only what was delivered is tracked")
        port.releaseAllNotes()
        scheduler.beginCycle(sampleTime: 64, frameCount: 64, sampleRate: rate, hostTime: 2)
        XCTAssertEqual(collectMessages(scheduler.events), (24..<40).map { .noteOn(channel: 0, note: UInt8($0), velocity: 1) })
        // The release needs 40 slots: it waits for a cycle with room rather than dropping note-offs.
        scheduler.beginCycle(sampleTime: 128, frameCount: 64, sampleRate: rate, hostTime: 3)
        XCTAssertEqual(scheduler.events.count, 0)
        XCTAssertEqual(scheduler.heldCount, 40)
        XCTAssertEqual(scheduler.overflowCount, 0)
        let small = MIDIInputPort(name: "small", capacity: 4)
        for i in 0..<6 { small.send(.controlChange(channel: 0, controller: 1, value: UInt8(i))) }
        XCTAssertEqual(small.droppedCount, 2, "a full port drops and counts at the producer")
    }

    // MARK: No stuck notes

    func testAReleasingSourceEndsOnlyItsOwnNotesAndPedals() {
        let keyboard = MIDIInputPort(name: "keyboard"), pads = MIDIInputPort(name: "pads")
        let scheduler = MIDIScheduler(ports: [keyboard, pads])
        keyboard.send(.noteOn(channel: 0, note: 60, velocity: 90))
        keyboard.send(.noteOn(channel: 0, note: 64, velocity: 90))
        keyboard.send(.noteOff(channel: 0, note: 64, velocity: 0))
        keyboard.send(.noteOn(channel: 2, note: 67, velocity: 90))
        keyboard.send(.controlChange(channel: 2, controller: 64, value: 127))
        pads.send(.noteOn(channel: 9, note: 36, velocity: 90))
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(scheduler.heldCount, 3)
        keyboard.releaseAllNotes(at: .sample(100))
        scheduler.beginCycle(sampleTime: 64, frameCount: 64, sampleRate: rate, hostTime: 2)
        XCTAssertEqual(Set(collectMessages(scheduler.events)), [
            .noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 2, note: 67, velocity: 0),
            .controlChange(channel: 2, controller: 64, value: 0),
        ])
        XCTAssertEqual(collect(scheduler.events).map(\.offset), [36, 36, 36])
        XCTAssertEqual(scheduler.heldCount, 1, "the pads' kick is still held")
        scheduler.releaseAllNotes()
        scheduler.beginCycle(sampleTime: 192, frameCount: 64, sampleRate: rate, hostTime: 4)
        XCTAssertEqual(collectMessages(scheduler.events), [.noteOff(channel: 9, note: 36, velocity: 0)])
        XCTAssertEqual(scheduler.heldCount, 0)
    }

    func testAReleaseThatFindsTheQueueFullIsStillCarriedOut() {
        let port = MIDIInputPort(name: "a", capacity: 2)
        let scheduler = MIDIScheduler(ports: [port])
        port.send(.noteOn(channel: 0, note: 60, velocity: 90))
        port.send(.noteOn(channel: 0, note: 61, velocity: 90))
        port.releaseAllNotes()  // queue full: carried by the flag
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(collectMessages(scheduler.events), [
            .noteOn(channel: 0, note: 60, velocity: 90), .noteOn(channel: 0, note: 61, velocity: 90),
            .noteOff(channel: 0, note: 60, velocity: 0), .noteOff(channel: 0, note: 61, velocity: 0),
        ])
        XCTAssertEqual(scheduler.heldCount, 0)
    }

    func testAReleaseNeverLandsBeforeEventsTheSourceSentEarlier() {
        let port = MIDIInputPort(name: "a")
        let scheduler = MIDIScheduler(ports: [port])
        port.send(.noteOn(channel: 0, note: 60, velocity: 90), at: .sample(100))
        port.releaseAllNotes(at: .now)  // sent after the note-on: must not overtake it
        scheduler.beginCycle(sampleTime: 0, frameCount: 256, sampleRate: rate, hostTime: 1)
        XCTAssertEqual(collect(scheduler.events), [
            ScheduledMIDIEvent(offset: 100, message: .noteOn(channel: 0, note: 60, velocity: 90)),
            ScheduledMIDIEvent(offset: 100, message: .noteOff(channel: 0, note: 60, velocity: 0)),
        ])
        // The panic (scheduler-wide release) goes after each source's last event of the cycle too.
        port.send(.noteOn(channel: 0, note: 62, velocity: 90), at: .sample(300))
        scheduler.releaseAllNotes()
        scheduler.beginCycle(sampleTime: 256, frameCount: 256, sampleRate: rate, hostTime: 2)
        XCTAssertEqual(collect(scheduler.events), [
            ScheduledMIDIEvent(offset: 44, message: .noteOn(channel: 0, note: 62, velocity: 90)),
            ScheduledMIDIEvent(offset: 44, message: .noteOff(channel: 0, note: 62, velocity: 0)),
        ])
        XCTAssertEqual(scheduler.heldCount, 0)
    }

    func testTheWatchdogLeavesTheSongsNotesAlone() throws {
        var events: [MIDIFileEvent] = [MIDIFileEvent(tick: 0, kind: .message(.noteOn(channel: 0, note: 60, velocity: 100)))]
        events.append(MIDIFileEvent(tick: 1920, kind: .message(.noteOff(channel: 0, note: 60, velocity: 0))))  // 2 s at 120 BPM
        let song = StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(480), tracks: [MIDIFileTrack(events: events)])
        let player = MIDIFilePlayer(file: song, sampleRate: 48_000)
        player.play()
        let scheduler = MIDIScheduler(ports: [], filePlayer: player, watchdogSeconds: 0.5)
        let out = try renderGate(scheduler: scheduler, totalFrames: 100_000, cycle: 256, maxBlock: 256)
        XCTAssertEqual(firstFrame(in: out, from: 1) { $0 == 0 }, 96_000, "the note lasts its 2 s")
        XCTAssertEqual(scheduler.watchdogReleaseCount, 0)
    }

    func testTheWatchdogEndsNotesHeldPastTheLimitOnly() throws {
        let port = MIDIInputPort(name: "a")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0.5)
        port.send(.noteOn(channel: 0, note: 60, velocity: 127), at: .sample(0))
        port.send(.noteOn(channel: 0, note: 72, velocity: 127), at: .sample(12_000))
        // Held exactly the limit, then released by its own note-off: not the watchdog's.
        port.send(.noteOff(channel: 0, note: 72, velocity: 0), at: .sample(36_000))
        let out = try renderGate(scheduler: scheduler, totalFrames: 48_000, cycle: 64, maxBlock: 64)
        XCTAssertEqual(out[12_000], 2)
        // Note 60 is ended within the watchdog's 10 ms check interval after 0.5 s.
        let end60 = try XCTUnwrap(firstFrame(in: out, from: 12_000) { $0 < 1.5 })
        XCTAssertEqual(Double(end60) / rate, 0.5, accuracy: 0.011 + 64 / rate)
        XCTAssertEqual(scheduler.watchdogReleaseCount, 1)
        XCTAssertEqual(firstFrame(in: out, from: end60) { $0 < 0.5 }, 36_000)
        XCTAssertEqual(out.last, 0)
        XCTAssertEqual(scheduler.heldCount, 0)
    }

    func testAWatchdogOfZeroNeverFires() throws {
        let port = MIDIInputPort(name: "a")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        port.send(.noteOn(channel: 0, note: 60, velocity: 127), at: .sample(0))
        let out = try renderGate(scheduler: scheduler, totalFrames: 96_000, cycle: 512, maxBlock: 512)
        XCTAssertEqual(out.last, 1)
        XCTAssertEqual(scheduler.watchdogReleaseCount, 0)
    }

    // MARK: What the screen sees

    func testActivityShowsHeldKeysAndLatchesStruckNotesAndDrumHits() {
        let port = MIDIInputPort(name: "a")
        let scheduler = MIDIScheduler(ports: [port])
        port.send(.noteOn(channel: 0, note: 60, velocity: 90))
        port.send(.noteOn(channel: 3, note: 60, velocity: 90))
        port.send(.noteOn(channel: 0, note: 100, velocity: 90))
        port.send(.noteOff(channel: 0, note: 100, velocity: 0))  // a staccato note within one cycle
        port.send(.noteOn(channel: 9, note: 42, velocity: 90))
        scheduler.beginCycle(sampleTime: 0, frameCount: 64, sampleRate: rate, hostTime: 1)
        let activity = scheduler.activity
        XCTAssertTrue(activity.isHeld(60))
        XCTAssertFalse(activity.isHeld(100))
        XCTAssertFalse(activity.isHeld(42), "drums are not piano keys")
        XCTAssertEqual(activity.takeStruckNotes(), [60, 100])
        XCTAssertEqual(activity.takeStruckNotes(), [], "taken once")
        XCTAssertEqual(activity.takeDrumHits(), [42])
        port.send(.noteOff(channel: 0, note: 60, velocity: 0))
        scheduler.beginCycle(sampleTime: 64, frameCount: 64, sampleRate: rate, hostTime: 2)
        XCTAssertTrue(activity.isHeld(60), "still held on channel 4")
        port.send(.controlChange(channel: 3, controller: 123, value: 0))
        scheduler.beginCycle(sampleTime: 128, frameCount: 64, sampleRate: rate, hostTime: 3)
        XCTAssertFalse(activity.isHeld(60))
    }
}

func collect(_ events: MIDIEventBuffer) -> [ScheduledMIDIEvent] {
    (0..<events.count).map { events[$0] }
}

func collectMessages(_ events: MIDIEventBuffer) -> [MIDIMessage] {
    collect(events).map(\.message)
}
