/// What the screens show of a driver: read from it while the session holds
/// it, and kept from the moment it is let go (`AudioDriver.release`), after
/// which a close may still be running on another thread and the driver is
/// not touched again.
public struct DriverReadout {
    public var route: DeviceRoute
    public var format: AudioFormat
    public var latencyFrames: Int
    public var summary: String
    public var clockCorrection: ClockCorrection?

    /// Reads `driver` now.
    /// - Thread: control
    /// - Realtime: unsafe (the driver may ask its library)
    public init(of driver: any AudioDriver) {
        route = driver.route
        format = driver.format
        latencyFrames = driver.latencyFrames
        summary = driver.summary
        clockCorrection = driver.clockCorrection
    }
}
