/// What a driver that cannot open its route a second time throws from
/// `reopen()`: an offline driver reads its files once.
public struct ReopenRefused: DriverError, Equatable {
    /// The route it was opened on.
    public var route: DeviceRoute

    public init(route: DeviceRoute) {
        self.route = route
    }

    public var startFailure: StartFailure {
        StartFailure(kind: .other, device: route.output, message: description)
    }

    public var description: String { "\(route) cannot be opened again" }
}
