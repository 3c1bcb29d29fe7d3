/// What the render thread tells the control thread, through an SPSC queue
/// (`DuplexDriver.nextEvent()`). Plain values: pushing one allocates nothing.
/// The session state machine (issue 7) turns these into states and effects;
/// the driver itself only reports and, for xruns, recovers.
public enum DriverEvent: Sendable, Hashable {
    /// Both streams run; the first period is on its way.
    case started
    /// An xrun (`-EPIPE`) on this side, already recovered: streams
    /// re-prepared, playback re-primed, restarted. `total` counts since open.
    case xrunRecovered(PCMDirection, total: Int)
    /// No period arrived for `milliseconds` (a device or a sound server that
    /// stopped without telling ALSA). The loop keeps waiting until stopped.
    case stalled(PCMDirection, milliseconds: Int)
    /// Periods flow again after a stall.
    case stallEnded(PCMDirection)
    /// The loop has ended; `DuplexDriver.stopReason` says the same.
    case stopped(DriverStopReason)
}

/// Why the render loop ended.
public enum DriverStopReason: Sendable, Hashable, CustomStringConvertible {
    /// `stop()` was called.
    case requested
    /// The `stopAfterFrames` option's count was reached.
    case frameLimitReached
    /// The system suspended the device (`-ESTRPIPE`); `resumeAfterSuspend()` continues.
    case suspended(PCMDirection)
    /// The device is gone (`-ENODEV`, disconnected state), or its server died
    /// and recovery failed.
    case deviceLost(PCMDirection, code: Int32)
    /// Xrun recovery did not work (prepare or start failed, or xruns came back
    /// before a single period went through, too many times in a row).
    case recoveryFailed(PCMDirection, code: Int32)
    /// Any other error from a read, write or wait.
    case ioError(PCMDirection, code: Int32)

    public var description: String {
        switch self {
        case .requested: "stopped on request"
        case .frameLimitReached: "stopped after the requested number of frames"
        case let .suspended(d): "\(d) device suspended by the system"
        case let .deviceLost(d, code): "\(d) device lost (\(ALSALibrary.describe(code)))"
        case let .recoveryFailed(d, code): "\(d) device could not recover from an xrun (\(ALSALibrary.describe(code)))"
        case let .ioError(d, code): "\(d) device error (\(ALSALibrary.describe(code)))"
        }
    }
}
