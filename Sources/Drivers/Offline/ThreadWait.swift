#if canImport(Glibc)
import Glibc
#endif

/// Backs off while a ring between two offline threads is empty or full:
/// a few yields, then short sleeps. This is the file driver's stand-in for
/// the device wait (`snd_pcm_wait`) of a live driver; live drivers never use it.
struct ThreadWait {
    private var spins = 0

    // MARK: Audio thread

    /// Backs off once: a yield for the first 31 calls since `reset()`, then a 100 µs sleep.
    /// - Thread: audio
    /// - Realtime: safe (blocks only here, the wait that paces an offline render loop:
    ///   a yield, then 100 µs sleeps; live drivers wait on the device instead)
    mutating func pause() {
        spins += 1
        if spins < 32 {
            sched_yield()
        } else {
            var ts = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&ts, nil)
        }
    }

    /// Back to yielding: the ring moved.
    /// - Thread: audio
    /// - Realtime: safe
    mutating func reset() { spins = 0 }

    // MARK: Reader, writer and control threads

    /// Sleeps a fixed 0.5 ms, for the reader and the writer, which are not
    /// the critical path: their rings hold over a second of audio, so a nap
    /// never starves the render thread, while yielding in a loop would keep a
    /// whole core busy doing nothing (on a 2-core machine, the core the
    /// render thread competes for).
    /// - Thread: reader, writer
    /// - Realtime: unsafe (sleeps)
    static func nap() {
        var ts = timespec(tv_sec: 0, tv_nsec: 500_000)
        nanosleep(&ts, nil)
    }
}

/// Monotonic time in nanoseconds (clock_gettime through the vDSO: no syscall, no blocking).
/// - Thread: audio, control
/// - Realtime: safe
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
