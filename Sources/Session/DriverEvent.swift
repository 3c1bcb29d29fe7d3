/// What a driver's render thread tells the control thread, through an SPSC
/// queue (`AudioDriver.nextEvent()`). Plain values: pushing one allocates
/// nothing. The driver only reports (and, for xruns, recovers); the session
/// runner turns these into `SessionEvent`s for the state machine.
public enum DriverEvent: Sendable, Hashable {
    /// Audio runs; the first period is on its way.
    case started
    /// An xrun on this side, already recovered (streams re-prepared,
    /// playback re-primed, restarted). `total` counts since open.
    case xrunRecovered(StreamDirection, total: Int)
    /// No period arrived for `milliseconds` (a device or a sound server that
    /// stopped without telling). The driver keeps waiting until stopped.
    case stalled(StreamDirection, milliseconds: Int)
    /// As `.stalled`, but no period at all has gone through since the start
    /// (a sound server's PCM or client not yet scheduled): the session may
    /// restart the streams. `.stallEnded` when periods come.
    case noFirstPeriod(StreamDirection, milliseconds: Int)
    /// Periods flow again after a stall.
    case stallEnded(StreamDirection)
    /// The driver now runs at another format, noticed while it runs (a sound
    /// server's client told of a new buffer size or rate): graphs must be
    /// compiled for it. The ALSA driver reports none: a PCM keeps its format
    /// while open, and the runner compares the format when it opens the
    /// route again.
    case formatChanged(AudioFormat)
    /// The render loop has ended; `AudioDriver.stopReason` says the same.
    case stopped(DriverStopReason)
}
