import CAllocationCounter
import Engine
import Foundation
import InstrumentTestSupport
import Instruments
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// Loading and swapping kits while the kit plays: the render thread neither
/// allocates nor frees; retired kits come back and are freed on the control thread.
final class DrumKitSwapAllocationTests: XCTestCase {
    func testLoadingKitsWhilePlayingDoesNotAllocateOnTheRenderThread() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        let folder = try TestKitFolder()
        let tone = (0..<9600).map { Float(0.4 * sin(2 * Double.pi * 300 * Double($0) / 48_000)) }
        try folder.writeSample("tone.wav", tone)
        try folder.writeSample("short.wav", Array(tone[0..<2000]))
        let pads = [
            TestKitFolder.pad(note: 36, samples: ["tone.wav"]),
            TestKitFolder.pad(note: 42, samples: ["short.wav", "tone.wav"], extra: #""chokeGroup": "hh","#),
            TestKitFolder.pad(note: 46, samples: ["tone.wav"], extra: #""chokeGroup": "hh", "voices": 2,"#),
        ]
        let manifest = try folder.writeManifest(TestKitFolder.manifest(pads: pads))

        let rig = try DrumKitEngineRig()
        let port = rig.port, engine = rig.engine, node = rig.node
        try node.install(try DrumKit.load(manifestAt: manifest, sampleRate: 48_000))

        // Weak references to every kit handed over: a replaced kit must come
        // back and be freed on this thread (by `install` or `collectRetired`).
        var installed: [WeakKit] = []
        let soundingBlocks = Atomic<Int>(0)
        // The render thread runs far faster than real time; so that kits are
        // really loaded while it plays, it waits every 500 blocks (spinning on
        // an atomic, which allocates nothing) until the control thread has
        // loaded and installed one more kit.
        let installs = Atomic<Int>(0)
        let notes: [UInt8] = [36, 42, 46, 42, 36, 46]
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: 20_000, frames: 64, inputChannels: 0, outputChannels: 2,
            afterEachBlock: { block, output in
                if output[0][0] != 0 || output[0][63] != 0 { soundingBlocks.add(1, ordering: .relaxed) }
                if block % 500 == 499 {
                    let deadline = MIDIInputPort.hostTimeNow + 5_000_000_000
                    while installs.load(ordering: .acquiring) <= block / 500 && MIDIInputPort.hostTimeNow < deadline {}
                }
            },
            control: { iteration in
                // The control thread plays, loads kits from disk and installs
                // them as fast as the audio thread takes them, and frees the
                // kits it gets back.
                port.send(.noteOn(channel: 9, note: notes[iteration % notes.count], velocity: UInt8(20 + iteration % 100)))
                if iteration % 7 == 0 { port.send(.channelMode(.allNotesOff, channel: 9)) }
                if !node.hasPendingKit, let kit = try? DrumKit.load(manifestAt: manifest, sampleRate: 48_000) {
                    installed.append(WeakKit(kit))
                    try? node.install(kit)
                    installs.add(1, ordering: .releasing)
                }
                node.collectRetired()
            })
        XCTAssertEqual(counts.blocks, 20_000)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertGreaterThanOrEqual(node.kitSwapCount, 40, "kits were swapped while playing")
        XCTAssertGreaterThan(soundingBlocks.load(ordering: .relaxed), 100, "the kit was heard")
        // Let the last swap's fade finish, then collect.
        let silence = AudioBuffer(channelCount: 2, capacity: 64)
        for _ in 0..<16 { engine.render(input: nil, output: silence.block(frames: 64)) }
        node.collectRetired()
        let alive = installed.filter { $0.kit != nil }.count
        XCTAssertEqual(alive, 1, "only the playing kit is alive: every replaced kit came back and was freed on the control thread")
        XCTAssertGreaterThanOrEqual(installed.count, 40)
        print("drum kit swap: \(node.kitSwapCount) kits swapped in while playing, \(installed.count - alive) freed on the control thread, \(counts)")
        engine.releaseAll()
    }
}

private final class WeakKit {
    weak var kit: DrumKit?
    init(_ kit: DrumKit) { self.kit = kit }
}
