/// Where a session is. `SessionStateMachine.transition` is the only way
/// from one state to the next.
///
/// `micLive` is whether the mic (for `busker play`, the instruments) was
/// heard when audio last ran: an interruption only ends by itself when it
/// was, so a mic the user had muted never comes back on unasked.
public enum SessionState: Hashable, Sendable {
    /// Nothing opened yet.
    case idle
    /// Opening and starting the chosen route.
    case starting
    /// Audio flows.
    case running(micLive: Bool)
    /// Bringing audio back on the chosen route (after a suspend, Ctrl-Z, a
    /// reconnect, a restart of the streams), until its first period has gone through.
    case recovering(micLive: Bool)
    /// Audio is off for now; the session waits for the device or the user.
    case interrupted(InterruptionReason, micLive: Bool)
    /// The device was lost and `--reconnect` asked to wait for it to come back.
    case waitingForDevice(lost: String, micLive: Bool)
    /// Ended for good.
    case stopped(SessionStopReason)
    /// Could not start at all.
    case failed(StartFailure)

    /// Stopped or failed: the session is over. (One event still refines a
    /// song's end: a drain that failed because the device went makes it a loss.)
    public var isFinal: Bool {
        switch self {
        case .stopped, .failed: true
        default: false
        }
    }

    /// Whether the mic was heard when audio last ran (false before the first start and at the end).
    public var micLive: Bool {
        switch self {
        case let .running(m), let .recovering(m), let .interrupted(_, m), let .waitingForDevice(_, m): m
        case .idle, .starting, .stopped, .failed: false
        }
    }

    /// The exit status once final, nil before.
    public var exitStatus: Int32? {
        switch self {
        case let .stopped(reason): reason.exitStatus
        case .failed: 1
        default: nil
        }
    }

    /// A few words for the screen and the status line: the state and its reason.
    public var statusText: String {
        switch self {
        case .idle: "idle"
        case .starting: "starting"
        case .running: "running"
        case .recovering: "recovering"
        case let .interrupted(reason, _): "INTERRUPTED: \(reason)"
        case let .waitingForDevice(lost, _): "WAITING for the device to come back (lost: \(lost))"
        case let .stopped(reason): reason.description
        case let .failed(failure): "failed: \(failure.message)"
        }
    }

    /// What the user can do now, for the screen; nil when nothing is asked of them.
    public var hint: String? {
        switch self {
        case .interrupted(.stalled, _): "waiting for periods; Busker stops if none come"
        case .interrupted: "press space to start audio again on the same devices, q to quit"
        case .waitingForDevice: "Busker restarts on the same devices when they are back (--reconnect); q quits"
        default: nil
        }
    }
}
