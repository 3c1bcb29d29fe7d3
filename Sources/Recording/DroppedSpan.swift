/// Frames the recording tap could not hand to the writer because the ring was
/// full: `count` frames from take frame `start`. The writer puts silence in
/// their place, so the take keeps its length and its timing, and logs them.
public struct DroppedSpan: Equatable, Sendable {
    public var start: Int
    public var count: Int

    // MARK: Audio thread

    /// A span of `count` frames from take frame `start`.
    /// - Thread: audio, writer, control
    /// - Realtime: safe
    public init(start: Int, count: Int) {
        self.start = start
        self.count = count
    }
}
