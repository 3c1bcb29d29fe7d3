import CAllocationCounter
import Engine
import MIDI
import RenderTestSupport
import Sequencing
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
}
