import Foundation

/// Turns what a driver reports into session events: xruns (and storms of
/// them), stalls — reported again with their growing length on every poll,
/// so that the state machine can call a stall that lasts a loss — format
/// changes, and the reason the loop ended by itself.
struct DriverWatch {
    private var storm: XrunStormDetector
    private var stall: (since: Date, reportedMilliseconds: Int)?
    private var stopReported = false

    init(policy: SessionPolicy) {
        storm = XrunStormDetector(policy: policy)
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
                stall = (Date(), ms)
                events.append(.stalled(milliseconds: ms))
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
            events.append(.stalled(milliseconds: stall.reportedMilliseconds + Int(Date().timeIntervalSince(stall.since) * 1000)))
        }
        return events
    }
}
