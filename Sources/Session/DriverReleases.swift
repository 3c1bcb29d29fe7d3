import Synchronization

/// The closes handed to a `device-release` thread by
/// `AudioDriver.release(withinMilliseconds:)` that have not returned yet, in
/// this process. While one runs, that thread may be inside libasound or
/// libjack (waiting on a dead sound server): the executable then leaves with
/// `_exit`, so that no library's exit handler runs under the close.
public enum DriverReleases {
    private static let running = Atomic<Int>(0)

    /// Closes still running on their `device-release` threads.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public static var closesRunning: Int { running.load(ordering: .acquiring) }

    /// A close is handed to its thread (counted before the thread starts).
    /// - Thread: control
    /// - Realtime: safe (an atomic add)
    static func begin() { running.add(1, ordering: .relaxed) }

    /// The close returned.
    /// - Thread: device-release
    /// - Realtime: safe (an atomic subtract)
    static func end() { running.subtract(1, ordering: .releasing) }
}
