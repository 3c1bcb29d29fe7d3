#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import Engine
import MIDI
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// The whole MIDI path on the audio thread (draining ports, placing events,
/// note tracking, the watchdog, the file player, block splitting) allocates
/// nothing while the control thread plays notes the whole time.
final class MIDIRenderAllocationTests: XCTestCase {
    func testSchedulingAndPlaybackDoNotAllocate() throws {
        let keys = MIDIInputPort(name: "keys"), pads = MIDIInputPort(name: "pads")
        var events: [MIDIFileEvent] = []
        for beat in 0..<16 {
            events.append(MIDIFileEvent(tick: beat * 24, kind: .message(.noteOn(channel: 0, note: UInt8(48 + beat), velocity: 100))))
            events.append(MIDIFileEvent(tick: beat * 24 + 12, kind: .message(.noteOff(channel: 0, note: UInt8(48 + beat), velocity: 0))))
        }
        events.append(MIDIFileEvent(tick: 16 * 24, kind: .meta(.endOfTrack)))
        // 96 ticks per quarter at 120 BPM: a sixteenth every 62.5 ms, a 1 s loop.
        let song = StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(96), tracks: [MIDIFileTrack(events: events)])
        let player = MIDIFilePlayer(file: song, sampleRate: 48_000)
        player.isLooping = true
        player.play()
        let scheduler = MIDIScheduler(ports: [keys, pads], filePlayer: player, watchdogSeconds: 0.05)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(GateInstrument(events: scheduler.events))
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))

        // A pad held with no release: the watchdog (0.05 s = 2400 frames) must
        // end it inside the counted blocks whatever the two threads' timing,
        // so the warm-up (4 × 256 frames) stays shorter than the limit.
        XCTAssertTrue(pads.send(.noteOn(channel: 9, note: 38, velocity: 90)))
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: 3000, frames: 256, inputChannels: 0, outputChannels: 1, warmUpBlocks: 4,
            control: { iteration in
                let note = UInt8(36 + iteration % 48)
                // Notes left on are ended by the watchdog or the release below.
                keys.send(.noteOn(channel: 0, note: note, velocity: 100), at: .hostNanoseconds(MIDIInputPort.hostTimeNow))
                if iteration % 3 == 0 { keys.send(.noteOff(channel: 0, note: note, velocity: 0)) }
                if iteration % 50 == 0 { keys.releaseAllNotes() }
                if iteration % 7 == 0 { player.tempoScale = 0.5 + Double(iteration % 4) / 2 }
            })
        engine.releaseAll()
        guard busker_allocation_counting_supported() != 0 else { return }
        XCTAssertEqual(counts.blocks, 3000)
        XCTAssertEqual(counts.allocations, 0, "\(counts)")
        XCTAssertEqual(counts.frees, 0, "\(counts)")
        XCTAssertGreaterThan(scheduler.deliveredCount, 0)
        XCTAssertGreaterThan(scheduler.watchdogReleaseCount, 0, "the watchdog ran")
    }

    /// The transport moving the whole time: seeks with their chase, loop
    /// sections set and cleared with seams crossed, transpositions, pauses,
    /// resumes, plays and the tempo scale, while the render thread plays the
    /// song: nothing allocated or freed there. The negative control: the same
    /// run with the gate allocating once is counted.
    func testTheTransportMovingDoesNotAllocate() throws {
        func run(allocatingOnce: Bool) throws -> (RenderThreadAllocations, delivered: Int, seeks: Int) {
            let player = MIDIFilePlayer(file: MIDIFileTransportTests.song(), sampleRate: 48_000)
            player.isLooping = true
            player.play()
            let scheduler = MIDIScheduler(ports: [], filePlayer: player, watchdogSeconds: 0)
            let gate = GateInstrument(events: scheduler.events)
            let graph = AudioGraph(inputChannelCount: 0)
            graph.output = graph.add(gate)
            let engine = RenderEngine()
            engine.attach(scheduler)
            engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
            var seeks = 0
            // The render thread waits for the control thread every 4 blocks,
            // so the transport moves throughout however the host schedules the two.
            let steps = StepCounter()
            let counts = countAllocationsOnRenderThread(
                engine: engine, blocks: 6_000, frames: 256, inputChannels: 0, outputChannels: 1, warmUpBlocks: 4,
                afterEachBlock: { block, _ in
                    if allocatingOnce && block == 10 { gate.allocateOnce.store(true, ordering: .releasing) }
                    while steps.value.load(ordering: .acquiring) < block / 4 { sched_yield() }
                },
                control: { step in
                    defer { steps.value.add(1, ordering: .releasing) }
                    switch step % 9 {
                    case 0: if (try? player.seek(toBar: 1 + step % 6)) != nil { seeks += 1 }
                    case 1: try? player.setLoopSection(startBar: 1 + step % 4, endBar: 2 + step % 5 + step % 4)
                    case 2: player.transposeSemitones = step % 49 - 24
                    case 3: player.pause()
                    case 4: player.resume()
                    case 5: if (try? player.seek(toSeconds: Double(step % 11))) != nil { seeks += 1 }
                    case 6: player.clearLoopSection()
                    case 7: player.tempoScale = [0.5, 1, 3][step % 3]
                    default: if step % 4 == 0 { player.play() } else { player.stop(); player.play() }
                    }
                })
            engine.releaseAll()
            return (counts, scheduler.deliveredCount, seeks)
        }
        let (counts, delivered, seeks) = try run(allocatingOnce: false)
        print("transport moving: \(counts), \(seeks) seeks, \(delivered) messages delivered")
        guard busker_allocation_counting_supported() != 0 else { return }
        XCTAssertEqual(counts.blocks, 6_000)
        XCTAssertEqual(counts.allocations, 0, "\(counts)")
        XCTAssertEqual(counts.frees, 0, "\(counts)")
        XCTAssertGreaterThan(delivered, 100, "the song played")
        XCTAssertGreaterThan(seeks, 100, "the transport moved")
        let (control, _, _) = try run(allocatingOnce: true)
        print("negative control: \(control)")
        XCTAssertGreaterThanOrEqual(control.allocations, 1, "the negative control is counted: \(control)")
    }
}

/// How many steps the control thread has taken, for the render thread to wait on.
private final class StepCounter: Sendable {
    let value = Atomic<Int>(0)
}
