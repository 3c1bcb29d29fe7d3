import ALSAIO
import Foundation

/// Follows a driver's events for a control loop (`busker live`, `busker play`):
/// notices when the driver stopped by itself, remembers a stall while it
/// lasts, and says in a few words what state the driver is in.
struct DriverWatch {
    /// Set while the driver reports that periods stopped arriving.
    private(set) var stall: (direction: String, milliseconds: Int)?

    /// Takes the driver's pending events.
    /// - Returns: why the driver stopped, when it stopped by itself (not on request).
    mutating func poll(_ driver: DuplexDriver) -> DriverStopReason? {
        while let event = driver.nextEvent() {
            switch event {
            case let .stopped(reason) where reason != .requested: return reason
            case let .stalled(direction, ms): stall = ("\(direction)", ms)
            case .stallEnded: stall = nil
            default: break
            }
        }
        if let reason = driver.stopReason, reason != .requested { return reason }
        return nil
    }

    /// "running", "STALLED: …" or "stopped (…)".
    func state(of driver: DuplexDriver) -> String {
        if let reason = driver.stopReason { return "stopped (\(reason))" }
        if let stall { return "STALLED: no \(stall.direction) period for \(stall.milliseconds) ms" }
        return driver.isRunning ? "running" : "starting"
    }
}

extension LiveSession.Ending {
    /// Prints the last line for a normal end, or throws the one-line error
    /// (exit status 1) when the device stopped the session.
    func report(command: String, quitKey: String, driver: DuplexDriver, consequence: String) throws {
        switch self {
        case .userQuit:
            print("busker \(command): stopped (\(quitKey)). xruns: \(driver.xrunCount)")
        case .songEnded:
            print("busker \(command): the song ended. xruns: \(driver.xrunCount)")
        case let .signal(sig):
            print("busker \(command): stopped by \(sig == SIGINT ? "SIGINT" : "SIGTERM"). xruns: \(driver.xrunCount)")
        case let .driverStopped(reason):
            throw CommandLineError.runtime("stopped: \(reason)\(consequence). xruns: \(driver.xrunCount)")
        }
    }
}
