/// What the user allowed Busker to do by itself when devices come and go,
/// and the thresholds that turn driver reports into decisions. `autoResume`
/// and `reconnect` are off by default: a live mic never comes back on, or
/// moves to another device, unless the user asked for it.
public struct SessionPolicy: Equatable, Sendable {
    /// `--auto-resume`: after an interruption (suspend, Ctrl-Z, another
    /// program took the device), start again by itself if the mic was live
    /// before; always on the same route.
    public var autoResume = false
    /// `--reconnect`: after the device was lost, keep running and restart on
    /// it when it comes back (never on another device).
    public var reconnect = false
    /// No screen and no keys (`--no-tui`, no terminal, `busker record`):
    /// nobody can press space, so an interruption that would wait for the
    /// key ends the session instead (exit status 1, the take finalized);
    /// with `--auto-resume` (and the mic live) it still resumes by itself.
    public var headless = false
    /// A stall (no period at all) that lasts this long is a lost device: a
    /// plugin PCM whose server died blocks forever instead of failing, so
    /// only time tells. The driver first reports a stall at 500 ms.
    public var stallLossMilliseconds = 1000
    /// Lost or ended, the devices are let go within this long: the take is
    /// finalized and the session ends however long libasound or libjack
    /// waits on a dead server (`AudioDriver.release(withinMilliseconds:)`).
    /// With the 1 s stall loss, a killed server ends the session in about 1.5 s.
    public var releaseMilliseconds = 500
    /// No first period this long after a start, while the device or server
    /// is still there (a sound server's PCM or client not yet scheduled while
    /// other clients come and go): the streams are restarted, at most
    /// `firstPeriodRestarts` times within `firstPeriodRestartWindowSeconds`;
    /// one more such start is a lost device.
    public var firstPeriodMilliseconds = 1000
    public var firstPeriodRestarts = 3
    public var firstPeriodRestartWindowSeconds = 10
    /// This many xruns within `xrunStormSeconds` is an xrun storm.
    public var xrunStormCount = 8
    public var xrunStormSeconds = 5

    public init(autoResume: Bool = false, reconnect: Bool = false, headless: Bool = false) {
        self.autoResume = autoResume
        self.reconnect = reconnect
        self.headless = headless
    }
}
