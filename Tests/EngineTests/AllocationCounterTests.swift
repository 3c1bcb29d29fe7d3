#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import Engine
import RenderTestSupport
import Synchronization
import XCTest

/// The heap-allocation counter (Tests/CAllocationCounter), checked against
/// known allocations first, then used to show that steady-state rendering on
/// the "audio-render" thread neither allocates nor frees.
final class AllocationCounterTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
    }

    // MARK: The counter itself

    func testCountsEveryAllocatorEntryPointOnTheCountingThread() {
        // Every pointer is stored where a global can reach it, or the optimizer
        // may remove a malloc/free pair. Raw slots, not an array: no copy-on-write.
        let slots = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 6)
        slots.initialize(repeating: nil, count: 6)
        defer { slots.deallocate() }
        pointerSink = slots
        let counts = countOnThisThread {
            slots[0] = malloc(100)
            slots[1] = calloc(4, 25)
            slots[2] = realloc(nil, 10)              // an allocation
            slots[2] = realloc(slots[2], 100_000)    // an allocation and a free
            let rc = posix_memalign(&slots[3], 64, 256)
            slots[4] = aligned_alloc(64, 256)
            slots[5] = valloc(10)                    // page-aligned
            precondition(rc == 0)
            for i in 0..<6 { free(slots[i]) }
            free(nil)                                // not counted
        }
        pointerSink = nil
        XCTAssertEqual(counts.allocations, 7)
        XCTAssertEqual(counts.frees, 7, "six frees and the moving realloc")
        XCTAssertEqual(Int(bitPattern: slots[3]) % 64, 0)
        XCTAssertEqual(Int(bitPattern: slots[4]) % 64, 0)
        XCTAssertEqual(Int(bitPattern: slots[5]) % 4096, 0)
    }

    func testPosixMemalignRejectsBadAlignmentWithoutCounting() {
        var p: UnsafeMutableRawPointer?
        let counts = countOnThisThread {
            XCTAssertEqual(posix_memalign(&p, 3, 16), EINVAL)
            XCTAssertEqual(posix_memalign(&p, 4, 16), EINVAL) // not a multiple of sizeof(void *)
        }
        XCTAssertNil(p)
        XCTAssertEqual(counts.allocations, 0)
    }

    func testOtherThreadsAreNotCounted() {
        busker_allocation_counts_reset()
        // This thread is not counting: its allocations must not show.
        let p = malloc(64)
        var array: [Int] = []
        for i in 0..<100 { array.append(i) }
        free(p)
        XCTAssertEqual(array.count, 100)
        XCTAssertEqual(busker_allocation_count(), 0)
        XCTAssertEqual(busker_free_count(), 0)
    }

    func testCatchesSwiftClassInstanceAndArrayGrowth() {
        // The instance goes to a global, or the optimizer may put it on the stack.
        let classCounts = countOnThisThread { objectSink = Tracked(value: 1) }
        XCTAssertGreaterThan(classCounts.allocations, 0, "a Swift class instance is a malloc")
        XCTAssertEqual((objectSink as? Tracked)?.value, 1)

        let freeCounts = countOnThisThread { objectSink = nil }
        XCTAssertGreaterThan(freeCounts.frees, 0, "releasing the last reference frees")

        let holder = Holder()
        let arrayCounts = countOnThisThread {
            for i in 0..<1000 { holder.array.append(i) }
        }
        XCTAssertGreaterThan(arrayCounts.allocations, 1, "array growth reallocates")
        XCTAssertGreaterThan(arrayCounts.frees, 0, "array growth frees the old storage")
        XCTAssertEqual(holder.array.count, 1000)

        let alignedCounts = countOnThisThread {
            let p = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 64)
            p.deallocate()
        }
        XCTAssertEqual(alignedCounts.allocations, 1, "an over-aligned Swift allocation (posix_memalign/aligned_alloc)")
        XCTAssertEqual(alignedCounts.frees, 1)
    }

    // MARK: Negative controls on the render thread

    func testNegativeControlClassAllocationInRenderIsCaught() throws {
        let engine = try makeEngine(allocating: .classInstance)
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 32, frames: 64, inputChannels: 0, outputChannels: 2)
        XCTAssertEqual(counts.blocks, 32)
        XCTAssertGreaterThanOrEqual(counts.allocations, 32, "one class instance per block: \(counts)")
        XCTAssertGreaterThanOrEqual(counts.frees, 32, "the previous instance is freed each block: \(counts)")
        engine.releaseAll()
    }

    func testNegativeControlArrayGrowthInRenderIsCaught() throws {
        let engine = try makeEngine(allocating: .arrayGrowth)
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 32, frames: 64, inputChannels: 0, outputChannels: 2)
        XCTAssertGreaterThan(counts.allocations, 0, "growing an array in render: \(counts)")
        engine.releaseAll()
    }

    // MARK: Steady-state rendering allocates nothing

    /// Four test nodes and a two-input mixer, driven by a stereo capture input,
    /// with the control thread changing gains the whole time.
    func testSteadyStateRenderingDoesNotAllocate() throws {
        let engine = RenderEngine()
        let spec = ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)
        let graph = AudioGraph(inputChannelCount: 2)
        let source = graph.add(RampSource(name: "ramp"))
        let sourceGain = SmoothedGain(name: "source-gain")
        let inputGain = SmoothedGain(name: "input-gain")
        let sg = graph.add(sourceGain)
        let ig = graph.add(inputGain)
        let mix = graph.add(TwoBusSumNode(name: "mix"))
        let master = SmoothedGain(name: "master")
        let out = graph.add(master)
        try graph.chain(source, sg)
        try graph.chain(graph.input, ig)
        try graph.connect(sg, to: mix, bus: 0)
        try graph.connect(ig, to: mix, bus: 1)
        try graph.chain(mix, out)
        graph.output = out
        engine.install(try graph.compile(spec: spec))

        let blocks = 4000
        let silentBlocks = Atomic<Int>(0)
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: blocks, frames: 64, inputChannels: 2, outputChannels: 2,
            afterEachBlock: { _, output in
                // The output is really being rendered: never all silence.
                var energy: Float = 0
                for i in 0..<output.frameCount { energy += abs(output[0][i]) }
                if energy == 0 { silentBlocks.add(1, ordering: .relaxed) }
            },
            control: { iteration in
                // The control thread moves every gain while the audio thread renders.
                let x = Float(iteration % 100) / 100
                sourceGain.gain.value = 0.2 + x
                inputGain.gain.value = 1.2 - x
                master.gain.value = 0.5 + x / 2
                engine.collectRetiredPlans()
            })
        XCTAssertEqual(counts.blocks, blocks)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertEqual(silentBlocks.load(ordering: .relaxed), 0)
        XCTAssertGreaterThanOrEqual(engine.renderedBlockCount, blocks)
        engine.releaseAll()
    }

    /// Splitting a large driver block into plan-sized pieces allocates nothing either.
    func testSplitBlocksDoNotAllocate() throws {
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 1)
        let gain = graph.add(SmoothedGain(name: "gain"))
        try graph.chain(graph.input, gain)
        graph.output = gain
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 500, frames: 1000, inputChannels: 1, outputChannels: 2)
        engine.releaseAll()
    }

    // MARK: Helpers

    private func makeEngine(allocating mode: AllocatingNode.Mode) throws -> RenderEngine {
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 0)
        let source = graph.add(RampSource(name: "ramp"))
        let bad = graph.add(AllocatingNode(mode: mode))
        try graph.chain(source, bad)
        graph.output = bad
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        return engine
    }
}

/// Counts the heap traffic of `body` on the calling thread.
private func countOnThisThread(_ body: () -> Void) -> (allocations: Int, frees: Int) {
    busker_allocation_counts_reset()
    busker_allocation_counting_begin()
    body()
    busker_allocation_counting_end()
    return (busker_allocation_count(), busker_free_count())
}

private final class Tracked {
    let value: Int
    init(value: Int) { self.value = value }
}

private final class Holder {
    var array: [Int] = []
}

/// Escape hatches: what is stored here is visible outside the function, so
/// the optimizer can neither drop the allocation nor move it to the stack.
nonisolated(unsafe) private var objectSink: AnyObject?
nonisolated(unsafe) private var pointerSink: UnsafeMutablePointer<UnsafeMutableRawPointer?>?

// MARK: Test nodes

/// A stereo source: a slow sawtooth, so the output is never silent.
private final class RampSource: AudioNode {
    private var phase: Float = 0
    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func reset() { phase = 0 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for i in 0..<output.frameCount {
            let v = phase - 0.5
            for c in 0..<output.channelCount { output[c][i] = v }
            phase += 1.0 / 97
            if phase >= 1 { phase -= 1 }
        }
    }
}

/// A gain whose target the control thread sets through a `Parameter`, smoothed per sample.
private final class SmoothedGain: AudioNode {
    let gain = Parameter(name: "gain", range: 0...2, default: 1)
    private var smoother = LinearSmoother(value: 1, rampLength: 64)

    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { max(2, inputChannelCounts.first ?? 1) }
    override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        smoother = LinearSmoother(value: gain.value, rampLength: Int(spec.sampleRate / 200))
    }
    override func reset() { smoother.snap(to: gain.value) }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let input = inputs[0]
        smoother.setTarget(gain.value)
        for i in 0..<output.frameCount {
            let g = smoother.next()
            for c in 0..<output.channelCount { output[c][i] = input[min(c, input.channelCount - 1)][i] * g }
        }
    }
}

/// Breaks the rules on purpose: allocates in `render`, for the negative controls.
private final class AllocatingNode: AudioNode {
    enum Mode { case classInstance, arrayGrowth }
    let mode: Mode
    /// Stored so the optimizer cannot put the instance on the stack or drop it.
    private var kept: Tracked?
    private var history: [Float] = []

    init(mode: Mode) {
        self.mode = mode
        super.init(name: "allocating")
    }

    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.copy(from: inputs[0])
        switch mode {
        case .classInstance:
            kept = Tracked(value: Int(output[0][0] * 1000))
        case .arrayGrowth:
            // Append a block's worth each time: the array keeps outgrowing its storage.
            for i in 0..<output.frameCount { history.append(output[0][i]) }
        }
    }
}
