import CRealtimeSupport

/// The clock `RenderEngine` times its blocks with, as a call table: the
/// monotonic clock in use, a clock the test sets in the tests, so the DSP
/// load's arithmetic can be checked exactly.
public struct RenderClock: Sendable {
    /// Nanoseconds on a clock that never goes back.
    /// - Thread: audio
    /// - Realtime: must be safe (the monotonic clock is read through the vDSO, no system call)
    public var now: @convention(c) () -> UInt64

    public init(now: @convention(c) () -> UInt64) {
        self.now = now
    }

    /// CLOCK_MONOTONIC.
    public static let monotonic = RenderClock(now: { busker_monotonic_nanoseconds() })
}
