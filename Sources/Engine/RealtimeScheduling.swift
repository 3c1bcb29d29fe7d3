#if canImport(Glibc)
import Glibc
#endif

/// Real-time scheduling (SCHED_FIFO) for the render thread and locked memory
/// for the process, when the system permits them, and what happened if not.
///
/// Without SCHED_FIFO a busy machine can preempt the render thread for longer
/// than a 1.3 ms period; without mlockall a page fault on a buffer can cost
/// milliseconds. Neither is fatal — Busker still runs, only with more risk
/// of xruns — so a refusal is a notice, not an error.
public struct RealtimeScheduling: Sendable, Hashable, CustomStringConvertible {
    /// The SCHED_FIFO priority asked for (nil: not asked).
    public var requestedPriority: Int32?
    /// 0 when SCHED_FIFO was granted, else the errno of pthread_setschedparam.
    public var schedulingError: Int32
    /// Whether mlockall was asked for.
    public var lockRequested: Bool
    /// 0 when memory was locked, else the errno of mlockall.
    public var lockError: Int32

    public init(requestedPriority: Int32?, schedulingError: Int32, lockRequested: Bool, lockError: Int32) {
        self.requestedPriority = requestedPriority
        self.schedulingError = schedulingError
        self.lockRequested = lockRequested
        self.lockError = lockError
    }

    public var hasRealtimePriority: Bool { requestedPriority != nil && schedulingError == 0 }
    public var hasLockedMemory: Bool { lockRequested && lockError == 0 }

    /// One line for the user when something was refused, else nil.
    public var notice: String? {
        var refused: [String] = []
        if let priority = requestedPriority, schedulingError != 0 {
            refused.append("real-time priority (SCHED_FIFO \(priority): \(String(cString: strerror(schedulingError))))")
        }
        if lockRequested && lockError != 0 {
            refused.append("locked memory (mlockall: \(String(cString: strerror(lockError))))")
        }
        guard !refused.isEmpty else { return nil }
        return "notice: running without " + refused.joined(separator: " and ")
            + "; dropouts are more likely under load — allow it with `@audio - rtprio 95` and `@audio - memlock unlimited` in /etc/security/limits.d/audio.conf and join the audio group"
    }

    public var description: String {
        notice ?? "SCHED_FIFO \(requestedPriority.map(String.init) ?? "-")\(hasLockedMemory ? ", memory locked" : "")"
    }

    // MARK: Audio thread

    /// Asks for SCHED_FIFO at `priority` for the calling thread.
    /// - Returns: 0 or the errno.
    /// - Thread: audio (at the top of the render thread, before its first block)
    /// - Realtime: safe (one system call that does not block)
    public static func promoteCurrentThread(priority: Int32) -> Int32 {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
    }

    // MARK: Control thread

    /// Locks current and future pages into RAM as they are first touched
    /// (`MCL_ONFAULT`): a page in use is never paged out, and mappings
    /// nobody touches (most of a 37 MB ICU library, a JACK server's shared
    /// segments, 8 MB thread stacks) are not made resident just for being
    /// mapped. Buffers the audio thread uses are touched when they are
    /// made, before it runs; the sampler's samples are locked as they are
    /// read (FluidSynth's `synth.lock-memory`).
    /// - Returns: 0 or the errno.
    /// - Thread: control
    /// - Realtime: unsafe (can take a while on a large process)
    public static func lockAllMemory() -> Int32 {
        mlockall(Int32(MCL_CURRENT | MCL_FUTURE | Self.lockOnFault)) == 0 ? 0 : errno
    }

    /// `MCL_ONFAULT` (Linux 4.4).
    static let lockOnFault: Int32 = 4

    // MARK: Any thread

    /// The calling thread's scheduling policy (SCHED_FIFO = 1, SCHED_OTHER = 0).
    /// - Thread: any (it answers for the calling thread)
    /// - Realtime: safe (one system call that does not block)
    public static func currentPolicy() -> Int32 {
        var policy: Int32 = 0
        var parameters = sched_param()
        _ = pthread_getschedparam(pthread_self(), &policy, &parameters)
        return policy
    }
}
