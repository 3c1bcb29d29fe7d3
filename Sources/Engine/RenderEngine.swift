import CRealtimeSupport
import Synchronization

/// Runs whichever `RenderPlan` is installed and swaps plans without ever
/// making the audio thread wait, allocate or free.
///
/// Plans travel through a `Handover`: the control thread parks a retained
/// plan; at the start of a block the audio thread takes it, and sends the plan
/// it replaces back, to be released on the control thread. If the way back is
/// full the audio thread keeps the old plan one more block rather than free
/// anything itself.
///
/// Drivers call `render(input:output:)` from their audio thread; blocks
/// larger than the plan's maximum are split.
///
/// Every block is timed (two reads of `RenderClock`, the monotonic clock): the
/// time spent rendering against the audio time rendered is the DSP load
/// (`RenderLoadMeter` turns it into what a screen shows).
public final class RenderEngine: @unchecked Sendable {
    // MARK: Shared (atomics)
    /// Plans on their way to the audio thread and back.
    private let handover = Handover<RenderPlan>(retiredCapacity: 64)
    /// Blocks rendered since start; lets the control thread see progress.
    private let blocksRendered = Atomic<Int>(0)
    private let swapsTaken = Atomic<Int>(0)
    /// Time spent in `render` with a plan, nanoseconds, since start.
    private let busyNanoseconds = Atomic<Int>(0)
    /// The audio time those blocks hold (frames at the plan's rate), nanoseconds, since start.
    private let audioNanoseconds = Atomic<Int>(0)
    /// The largest share of its own audio time one block's render took since
    /// the last `takeWorstBlockLoad()`, Float bits.
    private let worstBlockBits = Atomic<UInt32>(0)
    /// Blocks in which a step's output held a fault and was silenced, since start.
    private let silencedBlocks = Atomic<Int>(0)
    /// The engine frame the first silenced block started on; −1 before any.
    private let firstSilencedFrame = Atomic<Int>(-1)

    // MARK: Set at init
    private let clock: RenderClock

    // MARK: Control thread only
    /// The nodes of the plan installed last: where `silencedAudio` looks for names.
    private var installedNodes: [AudioNode] = []
    /// What nodes no longer installed had silenced (kept without holding them).
    private var silencedByReleasedNodes: [(name: String, blocks: Int)] = []

    // MARK: Audio thread only
    private var current: UnsafeMutableRawPointer?
    private let slicePointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 64)
    private let inputSlicePointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 64)
    /// Frames rendered since start: the engine timeline MIDI events are placed on.
    private var sampleTime: Int64 = 0
    /// Set before the audio thread starts, never changed while it runs.
    private var cycleObserver: (any RenderCycleObserver)?

    /// - Parameter clock: what blocks are timed with (tests set their own).
    public init(clock: RenderClock = .monotonic) {
        self.clock = clock
    }

    deinit {
        releaseAll()
        slicePointers.deallocate()
        inputSlicePointers.deallocate()
    }

    // MARK: Control thread

    /// Tells `observer` of every cycle before it renders, and of each slice
    /// of a cycle longer than the plan's block (the MIDI scheduler places its
    /// events this way). Call before the audio thread starts.
    /// - Realtime: unsafe. Control thread, before rendering starts.
    public func attach(_ observer: any RenderCycleObserver) {
        cycleObserver = observer
    }

    /// Hands `plan` to the audio thread. If an earlier plan was still waiting
    /// (not yet picked up), it is released here, on the calling thread.
    /// - Realtime: unsafe (may free). Control thread only.
    public func install(_ plan: RenderPlan) {
        forgetInstalledNodes(keeping: plan.nodes)
        installedNodes = plan.nodes
        handover.offer(plan)
        collectRetiredPlans()
    }

    /// Releases the plans the audio thread has retired. Call it regularly from
    /// the control thread (drivers do it in their control loop).
    /// - Returns: how many plans were released.
    /// - Realtime: unsafe (frees). Control thread only.
    @discardableResult
    public func collectRetiredPlans() -> Int {
        handover.collectRetired()
    }

    /// Whether an installed plan is still waiting for the audio thread.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var hasPendingPlan: Bool { handover.hasPending }

    /// Blocks rendered since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var renderedBlockCount: Int { blocksRendered.load(ordering: .relaxed) }
    /// Plans the audio thread has taken since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var planSwapCount: Int { swapsTaken.load(ordering: .relaxed) }

    /// The time spent rendering and the audio time rendered, both in
    /// nanoseconds, since start: their ratio over an interval is the DSP load
    /// (the two are read one after the other, not as one).
    /// - Thread: any
    /// - Realtime: safe (atomic loads)
    public var loadCounters: (busy: Int, audio: Int) {
        (busyNanoseconds.load(ordering: .relaxed), audioNanoseconds.load(ordering: .relaxed))
    }

    /// The largest share of its own audio time any one block's render took
    /// since the last call (1 is a whole period: the block was late), and
    /// starts the next such maximum.
    /// - Thread: control (one reader)
    /// - Realtime: safe (an atomic exchange)
    public func takeWorstBlockLoad() -> Double {
        Double(Float(bitPattern: worstBlockBits.exchange(0, ordering: .relaxed)))
    }

    /// Keeps what the installed nodes not in `kept` silenced, so that names
    /// outlive the nodes (a plan and its nodes are freed once retired).
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    private func forgetInstalledNodes(keeping kept: [AudioNode]) {
        for node in installedNodes where node.silencedBlockCount > 0 && !kept.contains(where: { $0 === node }) {
            silencedByReleasedNodes.append((node.name, node.silencedBlockCount))
        }
    }

    /// Blocks in which a fault (a NaN, an infinity, an absurd sample) was
    /// silenced, since start: see `RenderPlan.render`.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var silencedBlockCount: Int { silencedBlocks.load(ordering: .relaxed) }

    /// What was silenced since start: the blocks, and which nodes' outputs
    /// held the faults (of the plan installed last).
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    public func silencedAudio() -> SilencedAudio {
        let nodes = silencedByReleasedNodes
            + installedNodes.filter { $0.silencedBlockCount > 0 }.map { ($0.name, $0.silencedBlockCount) }
        let first = firstSilencedFrame.load(ordering: .relaxed)
        return SilencedAudio(blocks: silencedBlockCount, firstFrame: first >= 0 ? first : nil, nodes: nodes)
    }

    /// Releases every plan, current and pending. Only once the audio thread has
    /// stopped for good (the driver joined it).
    /// - Realtime: unsafe (frees).
    public func releaseAll() {
        forgetInstalledNodes(keeping: [])
        installedNodes = []
        collectRetiredPlans()
        handover.dropPending()
        if let c = current {
            current = nil
            Unmanaged<RenderPlan>.fromOpaque(c).release()
        }
    }

    // MARK: Audio thread

    /// Renders `output.frameCount` frames from `input` (nil for silence) with
    /// the current plan, taking a newly installed plan first if there is one.
    /// Without any plan the output is silence.
    /// - Thread: audio
    /// - Realtime: safe
    public func render(input: AudioBlock?, output: AudioBlock) {
        let start = clock.now()
        adoptPendingPlan()
        blocksRendered.add(1, ordering: .relaxed)
        guard let current else {
            output.clear()
            return
        }
        let rate = renderWithPlan(current, input: input, output: output)
        guard output.frameCount > 0 else { return }
        // The DSP load: this block's render time against its audio time (a clock that
        // went back counts nothing; the sums wrap rather than trap, after centuries).
        let end = clock.now()
        let busy = end >= start ? Int(truncatingIfNeeded: end &- start) : 0
        let audio = max(1, Int(Double(output.frameCount) * 1e9 / rate))
        busyNanoseconds.wrappingAdd(busy, ordering: .relaxed)
        audioNanoseconds.wrappingAdd(audio, ordering: .relaxed)
        // The largest so far: a compare-exchange, so a block measured while the control
        // thread takes the maximum is not lost (that thread is the only other writer).
        let load = Float(busy) / Float(audio)
        var seen = worstBlockBits.load(ordering: .relaxed)
        while load > Float(bitPattern: seen) {
            let (exchanged, original) = worstBlockBits.compareExchange(expected: seen, desired: load.bitPattern, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    /// Renders the block with `current`, split into the plan's blocks where
    /// longer; returns the plan's sample rate.
    /// - Thread: audio
    /// - Realtime: safe
    private func renderWithPlan(_ current: UnsafeMutableRawPointer, input: AudioBlock?, output: AudioBlock) -> Double {
        let cycleStart = sampleTime
        sampleTime += Int64(output.frameCount)
        return Unmanaged<RenderPlan>.fromOpaque(current)._withUnsafeGuaranteedRef { plan in
            let maxFrames = plan.spec.maximumBlockSize
            if let cycleObserver {
                cycleObserver.beginCycle(sampleTime: cycleStart, frameCount: output.frameCount,
                                sampleRate: plan.spec.sampleRate, hostTime: busker_monotonic_nanoseconds())
            }
            if output.frameCount <= maxFrames {
                if plan.render(input: input, output: output) > 0 { noteSilencedBlock(at: cycleStart) }
                return plan.spec.sampleRate
            }
            var offset = 0
            var silenced = 0
            defer { if silenced > 0 { noteSilencedBlock(at: cycleStart) } }
            while offset < output.frameCount {
                let n = min(maxFrames, output.frameCount - offset)
                cycleObserver?.showBlock(offset: offset, frameCount: n)
                let outSlice = output.slice(offset: offset, frames: n, pointerStorage: slicePointers)
                if let input {
                    let inSlice = input.slice(offset: offset, frames: min(n, max(0, input.frameCount - offset)), pointerStorage: inputSlicePointers)
                    silenced += plan.render(input: inSlice, output: outSlice)
                } else {
                    silenced += plan.render(input: nil, output: outSlice)
                }
                offset += n
            }
            return plan.spec.sampleRate
        }
    }

    /// Counts a block in which the plan silenced a fault, and keeps where the first one was.
    /// - Thread: audio
    /// - Realtime: safe (atomics)
    private func noteSilencedBlock(at frame: Int64) {
        silencedBlocks.add(1, ordering: .relaxed)
        _ = firstSilencedFrame.compareExchange(expected: -1, desired: Int(frame), ordering: .relaxed)
    }

    /// Takes a newly installed plan, if there is one and the retired queue
    /// has room for the plan it replaces.
    /// - Thread: audio
    /// - Realtime: safe
    private func adoptPendingPlan() {
        guard let next = handover.take() else { return }
        if let old = current { handover.retire(old) }
        current = next
        swapsTaken.add(1, ordering: .relaxed)
    }
}
