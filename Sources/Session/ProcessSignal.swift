/// The job-control and termination signals a session reacts to. The signal
/// handler only records which arrived; the control loop turns it into a
/// `SessionEvent.signal` and the state machine decides.
public enum ProcessSignal: Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// SIGINT (Ctrl-C): stop cleanly.
    case interrupt
    /// SIGTERM: stop cleanly.
    case terminate
    /// SIGHUP (the terminal or ssh session closed): stop cleanly.
    case hangup
    /// SIGTSTP (Ctrl-Z): interrupt the audio, give the terminal back, then really stop the process.
    case terminalStop
    /// SIGCONT (`fg`, `bg`): the process runs again; audio resumes only per policy.
    case `continue`

    public var description: String {
        switch self {
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        case .hangup: "SIGHUP"
        case .terminalStop: "SIGTSTP"
        case .continue: "SIGCONT"
        }
    }
}
