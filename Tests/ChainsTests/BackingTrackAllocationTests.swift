#if canImport(Glibc)
import Glibc
#endif
import AudioFiles
import CAllocationCounter
import Chains
import Engine
import Foundation
import RenderTestSupport
import Synchronization
import XCTest

/// The backing track on the "audio-render" thread allocates and frees
/// nothing while it plays, pauses, resumes, seeks, loops and stops looping,
/// through the resampler (a 44.1 kHz file in a 48 kHz graph); and the same
/// count sees an allocation made on that thread (the negative control).
final class BackingTrackAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
    }

    func testTheTransportAllocatesNothingOnTheRenderThread() throws {
        let rig = try Rig()
        defer { rig.close() }
        let node = rig.node
        XCTAssertTrue(node.waitUntilBuffered())
        node.play()
        let blocks = 6_000, blocksPerMove = 150
        let rendered = Atomic<Int>(0), audible = Atomic<Int>(0), moves = Atomic<Int>(0)
        var actions: [String] = []
        let script: [(String, (BackingTrackNode) -> Void)] = [
            ("pause", { $0.pause() }),
            ("resume", { $0.resume() }),
            ("seek 6 s", { _ = $0.seek(toSeconds: 6) }),
            ("loop 6.2–6.7 s", { try? $0.setLoop(fromSeconds: 6.2, toSeconds: 6.7) }),
            ("pause", { $0.pause() }),
            ("seek 2 s (looped)", { _ = $0.seek(toSeconds: 2) }),
            ("resume", { $0.resume() }),
            ("stop looping", { try? $0.clearLoop() }),
            ("rewind", { _ = $0.rewind() }),
            ("loop 0.5–3 s", { try? $0.setLoop(fromSeconds: 0.5, toSeconds: 3) }),
        ]
        let counts = countAllocationsOnRenderThread(
            engine: rig.engine, blocks: blocks, frames: 64, inputChannels: 0, outputChannels: 2,
            afterEachBlock: { block, output in
                if output[0][10] != 0 || output[0][50] != 0 { audible.add(1, ordering: .relaxed) }
                rendered.store(block + 1, ordering: .releasing)
                // The render thread runs far faster than real time. Every 150
                // blocks it waits (spinning on atomics, which allocates
                // nothing) for the control thread's next transport move, and
                // after every block up to 2 ms for the reader's next frames.
                if block % blocksPerMove == blocksPerMove - 1 {
                    let deadline = monotonicNanoseconds() + 2_000_000_000
                    while moves.load(ordering: .acquiring) <= block / blocksPerMove && monotonicNanoseconds() < deadline {}
                }
                let deadline = monotonicNanoseconds() + 2_000_000
                while node.stream.bufferedFrames < 64 && monotonicNanoseconds() < deadline {}
            },
            control: { _ in
                if moves.load(ordering: .relaxed) < rendered.load(ordering: .acquiring) / blocksPerMove {
                    let (name, action) = script[actions.count % script.count]
                    action(node)
                    actions.append(name)
                    moves.add(1, ordering: .releasing)
                }
            })
        XCTAssertEqual(counts.blocks, blocks)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertGreaterThanOrEqual(actions.count, blocks / blocksPerMove - 1, "the transport moved: \(actions)")
        XCTAssertGreaterThan(audible.load(ordering: .relaxed), blocks / 3, "it played")
        XCTAssertGreaterThanOrEqual(node.stream.landedGeneration, 6, "seeks landed on the render thread")
        print("backing track on the render thread: \(counts); \(actions.count) transport moves; \(audible.load(ordering: .relaxed)) audible blocks; underruns \(node.underrunCount)")
    }

    /// The negative control: the same engine and harness, one malloc on the
    /// render thread after a block, and the count sees it.
    func testTheCountSeesAnAllocationOnTheRenderThread() throws {
        let rig = try Rig()
        defer { rig.close() }
        XCTAssertTrue(rig.node.waitUntilBuffered())
        rig.node.play()
        let counts = countAllocationsOnRenderThread(
            engine: rig.engine, blocks: 200, frames: 64, inputChannels: 0, outputChannels: 2,
            afterEachBlock: { block, _ in
                if block == 100 {
                    backingAllocationSink = malloc(16)
                    free(backingAllocationSink)
                }
            })
        XCTAssertEqual(counts.allocations, 1, "\(counts)")
        XCTAssertEqual(counts.frees, 1, "\(counts)")
    }

    /// A 10 s, 44.1 kHz file and the node in a compiled 48 kHz graph.
    private final class Rig {
        let folder: URL
        let node: BackingTrackNode
        let engine = RenderEngine()

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-backing-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("song.wav").path
            let frames = 441_000
            var samples = [Float](repeating: 0, count: 2 * frames)
            for i in 0..<frames {
                samples[2 * i] = Float(0.4 * sin(2 * Double.pi * 330 * Double(i) / 44_100))
                samples[2 * i + 1] = Float(0.3 * sin(2 * Double.pi * 495 * Double(i) / 44_100))
            }
            let writer = try SoundFileWriter(path: path, sampleRate: 44_100, channelCount: 2, sampleFormat: .s16)
            try writer.write(interleaved: samples)
            try writer.close()
            node = try BackingTrackNode(path: path, sampleRate: 48_000)
            let graph = AudioGraph(inputChannelCount: 0)
            graph.output = graph.add(node)
            engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        }

        func close() {
            engine.releaseAll()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

/// Where the negative control's allocation goes, so the optimizer keeps it.
nonisolated(unsafe) private var backingAllocationSink: UnsafeMutableRawPointer?

/// CLOCK_MONOTONIC in nanoseconds (the vDSO: no allocation, no system call).
private func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
