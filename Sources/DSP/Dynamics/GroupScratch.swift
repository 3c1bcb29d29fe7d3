/// One block's per-frame values between the passes of a node's `render`, in
/// whole groups of four frames: the vector kernels read and write four lanes
/// at a time, and the last group of a block is padded from the spare lanes.
/// Zeroed when made. The node owns it: `deallocate()` in its `deinit`.
struct GroupScratch {
    /// The values, `capacity` of them.
    private(set) var values: UnsafeMutablePointer<Float>
    /// A multiple of four, at least four.
    private(set) var capacity: Int

    /// Room for blocks of up to `frames` frames, rounded up to whole groups of four.
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    init(frames: Int = 4) {
        capacity = (max(4, frames) + 3) / 4 * 4
        values = .allocate(capacity: capacity)
        values.initialize(repeating: 0, count: capacity)
    }

    /// Replaces the values with room for blocks of up to `frames` frames (a node's `allocate`).
    /// - Thread: control
    /// - Realtime: unsafe (allocates and frees)
    mutating func resize(forBlocksOf frames: Int) {
        values.deallocate()
        self = GroupScratch(frames: frames)
    }

    /// - Thread: control
    /// - Realtime: unsafe (frees)
    func deallocate() { values.deallocate() }
}
