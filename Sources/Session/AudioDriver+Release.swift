import Foundation

extension AudioDriver {
    /// Closes on a thread of its own (`device-release`) and waits for it at
    /// most `milliseconds`; a close that has not returned by then is left
    /// to that thread, detached, holding the driver until it returns
    /// (counted in `DriverReleases.closesRunning` until then).
    /// - Returns: whether the close returned in time.
    /// - Thread: control
    /// - Realtime: unsafe (creates a thread, waits)
    public func release(withinMilliseconds milliseconds: Int) -> Bool {
        let closing = DriverClosing(self)
        let thread = Thread { closing.run() }
        thread.name = "device-release"
        DriverReleases.begin()
        thread.start()
        return closing.done.wait(timeout: .now() + .milliseconds(max(0, milliseconds))) == .success
    }
}

/// A driver handed to the thread that closes it, and the signal that it has.
/// The control thread touches the driver no more once it is handed over.
private final class DriverClosing: @unchecked Sendable {
    let driver: any AudioDriver
    let done = DispatchSemaphore(value: 0)

    init(_ driver: any AudioDriver) {
        self.driver = driver
    }

    /// - Thread: device-release
    /// - Realtime: unsafe (closes devices)
    func run() {
        driver.close()
        DriverReleases.end()
        done.signal()
    }
}
