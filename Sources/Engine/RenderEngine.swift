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
public final class RenderEngine: @unchecked Sendable {
    // MARK: Shared (atomics)
    /// Plans on their way to the audio thread and back.
    private let handover = Handover<RenderPlan>(retiredCapacity: 64)
    /// Blocks rendered since start; lets the control thread see progress.
    private let blocksRendered = Atomic<Int>(0)
    private let swapsTaken = Atomic<Int>(0)

    // MARK: Audio thread only
    private var current: UnsafeMutableRawPointer?
    private let slicePointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 64)
    private let inputSlicePointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 64)
    /// Frames rendered since start: the engine timeline MIDI events are placed on.
    private var sampleTime: Int64 = 0
    /// Set before the audio thread starts, never changed while it runs.
    private var cycleObserver: (any RenderCycleObserver)?

    public init() {}

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

    /// Releases every plan, current and pending. Only once the audio thread has
    /// stopped for good (the driver joined it).
    /// - Realtime: unsafe (frees).
    public func releaseAll() {
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
        adoptPendingPlan()
        blocksRendered.add(1, ordering: .relaxed)
        guard let current else {
            output.clear()
            return
        }
        let cycleStart = sampleTime
        sampleTime += Int64(output.frameCount)
        Unmanaged<RenderPlan>.fromOpaque(current)._withUnsafeGuaranteedRef { plan in
            let maxFrames = plan.spec.maximumBlockSize
            if let cycleObserver {
                cycleObserver.beginCycle(sampleTime: cycleStart, frameCount: output.frameCount,
                                sampleRate: plan.spec.sampleRate, hostTime: busker_monotonic_nanoseconds())
            }
            if output.frameCount <= maxFrames {
                plan.render(input: input, output: output)
                return
            }
            var offset = 0
            while offset < output.frameCount {
                let n = min(maxFrames, output.frameCount - offset)
                cycleObserver?.showBlock(offset: offset, frameCount: n)
                let outSlice = output.slice(offset: offset, frames: n, pointerStorage: slicePointers)
                if let input {
                    let inSlice = input.slice(offset: offset, frames: min(n, max(0, input.frameCount - offset)), pointerStorage: inputSlicePointers)
                    plan.render(input: inSlice, output: outSlice)
                } else {
                    plan.render(input: nil, output: outSlice)
                }
                offset += n
            }
        }
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
