import Engine
import XCTest

/// A NaN, an infinity or an absurd sample is a fault of one block: the plan
/// silences the output that holds it before any later node reads it, resets
/// the node that made it, counts it, and the next block is sound again.
final class FaultSilencingTests: XCTestCase {
    private let spec = ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)

    /// Emits a constant 0.25 except in the blocks listed, where one sample is `fault`;
    /// counts its resets.
    private final class FaultySource: AudioNode {
        let faultyBlocks: Set<Int>
        let fault: Float
        var block = 0
        var resets = 0
        init(faultyBlocks: Set<Int>, fault: Float) {
            self.faultyBlocks = faultyBlocks
            self.fault = fault
            super.init(name: "faulty")
        }
        override var inputBusCount: Int { 0 }
        override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }
        override func reset() { resets += 1 }
        override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
            output[0].update(repeating: 0.25, count: output.frameCount)
            if faultyBlocks.contains(block) { output[0][output.frameCount / 2] = fault }
            block += 1
        }
    }

    /// A one-pole recursion, y = x + 0.99·y: one NaN into it and every later
    /// output is NaN — the kind of state the plan must never let a fault reach.
    private final class RecursiveNode: AudioNode {
        var state: Float = 0
        init() { super.init(name: "recursion") }
        override func reset() { state = 0 }
        override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
            for i in 0..<output.frameCount {
                state = inputs[0][0][i] + 0.99 * state
                output[0][i] = state * 0.01
            }
        }
    }

    private func plan(_ source: FaultySource, _ recursion: RecursiveNode) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: 0)
        let s = graph.add(source)
        let r = graph.add(recursion)
        try graph.connect(s, to: r)
        graph.output = r
        return try graph.compile(spec: spec)
    }

    /// Each kind of fault, one block in ten: that block is silenced at the
    /// source, the recursion downstream stays finite, and the block after it
    /// is sound (its output climbs from silence as a fresh recursion would).
    func testAFaultyBlockIsSilencedAtItsSourceAndTheNextBlockIsSound() throws {
        for fault in [Float.nan, .infinity, -.infinity, 1e30, 65536] {
            let source = FaultySource(faultyBlocks: [3], fault: fault)
            let recursion = RecursiveNode()
            let plan = try plan(source, recursion)
            let engine = RenderEngine()
            engine.install(plan)
            let out = AudioBuffer(channelCount: 1, capacity: 64)
            var blocks: [[Float]] = []
            for _ in 0..<6 {
                engine.render(input: nil, output: out.block(frames: 64))
                blocks.append(Array(UnsafeBufferPointer(start: out.block(frames: 64)[0], count: 64)))
            }
            XCTAssertTrue(blocks.joined().allSatisfy(\.isFinite), "\(fault): a fault reached the output")
            XCTAssertEqual(engine.silencedBlockCount, 1, "\(fault)")
            XCTAssertEqual(source.silencedBlockCount, 1, "\(fault)")
            XCTAssertEqual(recursion.silencedBlockCount, 0, "\(fault): the recursion never saw it")
            XCTAssertEqual(engine.silencedAudio(), SilencedAudio(blocks: 1, firstFrame: 3 * 64, nodes: [("faulty", 1)]), "\(fault)")
            // The faulty source was reset once at prepare and once for the fault.
            XCTAssertEqual(source.resets, 2, "\(fault)")
            // Block 3 fed silence into the recursion: it decays from where block 2 left it…
            XCTAssertLessThan(blocks[3][63], blocks[2][63], "\(fault)")
            // …and block 4 is sound again: rising with the source's 0.25, no trace of the fault.
            XCTAssertGreaterThan(blocks[4][63], blocks[4][0], "\(fault)")
            XCTAssertGreaterThan(blocks[4][0], 0, "\(fault)")
            engine.releaseAll()
        }
    }

    /// The bound is a fault's, not a loud signal's: +90 dBFS passes untouched.
    func testLoudButPlausibleSamplesPass() throws {
        let source = FaultySource(faultyBlocks: [1], fault: 30_000)
        let recursion = RecursiveNode()
        let plan = try plan(source, recursion)
        let out = AudioBuffer(channelCount: 1, capacity: 64)
        for _ in 0..<3 { plan.render(input: nil, output: out.block(frames: 64)) }
        XCTAssertEqual(source.silencedBlockCount, 0)
        XCTAssertEqual(source.resets, 1)
    }

    /// The external input is checked too: a NaN from a file or a client is
    /// silenced before the first node reads it.
    func testAFaultInTheInputIsSilencedBeforeAnyNode() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        let recursion = RecursiveNode()
        let r = graph.add(recursion)
        try graph.connect(graph.input, to: r)
        graph.output = r
        let plan = try graph.compile(spec: spec)
        let input = AudioBuffer(channelCount: 1, capacity: 64)
        let out = AudioBuffer(channelCount: 1, capacity: 64)
        input.block(frames: 64)[0].update(repeating: 0.5, count: 64)
        input.block(frames: 64)[0][10] = .nan
        XCTAssertEqual(plan.render(input: input.block(frames: 64), output: out.block(frames: 64)), 1)
        XCTAssertEqual(recursion.state, 0, "the recursion read silence, not the NaN")
        input.block(frames: 64)[0][10] = 0.5
        XCTAssertEqual(plan.render(input: input.block(frames: 64), output: out.block(frames: 64)), 0)
        XCTAssertGreaterThan(out.block(frames: 64)[0][63], 0)
        XCTAssertEqual(plan.nodes.first { $0.name == "input" }?.silencedBlockCount, 1)
    }

    /// The check itself, on every position of a block (the vector body and the tail).
    func testHoldsFaultFindsAFaultAtEveryPosition() {
        let buffer = AudioBuffer(channelCount: 2, capacity: 37)
        let block = buffer.block(frames: 37)
        for c in 0..<2 { block[c].update(repeating: -65535.9, count: 37) }
        XCTAssertFalse(block.holdsFault)
        for channel in 0..<2 {
            for i in 0..<37 {
                for fault in [Float.nan, -.nan, .infinity, -.infinity, 65536, -65536, .greatestFiniteMagnitude] {
                    let kept = block[channel][i]
                    block[channel][i] = fault
                    XCTAssertTrue(block.holdsFault, "\(fault) at \(channel):\(i)")
                    block[channel][i] = kept
                }
            }
        }
        XCTAssertFalse(block.holdsFault)
    }
}
