/// How a driver's reports read as session events: where the drivers'
/// vocabulary (errno codes, stop reasons) meets the state machine's.
extension DriverStopReason {
    /// The session event for a loop that ended by itself; nil for a stop the
    /// session asked for (`.requested`).
    /// - Parameters:
    ///   - route: the devices, so the message says which one.
    ///   - detail: the driver's own words for the error (`AudioDriver.stopDetail`),
    ///     said instead of the code's text.
    public func sessionEvent(route: DeviceRoute, detail: String? = nil) -> SessionEvent? {
        func device(_ d: StreamDirection) -> String {
            "\(d.optionWord) '\(d == .capture ? route.input ?? route.output : route.output)'"
        }
        switch self {
        case .requested:
            return nil
        case .endOfInput:
            return .songEnded
        case .suspended:
            return .suspended
        case let .deviceLost(d, code):
            return .deviceLost("\(device(d)) is gone (\(detail ?? Self.describe(code)))")
        case let .recoveryFailed(d, code):
            // A plugin PCM whose server died keeps answering xruns: that is a loss, not a glitch.
            return .deviceLost("\(device(d)) kept failing after xruns (\(detail ?? Self.describe(code))); its sound server may be gone")
        case let .ioError(d, code):
            return .driverError("\(device(d)): \(detail ?? Self.describe(code))")
        }
    }
}
