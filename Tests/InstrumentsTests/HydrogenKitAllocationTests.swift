import CAllocationCounter
import Engine
import Foundation
import InstrumentTestSupport
import Instruments
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// A Hydrogen kit played hard from the control thread: the render thread
/// neither allocates nor frees (its layers, gains, mute groups and pitched
/// samples all live in the storage the kit laid out at load).
final class HydrogenKitAllocationTests: XCTestCase {
    func testPlayingAHydrogenKitDoesNotAllocateOnTheRenderThread() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        // VariBreaks has a mute group (its hi-hats); Millo_MultiLayered3 has velocity layers.
        for name in ["VariBreaks", "Millo_MultiLayered3"] {
            let kit = try DrumKit.load(hydrogenKitAt: try HydrogenKitTests.kit(name), sampleRate: 48_000)
            let notes = kit.pads.flatMap(\.notes)
            let rig = try DrumKitEngineRig()
            let port = rig.port, engine = rig.engine
            try rig.node.install(kit)
            let soundingBlocks = Atomic<Int>(0)
            let sent = Atomic<Int>(0)
            let counts = countAllocationsOnRenderThread(
                engine: engine, blocks: 20_000, frames: 64, inputChannels: 0, outputChannels: 2,
                afterEachBlock: { block, output in
                    if output[0][0] != 0 || output[0][63] != 0 { soundingBlocks.add(1, ordering: .relaxed) }
                    // The render thread runs far faster than real time; so that notes really
                    // arrive while it plays, it waits every 50 blocks (spinning on an atomic,
                    // which allocates nothing) for the control thread's next note.
                    if block % 50 == 49 {
                        let deadline = MIDIInputPort.hostTimeNow + 5_000_000_000
                        while sent.load(ordering: .acquiring) <= block / 50 && MIDIInputPort.hostTimeNow < deadline {}
                    }
                },
                control: { iteration in
                    // Every note of the kit, at velocities across every layer, with note-offs.
                    let note = notes[iteration % notes.count]
                    port.send(.noteOn(channel: 9, note: note, velocity: UInt8(1 + (iteration * 37) % 127)))
                    if iteration % 5 == 0 { port.send(.noteOff(channel: 9, note: note, velocity: 0)) }
                    sent.add(1, ordering: .releasing)
                })
            XCTAssertEqual(counts.blocks, 20_000)
            XCTAssertEqual(counts.allocations, 0, "\(name): allocations on the audio-render thread: \(counts)")
            XCTAssertEqual(counts.frees, 0, "\(name): frees on the audio-render thread: \(counts)")
            XCTAssertGreaterThanOrEqual(sent.load(ordering: .relaxed), 400, "\(name): notes arrived while it played")
            XCTAssertGreaterThan(soundingBlocks.load(ordering: .relaxed), 100, "\(name) was heard")
            print("hydrogen kit \(name): \(sent.load(ordering: .relaxed)) notes sent while rendering, \(counts)")
            engine.releaseAll()
        }
    }
}
