/// What the user allowed Busker to do by itself when devices come and go.
/// Both are off by default: a live mic never comes back on, or moves to
/// another device, unless the user asked for it.
public struct SessionPolicy: Equatable, Sendable {
    /// `--auto-resume`: after an interruption (suspend, another program took
    /// the device), start again by itself if the mic was live before and the
    /// route is unchanged.
    public var autoResume = false
    /// `--reconnect`: when the device the user chose appears again, restart on it.
    public var reconnect = false

    public init(autoResume: Bool = false, reconnect: Bool = false) {
        self.autoResume = autoResume
        self.reconnect = reconnect
    }
}
