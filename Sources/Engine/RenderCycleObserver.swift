/// Something the engine tells about every render cycle before the graph
/// renders it, and about each slice when a cycle is longer than the plan's
/// block: the hook the MIDI scheduler (Sequencing) uses to place each event
/// at its frame, without the engine knowing anything of MIDI.
///
/// The engine calls it through the protocol's witness table: no allocation,
/// no lock. Attach it before the audio thread starts (`RenderEngine.attach`).
public protocol RenderCycleObserver: AnyObject {
    // MARK: Audio thread

    /// A cycle of `frameCount` frames starts at `sampleTime` on the engine's timeline.
    /// - Parameters:
    ///   - hostTime: CLOCK_MONOTONIC nanoseconds at the cycle's start.
    /// - Thread: audio
    /// - Realtime: safe (implementations must be)
    func beginCycle(sampleTime: Int64, frameCount: Int, sampleRate: Double, hostTime: UInt64)

    /// The graph renders only `offset ..< offset + frameCount` of the cycle next.
    /// - Thread: audio
    /// - Realtime: safe (implementations must be)
    func showBlock(offset: Int, frameCount: Int)
}
