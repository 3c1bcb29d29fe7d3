import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM as a flag the control loop polls, so that every stop
/// goes through the same clean path: audio stopped, recordings finalized,
/// terminal restored.
enum StopSignals {
    static let received = Atomic<Int32>(0)

    static func install() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { number in StopSignals.received.store(number, ordering: .relaxed) }
        }
    }

    /// The signal that asked us to stop, if any.
    static var pending: Int32? {
        let s = received.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }
}
