/// Why audio is off for now, with the session still alive and able to come back.
public enum InterruptionReason: Hashable, Sendable, CustomStringConvertible {
    /// The system suspended the device (`-ESTRPIPE`, a laptop lid, power management).
    case suspended
    /// No period has arrived for a while (a frozen device or sound server);
    /// it becomes a loss if it lasts (`SessionPolicy.stallLossMilliseconds`).
    case stalled
    /// Ctrl-Z (SIGTSTP): the process was stopped.
    case processStopped
    /// Another program took the device while we were away (`-EBUSY` on restart).
    case deviceTaken
    /// The device came back with another rate, period or channel count; the
    /// graph has been rebuilt for it.
    case formatChanged

    public var description: String {
        switch self {
        case .suspended: "the device was suspended by the system"
        case .stalled: "no audio period is arriving"
        case .processStopped: "Busker was stopped (Ctrl-Z)"
        case .deviceTaken: "another program took the device"
        case .formatChanged: "the device's format changed"
        }
    }
}
