import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGHUP, SIGTSTP and SIGCONT as flags the control loop
/// polls: the handlers only record; the session state machine decides what
/// each means (the three stops: stop cleanly with recordings finalized, an
/// output file completed or the old one kept, and the terminal restored;
/// Ctrl-Z: interrupt audio, give the terminal back, then really stop;
/// continue: resume only per policy).
public enum StopSignals {
    /// One flag per signal, so two different signals in one poll are both seen.
    public static let interrupt = Atomic<Bool>(false)
    public static let terminate = Atomic<Bool>(false)
    public static let hangup = Atomic<Bool>(false)
    public static let terminalStop = Atomic<Bool>(false)
    public static let resume = Atomic<Bool>(false)

    /// Installs the handlers for SIGINT, SIGTERM and SIGHUP (a closed
    /// terminal or ssh session), which only set the flags. A SIGHUP the
    /// process was started ignoring (`nohup busker …`) stays ignored: a take
    /// run under nohup goes on after the user logs out.
    /// - Parameter jobControl: also catch SIGTSTP and SIGCONT (the sessions,
    ///   which must interrupt audio and restore the terminal before stopping);
    ///   without it Ctrl-Z keeps its default action.
    /// - Thread: control (the handlers run on whichever thread a signal lands on;
    ///   they only set atomics)
    /// - Realtime: unsafe (installs signal handlers)
    public static func install(jobControl: Bool = false) {
        signal(SIGINT) { _ in StopSignals.interrupt.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in StopSignals.terminate.store(true, ordering: .relaxed) }
        let previous = signal(SIGHUP, SIG_IGN)
        let wasIgnored = previous.map { unsafeBitCast($0, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) } ?? false
        if !wasIgnored {
            signal(SIGHUP) { _ in StopSignals.hangup.store(true, ordering: .relaxed) }
        }
        if jobControl {
            signal(SIGTSTP) { _ in StopSignals.terminalStop.store(true, ordering: .relaxed) }
            signal(SIGCONT) { _ in StopSignals.resume.store(true, ordering: .relaxed) }
        }
    }

    /// Ignores SIGPIPE for the whole process: a write to a pipe whose reader
    /// is gone (`busker … | head`) fails with EPIPE, and the command goes on
    /// to finish its take or output file rather than die with it unfinished.
    /// - Thread: control (before any other thread starts)
    /// - Realtime: unsafe (changes a signal disposition)
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The stop signal (SIGINT, SIGTERM or SIGHUP) that arrived, if one did,
    /// without taking it (offline runs poll this).
    /// - Thread: any
    /// - Realtime: safe
    public static var pending: ProcessSignal? {
        if interrupt.load(ordering: .relaxed) { return .interrupt }
        if terminate.load(ordering: .relaxed) { return .terminate }
        if hangup.load(ordering: .relaxed) { return .hangup }
        return nil
    }

    /// The signals received since the last call, stops first.
    public static func take() -> [ProcessSignal] {
        var signals: [ProcessSignal] = []
        if interrupt.exchange(false, ordering: .relaxed) { signals.append(.interrupt) }
        if terminate.exchange(false, ordering: .relaxed) { signals.append(.terminate) }
        if hangup.exchange(false, ordering: .relaxed) { signals.append(.hangup) }
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
