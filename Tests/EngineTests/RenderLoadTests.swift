import Engine
import Synchronization
import XCTest

/// The test's clock, in nanoseconds: `ClockNode` moves it on as it renders,
/// so the engine sees each block take exactly what the node says.
private let testClock = Atomic<UInt64>(1_000_000)

/// The DSP load: the engine times each block with its `RenderClock`, and
/// `RenderLoadMeter` turns the times into the screen's figures.
final class RenderLoadTests: XCTestCase {
    /// 48 kHz, 480-frame blocks: 10 ms of audio each.
    private let spec = ProcessSpec(sampleRate: 48_000, maximumBlockSize: 480)
    private let blockNanoseconds: UInt64 = 10_000_000

    private func engine(with node: ClockNode) throws -> RenderEngine {
        let engine = RenderEngine(clock: RenderClock(now: { testClock.load(ordering: .relaxed) }))
        let graph = AudioGraph(inputChannelCount: 1)
        let id = graph.add(node)
        try graph.connect(graph.input, to: id)
        graph.output = id
        engine.install(try graph.compile(spec: spec))
        return engine
    }

    /// The meter's wall clock, moved by the test.
    private final class WallClock {
        var seconds = 100.0
    }

    private func meter(_ engine: RenderEngine, _ wall: WallClock) -> RenderLoadMeter {
        RenderLoadMeter(engine: engine, wallClock: { wall.seconds })
    }

    private func render(_ engine: RenderEngine, blocks: Int, frames: Int = 480) {
        let input = AudioBuffer(channelCount: 1, capacity: max(1, frames))
        let output = AudioBuffer(channelCount: 1, capacity: max(1, frames))
        for _ in 0..<blocks { engine.render(input: input.block(frames: frames), output: output.block(frames: frames)) }
    }

    /// Blocks that each take a quarter of their 10 ms read 25 %; one that
    /// takes 9 ms is the peak, 90 %, and moves the average by 65 % / 100 blocks.
    func testTheLoadIsRenderTimeOverAudioTimeAndThePeakTheWorstBlock() throws {
        let node = ClockNode(name: "clock")
        let engine = try engine(with: node)
        defer { engine.releaseAll() }
        let meter = meter(engine, WallClock())
        node.nanosecondsPerBlock = blockNanoseconds / 4
        render(engine, blocks: 99)
        XCTAssertNil(meter.update(), "0.99 s of audio: no window complete yet")
        node.nanosecondsPerBlock = blockNanoseconds * 9 / 10
        render(engine, blocks: 1)
        let reading = try XCTUnwrap(meter.update())
        XCTAssertEqual(reading.average, 25.65, accuracy: 1e-9)
        XCTAssertEqual(reading.peak, 90, accuracy: 1e-4)
        XCTAssertEqual(reading.description, "DSP 26 % (peak 90 %)")

        // The next second starts afresh: its peak is its own.
        node.nanosecondsPerBlock = blockNanoseconds / 50
        render(engine, blocks: 100)
        let next = try XCTUnwrap(meter.update())
        XCTAssertEqual(next.average, 2, accuracy: 1e-9)
        XCTAssertEqual(next.peak, 2, accuracy: 1e-4)
        XCTAssertEqual(next.description, "DSP 2.0 % (peak 2.0 %)")
        // The session's: the average of both seconds, the larger peak.
        let session = try XCTUnwrap(meter.session())
        XCTAssertEqual(session.average, 13.825, accuracy: 1e-9)
        XCTAssertEqual(session.peak, 90, accuracy: 1e-4)
        XCTAssertEqual(session.summary, "DSP load 14 % on average, 90 % in the worst block")
    }

    /// The session's figures at the end take in the second under way: a
    /// session shorter than a window still has them, its worst block included.
    func testTheSessionIncludesTheWindowUnderWay() throws {
        let node = ClockNode(name: "clock")
        let engine = try engine(with: node)
        defer { engine.releaseAll() }
        let meter = meter(engine, WallClock())
        XCTAssertNil(meter.session(), "nothing rendered: no figures")
        node.nanosecondsPerBlock = blockNanoseconds / 10
        render(engine, blocks: 29)
        node.nanosecondsPerBlock = blockNanoseconds * 7 / 10
        render(engine, blocks: 1)
        XCTAssertNil(meter.update(), "0.3 s: no window yet")
        let session = try XCTUnwrap(meter.session())
        XCTAssertEqual(session.average, 12, accuracy: 1e-9)  // (29 × 1 + 7) ms over 300 ms
        XCTAssertEqual(session.peak, 70, accuracy: 1e-4)
    }

    /// A device suspended (no block for 2 s of wall time): the reading goes
    /// rather than stay on screen as if current, and the first reading after
    /// audio comes back is of the new blocks only.
    func testNoBlocksForTwoSecondsDropsTheReadingAndTheNextStartsAfresh() throws {
        let node = ClockNode(name: "clock")
        let engine = try engine(with: node)
        defer { engine.releaseAll() }
        let wall = WallClock()
        let meter = meter(engine, wall)
        node.nanosecondsPerBlock = blockNanoseconds / 2
        render(engine, blocks: 150)
        XCTAssertEqual(try XCTUnwrap(meter.update()).average, 50, accuracy: 1e-9)
        wall.seconds += 1.75
        XCTAssertNotNil(meter.update(), "1.75 s without a block: still shown")
        wall.seconds += 0.25
        XCTAssertNil(meter.update(), "2 s without a block: dropped")
        XCTAssertNil(meter.update())
        // Back: the half window from before the stop is not mixed in.
        node.nanosecondsPerBlock = blockNanoseconds / 20
        render(engine, blocks: 99)
        XCTAssertNil(meter.update(), "0.99 s since audio came back")
        render(engine, blocks: 1)
        let back = try XCTUnwrap(meter.update())
        XCTAssertEqual(back.average, 5, accuracy: 1e-9)
        XCTAssertEqual(back.peak, 5, accuracy: 1e-4)
    }

    /// A driver's cycle longer than the plan's block is split, and counted as
    /// one block of its whole length; without a plan nothing is counted.
    func testASplitCycleIsOneBlockAndNoPlanCountsNothing() throws {
        let idle = RenderEngine(clock: RenderClock(now: { testClock.load(ordering: .relaxed) }))
        render(idle, blocks: 10)
        XCTAssertEqual(idle.loadCounters.audio, 0)
        XCTAssertEqual(idle.takeWorstBlockLoad(), 0)

        let node = ClockNode(name: "clock")
        let engine = try engine(with: node)
        defer { engine.releaseAll() }
        node.nanosecondsPerBlock = 1_000_000
        render(engine, blocks: 1, frames: 1920)  // four plan blocks, 40 ms of audio, 4 ms of render
        XCTAssertEqual(engine.loadCounters.busy, 4_000_000)
        XCTAssertEqual(engine.loadCounters.audio, 40_000_000)
        XCTAssertEqual(engine.takeWorstBlockLoad(), 0.1, accuracy: 1e-6)
        XCTAssertEqual(engine.takeWorstBlockLoad(), 0, "taken: the next maximum starts from 0")
        render(engine, blocks: 3, frames: 0)
        XCTAssertEqual(engine.loadCounters.audio, 40_000_000, "an empty block counts nothing")
        XCTAssertEqual(engine.takeWorstBlockLoad(), 0)
    }
}

/// Copies its input and moves the test clock on by `nanosecondsPerBlock` each render.
private final class ClockNode: AudioNode {
    var nanosecondsPerBlock: UInt64 = 0
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.copy(from: inputs[0])
        testClock.add(nanosecondsPerBlock, ordering: .relaxed)
    }
}
