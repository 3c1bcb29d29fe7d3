import Foundation

/// Turns what a driver reports into session events: xruns (and storms of
/// them), stalls — reported again with their growing length on every poll,
/// so that the state machine can call a stall that lasts a loss (or, before
/// the first period, a reason to restart the streams: counted here) — format
/// changes, and the reason the loop ended by itself.
struct DriverWatch {
    private var storm: XrunStormDetector
    /// A stall in progress; `firstPeriodFrom` names the device when no period came since the start.
    private var stall: (since: Date, reportedMilliseconds: Int, firstPeriodFrom: String?)?
    private var stopReported = false
    /// When the streams were restarted for want of a first period (uptime seconds), within the window.
    private var restarts: [TimeInterval] = []
    private let restartWindow: TimeInterval

    init(policy: SessionPolicy) {
        storm = XrunStormDetector(policy: policy)
        restartWindow = TimeInterval(policy.firstPeriodRestartWindowSeconds)
    }

    /// The session restarted the streams because no first period came.
    mutating func noteFirstPeriodRestart() {
        restarts.append(ProcessInfo.processInfo.systemUptime)
    }

    /// Restarts for want of a first period within the window, up to now.
    private mutating func recentRestarts() -> Int {
        let now = ProcessInfo.processInfo.systemUptime
        restarts.removeAll { now - $0 > restartWindow }
        return restarts.count
    }

    /// Forget the previous run (a new start, or a driver opened again).
    mutating func reset() {
        stall = nil
        stopReported = false
    }

    /// Takes the driver's pending events.
    /// - Thread: control
    /// - Realtime: unsafe (allocates)
    mutating func poll(_ driver: any AudioDriver) -> [SessionEvent] {
        var events: [SessionEvent] = []
        let route = driver.route
        while let event = driver.nextEvent() {
            switch event {
            case .started:
                break  // the session learns it from start() returning
            case let .xrunRecovered(_, total):
                events.append(.xrun(total: total))
                if storm.record(at: ProcessInfo.processInfo.systemUptime) {
                    events.append(.xrunStorm(count: storm.count, seconds: Int(storm.seconds), period: driver.format.periodFrames))
                }
            case let .stalled(_, ms):
                stall = (Date(), ms, nil)
                events.append(.stalled(milliseconds: ms))
            case let .noFirstPeriod(direction, ms):
                let device = Self.device(direction, of: route)
                stall = (Date(), ms, device)
                events.append(.noFirstPeriod(device: device, milliseconds: ms, restarts: recentRestarts()))
            case .stallEnded:
                stall = nil
                events.append(.stallEnded)
            case let .formatChanged(format):
                events.append(.formatChanged(format))
            case let .stopped(reason):
                stall = nil
                stopReported = true
                if let e = reason.sessionEvent(route: route, detail: driver.stopDetail) { events.append(e) }
            }
        }
        // The event queue can overflow; the stop reason itself cannot be missed.
        if !stopReported, let reason = driver.stopReason {
            stopReported = true
            stall = nil
            if let e = reason.sessionEvent(route: route, detail: driver.stopDetail) { events.append(e) }
        }
        if let stall {
            let ms = stall.reportedMilliseconds + Int(Date().timeIntervalSince(stall.since) * 1000)
            if let device = stall.firstPeriodFrom {
                events.append(.noFirstPeriod(device: device, milliseconds: ms, restarts: recentRestarts()))
            } else {
                events.append(.stalled(milliseconds: ms))
            }
        }
        return events
    }

    /// The PCM (or server) of one side of the route, as the user named it.
    private static func device(_ direction: StreamDirection, of route: DeviceRoute) -> String {
        direction == .capture ? route.input ?? route.output : route.output
    }
}
