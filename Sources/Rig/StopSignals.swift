import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGTSTP and SIGCONT as flags the control loop polls:
/// the handlers only record; the session state machine decides what each
/// means (stop cleanly with recordings finalized and the terminal restored;
/// Ctrl-Z: interrupt audio, give the terminal back, then really stop;
/// continue: resume only per policy).
public enum StopSignals {
    /// One flag per signal, so two different signals in one poll are both seen.
    public static let interrupt = Atomic<Bool>(false)
    public static let terminate = Atomic<Bool>(false)
    public static let terminalStop = Atomic<Bool>(false)
    public static let resume = Atomic<Bool>(false)

    /// Installs the handlers for SIGINT and SIGTERM, which only set the flags.
    /// - Parameter jobControl: also catch SIGTSTP and SIGCONT (the sessions,
    ///   which must interrupt audio and restore the terminal before stopping);
    ///   without it Ctrl-Z keeps its default action.
    /// - Thread: control (the handlers run on whichever thread a signal lands on;
    ///   they only set atomics)
    /// - Realtime: unsafe (installs signal handlers)
    public static func install(jobControl: Bool = false) {
        signal(SIGINT) { _ in StopSignals.interrupt.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in StopSignals.terminate.store(true, ordering: .relaxed) }
        if jobControl {
            signal(SIGTSTP) { _ in StopSignals.terminalStop.store(true, ordering: .relaxed) }
            signal(SIGCONT) { _ in StopSignals.resume.store(true, ordering: .relaxed) }
        }
    }

    /// SIGINT or SIGTERM, if one arrived, without taking it (offline renders poll this).
    /// - Thread: any
    /// - Realtime: safe
    public static var pending: Int32? {
        if interrupt.load(ordering: .relaxed) { return SIGINT }
        if terminate.load(ordering: .relaxed) { return SIGTERM }
        return nil
    }

    /// The signals received since the last call, stops first.
    public static func take() -> [ProcessSignal] {
        var signals: [ProcessSignal] = []
        if interrupt.exchange(false, ordering: .relaxed) { signals.append(.interrupt) }
        if terminate.exchange(false, ordering: .relaxed) { signals.append(.terminate) }
        if terminalStop.exchange(false, ordering: .relaxed) { signals.append(.terminalStop) }
        if resume.exchange(false, ordering: .relaxed) { signals.append(.continue) }
        return signals
    }

    /// Stops this process as Ctrl-Z would have, had we not caught it
    /// (SIGSTOP cannot be caught); returns when it is continued.
    public static func stopProcess() {
        fflush(nil)
        kill(getpid(), SIGSTOP)
    }
}
