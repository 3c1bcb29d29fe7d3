/// What the session must do after a transition, in order. The state machine
/// decides; the session (`busker live`, `busker play`) carries them out and
/// reports the outcome back as events (`started`, `startFailed`…).
public enum SessionEffect: Hashable, Sendable {
    /// Open the route if it is not open, and start audio on it. The route is
    /// always the one the user chose; a session refuses any other.
    case startAudio(DeviceRoute)
    /// After a suspend: resume the same open devices (`snd_pcm_resume`) and start.
    case resumeAudio(DeviceRoute)
    /// No first period came: let the devices go, open the same route again
    /// and start (counted for `SessionEvent.noFirstPeriod`'s restarts): a
    /// sound server's PCM or client it does not schedule stays so through a
    /// mere drop and prepare.
    case restartStreams(DeviceRoute)
    /// Stop the audio thread now, dropping what is queued (idempotent): a live mic goes quiet at once.
    case stopAudio
    /// The device is lost (or the session ends on its error): stop and let it
    /// go within `SessionPolicy.releaseMilliseconds`, leaving a close that
    /// waits on a dead server to a detached thread (idempotent).
    case releaseDevices
    /// Stop after what is queued has played (the end of a song), bounded in time.
    case drainAudio
    /// End every sounding note of every instrument: no stuck notes, ever.
    case allNotesOff
    /// Close the recording in progress so the file holds everything so far
    /// (the hook the recording feature fills in; a session without one ignores it).
    case finalizeRecording
    /// Compile and install the render graph for this format.
    case rebuildGraph(AudioFormat)
    /// Close the lost devices and watch, off the audio thread, for the route to come back.
    case watchForDevice(DeviceRoute)
    /// Give the terminal back as it was (before the process stops).
    case restoreTerminal
    /// Take the terminal again (after SIGCONT).
    case reenterTerminal
    /// Really stop the process now (SIGSTOP to ourselves), as Ctrl-Z means.
    case suspendProcess
    /// Say this to the user (screen notice, or a line on standard output headless).
    case tell(String)
    /// The session is over; exit with this status after the last line.
    case end(exitStatus: Int32)

    /// Whether this effect makes sound come out of a device.
    public var startsAudio: Bool {
        switch self {
        case .startAudio, .resumeAudio, .restartStreams: true
        default: false
        }
    }

    /// The route a starting effect starts on.
    public var route: DeviceRoute? {
        switch self {
        case let .startAudio(r), let .resumeAudio(r), let .restartStreams(r), let .watchForDevice(r): r
        default: nil
        }
    }
}
