import Synchronization

/// The record button of one or more taps: the control thread asks for
/// recording on or off, and the audio thread latches the request once per
/// block, at the first tap that renders in it. Every tap sharing the switch
/// therefore starts and stops on the same block, even when the request lands
/// while the block is half rendered: the master and its stems stay sample-aligned.
public final class RecordingSwitch: @unchecked Sendable {
    // MARK: Shared (atomics)
    private let request = Atomic<Bool>(false)

    // MARK: Audio thread only
    private var latchedBlock = -1
    private var latchedState = false

    public init() {}

    /// Asks for recording on or off from the next block: the control thread,
    /// or the writer or the offline reader when a take must end there.
    /// - Thread: control, writer, reader
    /// - Realtime: safe
    public func set(_ on: Bool) { request.store(on, ordering: .releasing) }

    /// What was last asked for.
    /// - Thread: any
    /// - Realtime: safe
    public var isOn: Bool { request.load(ordering: .acquiring) }

    // MARK: Audio thread

    /// The state for block `block` (each tap counts its own blocks; the taps
    /// of one plan count the same).
    /// - Thread: audio
    /// - Realtime: safe
    func state(forBlock block: Int) -> Bool {
        if block != latchedBlock {
            latchedBlock = block
            latchedState = request.load(ordering: .acquiring)
        }
        return latchedState
    }
}
