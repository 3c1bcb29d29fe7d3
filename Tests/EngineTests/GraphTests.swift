#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import Engine
import Synchronization
import RenderTestSupport
import XCTest

/// Graph compilation (errors, order, node formats), block splitting, and the
/// wait-free plan exchange under a running "audio-render" thread.
final class GraphTests: XCTestCase {
    private let spec = ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)

    // MARK: Compile errors

    func testCycleIsRejected() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        let a = graph.add(PassNode(name: "a"))
        let b = graph.add(PassNode(name: "b"))
        let mix = graph.add(TwoBusSumNode(name: "mix"))
        try graph.connect(graph.input, to: mix, bus: 0)
        try graph.connect(b, to: mix, bus: 1)
        try graph.connect(mix, to: a)
        try graph.connect(a, to: b)  // mix → a → b → mix
        graph.output = mix
        assertCompile(graph, throws: { error in
            guard case let .cycle(name) = error else { return false }
            return ["a", "b", "mix"].contains(name)
        })
    }

    func testSelfLoopIsRejected() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        let a = graph.add(PassNode(name: "a"))
        try graph.connect(a, to: a)
        graph.output = a
        assertCompile(graph, throws: { $0 == .cycle(involving: "a") })
    }

    func testBadBusIsRejected() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        let a = graph.add(PassNode(name: "a"))
        let mix = graph.add(TwoBusSumNode(name: "mix"))
        let source = graph.add(CounterSource(name: "counter"))
        assertThrows(.noSuchBus(node: "a", bus: 1, busCount: 1)) { try graph.connect(graph.input, to: a, bus: 1) }
        assertThrows(.noSuchBus(node: "mix", bus: 2, busCount: 2)) { try graph.connect(a, to: mix, bus: 2) }
        assertThrows(.noSuchBus(node: "mix", bus: -1, busCount: 2)) { try graph.connect(a, to: mix, bus: -1) }
        assertThrows(.noSuchBus(node: "counter", bus: 0, busCount: 0)) { try graph.connect(a, to: source) }
        // A node id from another, bigger graph does not exist here.
        let other = AudioGraph(inputChannelCount: 1)
        for _ in 0..<5 { other.add(PassNode(name: "x")) }
        let foreign = other.add(PassNode(name: "foreign"))
        assertThrows(.unknownNode(foreign.index)) { try graph.connect(foreign, to: a) }
        assertThrows(.unknownNode(foreign.index)) { try graph.connect(a, to: foreign) }
        // Nothing half-made was left behind: the graph still compiles cleanly.
        try graph.connect(graph.input, to: a)
        graph.output = a
        XCTAssertNoThrow(try graph.compile(spec: spec))
    }

    func testDoubleConnectionIsRejected() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        let a = graph.add(PassNode(name: "a"))
        let b = graph.add(PassNode(name: "b"))
        let mix = graph.add(TwoBusSumNode(name: "mix"))
        try graph.connect(a, to: mix, bus: 0)
        assertThrows(.busAlreadyConnected(node: "mix", bus: 0)) { try graph.connect(a, to: mix, bus: 0) }
        assertThrows(.busAlreadyConnected(node: "mix", bus: 0)) { try graph.connect(b, to: mix, bus: 0) }
        XCTAssertNoThrow(try graph.connect(b, to: mix, bus: 1))
        assertThrows(.busAlreadyConnected(node: "mix", bus: 1)) { try graph.connect(graph.input, to: mix, bus: 1) }
    }

    func testMissingOutputIsRejected() throws {
        let graph = AudioGraph(inputChannelCount: 2)
        let a = graph.add(PassNode(name: "a"))
        try graph.connect(graph.input, to: a)
        assertCompile(graph, throws: { $0 == .noOutput })
        graph.output = a
        XCTAssertNoThrow(try graph.compile(spec: spec))
    }

    // MARK: Order and formats

    func testTopologicalOrderRespectsEveryConnection() throws {
        let graph = AudioGraph(inputChannelCount: 1)
        // Added in reverse: insertion order alone would be wrong.
        let out = graph.add(PassNode(name: "out"))
        let mix = graph.add(TwoBusSumNode(name: "mix"))
        let right = graph.add(PassNode(name: "right"))
        let left = graph.add(PassNode(name: "left"))
        let source = graph.add(CounterSource(name: "counter"))
        let tap = graph.add(PassNode(name: "tap"))  // a side branch that does not lead to the output
        try graph.connect(graph.input, to: left)
        try graph.connect(source, to: right)
        try graph.connect(left, to: mix, bus: 0)
        try graph.connect(right, to: mix, bus: 1)
        try graph.connect(mix, to: out)
        try graph.connect(source, to: tap)
        graph.output = out
        let plan = try graph.compile(spec: spec)

        XCTAssertEqual(plan.nodes.count, 7, "every node runs, the side branch included")
        func position(_ id: AudioGraph.NodeID) -> Int {
            plan.nodes.firstIndex { $0 === graph.node(id) } ?? -1
        }
        let edges: [(AudioGraph.NodeID, AudioGraph.NodeID)] = [
            (graph.input, left), (source, right), (left, mix), (right, mix), (mix, out), (source, tap),
        ]
        for (from, to) in edges {
            XCTAssertGreaterThanOrEqual(position(from), 0)
            XCTAssertLessThan(position(from), position(to), "\(graph.node(from).name) must run before \(graph.node(to).name)")
        }
        XCTAssertEqual(plan.outputChannelCount, 2, "mix of mono input and stereo counter")
        // Kahn with sorted ties: deterministic.
        XCTAssertEqual(plan.nodes.map(\.name), ["input", "left", "counter", "right", "mix", "out", "tap"])
    }

    func testLiveNodeCannotChangeFormatButCanJoinANewPlanWithTheSameSpec() throws {
        let shared = PassNode(name: "shared")
        let engine = RenderEngine()
        let first = AudioGraph(inputChannelCount: 1)
        let s1 = first.add(shared)
        try first.connect(first.input, to: s1)
        first.output = s1
        engine.install(try first.compile(spec: spec))
        XCTAssertEqual(shared.preparedFormat?.spec, spec)

        // Same node, another sample rate, while the first plan is live: refused.
        let second = AudioGraph(inputChannelCount: 1)
        let s2 = second.add(shared)
        try second.connect(second.input, to: s2)
        second.output = s2
        assertCompile(second, spec: ProcessSpec(sampleRate: 44_100, maximumBlockSize: 64),
                      throws: { $0 == .liveNodeFormatChange(node: "shared") })
        assertCompile(second, spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 128),
                      throws: { $0 == .liveNodeFormatChange(node: "shared") })
        XCTAssertEqual(shared.preparedFormat?.spec, spec, "the refused compile left the live node alone")

        // Different input channel count is a different format too.
        let third = AudioGraph(inputChannelCount: 2)
        let s3 = third.add(shared)
        try third.connect(third.input, to: s3)
        third.output = s3
        assertCompile(third, throws: { $0 == .liveNodeFormatChange(node: "shared") })

        // Same spec and inputs: the node joins the new plan without re-preparing (state kept).
        do {
            shared.marker = 42
            let reused = try second.compile(spec: spec)
            XCTAssertEqual(shared.allocateCount, 1)
            XCTAssertEqual(shared.marker, 42, "not reset")
            XCTAssertTrue(reused.nodes.contains { $0 === shared })
            engine.install(reused)
        }

        // Once no plan holds it any more, it may be re-prepared for another spec.
        engine.releaseAll()
        let fourth = AudioGraph(inputChannelCount: 1)
        let s4 = fourth.add(shared)
        try fourth.connect(fourth.input, to: s4)
        fourth.output = s4
        let other = ProcessSpec(sampleRate: 44_100, maximumBlockSize: 32)
        XCTAssertNoThrow(try fourth.compile(spec: other))
        XCTAssertEqual(shared.preparedFormat?.spec, other)
        XCTAssertEqual(shared.allocateCount, 2)
    }

    // MARK: Block splitting

    func testBlocksLargerThanTheMaximumAreSplit() throws {
        // input (ramp) → pass → check bus 0; counter → check bus 1; both checked frame by frame.
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 1)
        let counter = CounterSource(name: "counter")
        let c = graph.add(counter)
        let pass = graph.add(PassNode(name: "pass"))
        try graph.connect(graph.input, to: pass)
        let splitter = graph.add(SplitCheck(name: "check"))
        try graph.connect(pass, to: splitter, bus: 0)
        try graph.connect(c, to: splitter, bus: 1)
        graph.output = splitter
        engine.install(try graph.compile(spec: spec))

        var expectedStart = 0
        for frames in [1000, 64, 65, 1, 333, 128, 4096] {
            let input = AudioBuffer(channelCount: 1, capacity: frames)
            for i in 0..<frames { input[0][i] = Float(1000 + i) }
            let output = AudioBuffer(channelCount: 3, capacity: frames)
            let before = engine.renderedBlockCount
            engine.render(input: input.block(frames: frames), output: output.block(frames: frames))
            XCTAssertEqual(engine.renderedBlockCount, before + 1)
            var bad = 0
            for i in 0..<frames {
                if output[0][i] != Float(1000 + i) { bad += 1 }  // the input, sliced in step with the output
                if decodeCounter(output[1][i], output[2][i]) != expectedStart + i { bad += 1 }
            }
            XCTAssertEqual(bad, 0, "\(frames)-frame block: \(bad) wrong samples")
            expectedStart += frames
        }
        XCTAssertEqual(counter.largestBlock, 64, "no node ever saw more than the maximum block size")
        engine.releaseAll()
    }

    /// A capture block shorter than the output block: the missing input frames
    /// are silence, not whatever the input node held from the previous block.
    func testShortInputBlockReadsSilenceForTheMissingFrames() throws {
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 1)
        let pass = graph.add(PassNode(name: "pass"))
        try graph.connect(graph.input, to: pass)
        graph.output = pass
        engine.install(try graph.compile(spec: spec))
        let input = AudioBuffer(channelCount: 1, capacity: 200)
        for i in 0..<200 { input[0][i] = 1 }
        let output = AudioBuffer(channelCount: 1, capacity: 200)
        // A full block first, so the input node's buffer holds non-zero samples.
        engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
        for (inputFrames, outputFrames) in [(40, 64), (100, 200), (0, 150)] {
            engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
            engine.render(input: input.block(frames: inputFrames), output: output.block(frames: outputFrames))
            let copied = (0..<inputFrames).filter { output[0][$0] == 1 }.count
            let silent = (inputFrames..<outputFrames).filter { output[0][$0] == 0 }.count
            XCTAssertEqual(copied, inputFrames, "\(inputFrames) input frames into \(outputFrames)")
            XCTAssertEqual(silent, outputFrames - inputFrames, "\(inputFrames) input frames into \(outputFrames)")
        }
        engine.releaseAll()
    }

    // MARK: Plan exchange under a running render thread

    /// Installs 1000 plans of two alternating shapes while the audio thread
    /// renders continuously. The counter node is in every plan, so its output
    /// must run on without a gap: no block lost or repeated across swaps. Every
    /// retired plan must be freed, and none on the audio thread; the audio
    /// thread must not allocate or free at all while swapping.
    ///
    /// Each plan has a pass node of its own that only the plan holds (the graph
    /// that built it is gone): the node is freed with the plan, on the thread
    /// that frees the plan, and its deinit records that thread.
    func testInstallingThousandPlansWhileRenderingLosesNothingAndFreesOffTheAudioThread() throws {
        let frames = 64
        let installs = 1000
        let counter = CounterSource(name: "counter")
        let engine = RenderEngine()

        let deinits = DeinitRecorder()

        var weakPlans: [WeakPlan] = []
        func makePlan(_ k: Int) throws -> RenderPlan {
            let graph = AudioGraph(inputChannelCount: 1)
            let c = graph.add(counter)
            if k % 2 == 0 {
                // Shape A: counter → pass → output.
                let pass = graph.add(PlanOwnedPass(name: "pass-\(k)", deinits: deinits))
                try graph.connect(c, to: pass)
                graph.output = pass
            } else {
                // Shape B: counter + silent capture → mix → pass → output.
                let mix = graph.add(TwoBusSumNode(name: "mix-\(k)"))
                let pass = graph.add(PlanOwnedPass(name: "pass-\(k)", deinits: deinits))
                try graph.connect(c, to: mix, bus: 0)
                try graph.connect(graph.input, to: mix, bus: 1)
                try graph.connect(mix, to: pass)
                graph.output = pass
            }
            let plan = try graph.compile(spec: spec)
            weakPlans.append(WeakPlan(plan))
            return plan
        }

        engine.install(try makePlan(0))
        let check = ContinuityCheck()
        let output = AudioBuffer(channelCount: 2, capacity: frames)
        let stop = Atomic<Bool>(false)
        let countingOn = Atomic<Bool>(false)
        let supported = busker_allocation_counting_supported() != 0

        let renderThread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            let block = output.block(frames: frames)
            var expected = 0
            var warmUp = 16
            while !stop.load(ordering: .acquiring) || warmUp > 0 {
                engine.render(input: nil, output: block)
                check.blocks.add(1, ordering: .relaxed)
                for i in 0..<frames where decodeCounter(block[0][i], block[1][i]) != expected + i {
                    check.discontinuities.add(1, ordering: .relaxed)
                    break
                }
                expected += frames
                if warmUp > 0 {
                    warmUp -= 1
                    if warmUp == 0 {
                        busker_allocation_counts_reset()
                        busker_allocation_counting_begin()
                        countingOn.store(true, ordering: .releasing)
                    }
                }
            }
            busker_allocation_counting_end()
            check.allocations.store(busker_allocation_count(), ordering: .relaxed)
            check.frees.store(busker_free_count(), ordering: .relaxed)
            check.samplesSeen.store(expected, ordering: .relaxed)
        }

        // Control thread: start swapping once the audio thread is in steady state.
        while !countingOn.load(ordering: .acquiring) { sched_yield() }
        var collected = 0
        for k in 1...installs {
            engine.install(try makePlan(k))
            collected += engine.collectRetiredPlans()
            if k % 4 != 0 {
                // Mostly wait for the audio thread to adopt the plan, so both
                // the retire path and (every 4th install) the supersede path run.
                while engine.hasPendingPlan {
                    collected += engine.collectRetiredPlans()
                    sched_yield()
                }
            }
        }
        while engine.hasPendingPlan { sched_yield() }
        stop.store(true, ordering: .releasing)
        renderThread.join()
        collected += engine.collectRetiredPlans()
        let freedBeforeShutdown = deinits.total.load(ordering: .relaxed)

        let blocks = check.blocks.load(ordering: .relaxed)
        XCTAssertEqual(check.discontinuities.load(ordering: .relaxed), 0, "the counter jumped: blocks were lost or repeated")
        XCTAssertEqual(engine.renderedBlockCount, blocks, "every rendered block is counted")
        XCTAssertEqual(check.samplesSeen.load(ordering: .relaxed), blocks * frames)
        XCTAssertEqual(counter.rendered, blocks * frames, "the counter node ran exactly once per block")
        XCTAssertGreaterThanOrEqual(engine.planSwapCount, installs * 3 / 4 + 1, "waited-for installs were all adopted")
        XCTAssertLessThanOrEqual(engine.planSwapCount, installs + 1)
        XCTAssertGreaterThan(freedBeforeShutdown, installs / 2, "retired plans were freed while installing, not only at the end")
        XCTAssertLessThanOrEqual(collected, freedBeforeShutdown)
        if supported {
            XCTAssertEqual(check.allocations.load(ordering: .relaxed), 0, "the audio thread allocated while swapping plans")
            XCTAssertEqual(check.frees.load(ordering: .relaxed), 0, "the audio thread freed while swapping plans")
        }

        engine.releaseAll()
        XCTAssertEqual(weakPlans.count, installs + 1)
        XCTAssertEqual(weakPlans.filter { $0.plan != nil }.count, 0, "every plan was freed")
        XCTAssertEqual(deinits.total.load(ordering: .relaxed), installs + 1, "every plan's own node was freed with it")
        XCTAssertEqual(deinits.onAudioThread.load(ordering: .relaxed), 0, "no plan was freed on the audio-render thread")
    }

    // MARK: Helpers

    private func assertCompile(_ graph: AudioGraph, spec: ProcessSpec? = nil, throws matches: (GraphError) -> Bool,
                               file: StaticString = #filePath, line: UInt = #line) {
        do {
            let plan = try graph.compile(spec: spec ?? self.spec)
            XCTFail("compiled a plan of \(plan.nodes.count) nodes; expected an error", file: file, line: line)
        } catch {
            XCTAssertTrue(matches(error), "unexpected error: \(error)", file: file, line: line)
        }
    }

    private func assertThrows(_ expected: GraphError, _ body: () throws -> Void,
                              file: StaticString = #filePath, line: UInt = #line) {
        do {
            try body()
            XCTFail("no error; expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? GraphError, expected, file: file, line: line)
        }
    }
}

// MARK: Test nodes and helpers

/// The running sample counter, exact at any size: low 16 bits and the rest in two channels.
private func decodeCounter(_ low: Float, _ high: Float) -> Int { Int(low) + Int(high) * 65_536 }

/// A source writing a running sample index (see `decodeCounter`) on 2 channels.
/// It keeps counting across plans: that is what shows no block was lost.
private final class CounterSource: AudioNode {
    // MARK: Audio thread only
    private(set) var next = 0
    private(set) var largestBlock = 0
    var rendered: Int { next }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func reset() { next = 0 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        largestBlock = max(largestBlock, output.frameCount)
        for i in 0..<output.frameCount {
            output[0][i] = Float(next & 0xFFFF)
            output[1][i] = Float(next >> 16)
            next += 1
        }
    }
}

/// Copies its input; counts its preparations so tests can see reuse.
private final class PassNode: AudioNode {
    private(set) var allocateCount = 0
    var marker = 0
    override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) { allocateCount += 1 }
    override func reset() { marker = 0 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.copy(from: inputs[0])
    }
}

/// Copies its input, like `PassNode`; held only by the plan it is compiled
/// into, it is freed with that plan and records whether that happened on the
/// audio-render thread.
private final class PlanOwnedPass: AudioNode {
    private let deinits: DeinitRecorder
    init(name: String, deinits: DeinitRecorder) {
        self.deinits = deinits
        super.init(name: name)
    }
    /// - Thread: any (the thread that frees the last plan holding the node).
    /// - Realtime: unsafe (reads the thread's name).
    deinit { deinits.record(onAudioThread: RealtimeThread.currentName == RealtimeThread.renderThreadName) }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.copy(from: inputs[0])
    }
}

/// Three channels out: bus 0's first channel, then bus 1's two channels.
private final class SplitCheck: AudioNode {
    override var inputBusCount: Int { 2 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 3 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let a = inputs[0], b = inputs[1]
        for i in 0..<output.frameCount {
            output[0][i] = a[0][i]
            output[1][i] = b[0][i]
            output[2][i] = b[min(1, b.channelCount - 1)][i]
        }
    }
}

private final class ContinuityCheck: Sendable {
    let blocks = Atomic<Int>(0)
    let discontinuities = Atomic<Int>(0)
    let samplesSeen = Atomic<Int>(0)
    let allocations = Atomic<Int>(0)
    let frees = Atomic<Int>(0)
}

private final class DeinitRecorder: Sendable {
    let total = Atomic<Int>(0)
    let onAudioThread = Atomic<Int>(0)
    func record(onAudioThread audio: Bool) {
        total.add(1, ordering: .relaxed)
        if audio { onAudioThread.add(1, ordering: .relaxed) }
    }
}

private final class WeakPlan {
    weak var plan: RenderPlan?
    init(_ plan: RenderPlan) { self.plan = plan }
}
