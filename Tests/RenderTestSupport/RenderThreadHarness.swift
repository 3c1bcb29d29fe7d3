#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import Engine
import Synchronization
import XCTest

// Shared test helpers for rendering on a real "audio-render" thread while the
// test thread acts as the control thread. Used by every test target that renders.

/// What a render-thread run measured.
public struct RenderThreadAllocations: Equatable, CustomStringConvertible {
    /// Heap allocations (malloc, calloc, realloc, aligned allocations) on the render thread while counting.
    public var allocations: Int
    /// Heap frees on the render thread while counting.
    public var frees: Int
    /// Counted blocks actually rendered.
    public var blocks: Int

    public var description: String { "\(allocations) allocation(s), \(frees) free(s) in \(blocks) block(s)" }
}

/// Renders `blocks` blocks of `frames` frames through `engine` on a new thread
/// named "audio-render" (`RealtimeThread`), counting that thread's heap
/// allocations and frees, and returns the counts.
///
/// The render thread first renders `warmUpBlocks` uncounted blocks (first-use
/// work such as lazy metadata and thread-local runtime state is not the
/// steady state), then resets the counters and counts the next `blocks` blocks.
/// Input (if `inputChannels > 0`) and output buffers are allocated here, before
/// the thread starts; the input carries a fixed ramp.
///
/// While the render thread runs, the calling thread is the control thread: it
/// calls `control(iteration)` in a loop until rendering has finished, so a test
/// can change parameters, install plans and call `engine.collectRetiredPlans()`
/// concurrently with rendering. `control` runs off the render thread and may
/// allocate; it is called at least once. `afterEachBlock` runs on the render
/// thread, inside the counted region, after every counted block (use it to
/// check the output; it must not allocate).
///
/// Needs the allocation counter to be active (Linux/glibc); callers that assert
/// zero should also check `busker_allocation_counting_supported()`.
/// - Realtime: the harness itself does not allocate between warm-up and the end of counting.
public func countAllocationsOnRenderThread(
    engine: RenderEngine,
    blocks: Int,
    frames: Int,
    inputChannels: Int,
    outputChannels: Int,
    warmUpBlocks: Int = 16,
    afterEachBlock: @escaping (_ block: Int, _ output: AudioBlock) -> Void = { _, _ in },
    control: (_ iteration: Int) -> Void = { _ in }
) -> RenderThreadAllocations {
    precondition(blocks >= 0 && frames > 0 && outputChannels > 0 && inputChannels >= 0)
    let inputBuffer = inputChannels > 0 ? AudioBuffer(channelCount: inputChannels, capacity: frames) : nil
    if let inputBuffer {
        for c in 0..<inputChannels {
            for i in 0..<frames { inputBuffer[c][i] = Float(i) / Float(frames) - 0.5 }
        }
    }
    let outputBuffer = AudioBuffer(channelCount: outputChannels, capacity: frames)
    let state = HarnessState()

    let thread = RealtimeThread(name: RealtimeThread.renderThreadName) {
        let input = inputBuffer?.block(frames: frames)
        let output = outputBuffer.block(frames: frames)
        for _ in 0..<warmUpBlocks { engine.render(input: input, output: output) }
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        var rendered = 0
        while rendered < blocks {
            engine.render(input: input, output: output)
            afterEachBlock(rendered, output)
            rendered += 1
        }
        busker_allocation_counting_end()
        state.allocations.store(busker_allocation_count(), ordering: .relaxed)
        state.frees.store(busker_free_count(), ordering: .relaxed)
        state.blocks.store(rendered, ordering: .relaxed)
        state.finished.store(true, ordering: .releasing)
    }
    var iteration = 0
    repeat {
        control(iteration)
        iteration += 1
        sched_yield()
    } while !state.finished.load(ordering: .acquiring)
    thread.join()
    return RenderThreadAllocations(
        allocations: state.allocations.load(ordering: .relaxed),
        frees: state.frees.load(ordering: .relaxed),
        blocks: state.blocks.load(ordering: .relaxed))
}

/// Asserts that rendering `blocks` steady-state blocks of `frames` frames on
/// the "audio-render" thread neither allocates nor frees, while the calling
/// (control) thread runs `control` in a loop. Skips the check (with a note)
/// where the counter is unavailable. See `countAllocationsOnRenderThread`.
public func assertNoAllocationsOnRenderThread(
    engine: RenderEngine,
    blocks: Int = 2000,
    frames: Int = 64,
    inputChannels: Int,
    outputChannels: Int,
    control: (_ iteration: Int) -> Void = { _ in },
    afterEachBlock: @escaping (_ block: Int, _ output: AudioBlock) -> Void = { _, _ in },
    file: StaticString = #filePath,
    line: UInt = #line
) {
    let counts = countAllocationsOnRenderThread(
        engine: engine, blocks: blocks, frames: frames,
        inputChannels: inputChannels, outputChannels: outputChannels, afterEachBlock: afterEachBlock, control: control)
    guard busker_allocation_counting_supported() != 0 else { return }
    XCTAssertEqual(counts.blocks, blocks, file: file, line: line)
    XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)", file: file, line: line)
    XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)", file: file, line: line)
}

/// Results handed from the render thread back to the control thread.
private final class HarnessState: Sendable {
    let finished = Atomic<Bool>(false)
    let allocations = Atomic<Int>(0)
    let frees = Atomic<Int>(0)
    let blocks = Atomic<Int>(0)
}
