/// Why a session ended for good. Decides the exit status and the last line.
public enum SessionStopReason: Hashable, Sendable, CustomStringConvertible {
    /// The quit key.
    case user
    /// SIGINT, SIGTERM or SIGHUP.
    case signal(ProcessSignal)
    /// `busker play --no-tui SONG.mid`: the song is over.
    case songEnded
    /// The device (or its sound server) is gone: the text says which and how we noticed.
    case deviceLost(String)
    /// Any other run-time failure of the device.
    case error(String)
    /// Headless (no screen, no keys): audio was interrupted and only a key
    /// could have started it again, so the session ends rather than sit silent.
    case interrupted(InterruptionReason)

    /// 0 when the user (or the song) ended it, 1 when a device did.
    public var exitStatus: Int32 {
        switch self {
        case .user, .signal, .songEnded: 0
        case .deviceLost, .error, .interrupted: 1
        }
    }

    public var description: String {
        switch self {
        case .user: "stopped"
        case let .signal(s): "stopped by \(s)"
        case .songEnded: "the song ended"
        case let .deviceLost(what): "stopped: device lost: \(what)"
        case let .error(what): "stopped: device error: \(what)"
        case let .interrupted(reason): "stopped: \(reason), and with no screen there is no key to start audio again"
        }
    }
}
