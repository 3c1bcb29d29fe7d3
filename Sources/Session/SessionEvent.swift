/// Everything that can happen to a session: what the user does, what the
/// driver reports, what the device watcher notices, and signals.
public enum SessionEvent: Hashable, Sendable {
    /// Start (or start again) on the chosen route: the first start, or a key press after an interruption.
    case userStart
    /// The quit key.
    case userStop
    /// The mic key (`busker live`).
    case micOn
    case micOff
    /// The start or restart the session asked for worked: the devices run
    /// on the route; their first period may still be on its way.
    case started
    /// A period has gone all the way through since the last start: audio
    /// really flows (the runner polls `AudioDriver.completedPeriodSinceStart`).
    case firstPeriod
    /// The start or restart failed.
    case startFailed(StartFailure)
    /// An xrun, already recovered by the driver within a period; `total` since open.
    case xrun(total: Int)
    /// `count` xruns within `seconds`: the period is too small for this machine.
    case xrunStorm(count: Int, seconds: Int, period: Int)
    /// The system suspended the device (`-ESTRPIPE`); the driver's loop has ended.
    case suspended
    /// No period has arrived for `milliseconds` (the driver's watchdog; the session reports it again as it lasts).
    case stalled(milliseconds: Int)
    /// No period at all since the last start, for `milliseconds`, from
    /// `device` (the driver's watchdog; reported again as it lasts), with
    /// `restarts` restarts of the streams for the same reason made in the
    /// last `SessionPolicy.firstPeriodRestartWindowSeconds`.
    case noFirstPeriod(device: String, milliseconds: Int, restarts: Int)
    /// Periods arrive again after a stall.
    case stallEnded
    /// The device is gone (`-ENODEV`, disconnected, a plugin's server died and recovery failed);
    /// the text says which device and how we noticed.
    case deviceLost(String)
    /// Any other error the driver stopped on.
    case driverError(String)
    /// A device (a PCM name, or a card's name) appeared or came back.
    case deviceAppeared(String)
    /// The device now grants another format (noticed when it was opened again).
    case formatChanged(AudioFormat)
    /// The sound server (JACK) is reachable again after it went away.
    case serverRestarted
    /// `busker play --no-tui SONG.mid`: the song is over.
    case songEnded
    case signal(ProcessSignal)
}
