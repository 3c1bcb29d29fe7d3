/// The device-event state machine: a pure function from a state and an
/// event to the next state and the effects to carry out. Drivers only report
/// events; the sessions carry out the effects. Nothing here touches a
/// device, a clock or a file, so every (state, event) pair is tested as a table.
///
/// The policies it encodes:
/// - The output lost: stop at once, end every note, finalize the recording,
///   say so; never fall back to another output. With `--reconnect`, wait for
///   the *same* route instead of exiting (exit status 1 otherwise).
/// - Audio that comes back (a resume, a reconnect, a restart of the
///   streams) is said to be back once its first period has gone through,
///   never when the start merely returned.
/// - An interruption (suspend, Ctrl-Z, the device taken): audio comes back
///   by itself only with `--auto-resume`, only when the mic was live, and
///   only on the same route; otherwise the user starts it again.
/// - A device appears: say so; restart on it only when it is the chosen one
///   and the user asked (`--reconnect`).
/// - The format changed: rebuild the graph for it.
/// - An xrun: the driver has recovered it; a storm of them: say so and
///   suggest a larger period.
/// - Lost (or ended on a device error): the devices are let go within a
///   bound (`releaseDevices`) before the take is finalized, whatever a
///   dead server's library does on close.
/// - No first period after a start while the device is still there (a
///   sound server's client not yet scheduled): restart the streams, a
///   bounded number of times within a few seconds, saying so each time;
///   only then is the device lost.
/// - Every stop, loss and interruption ends every note.
/// - Headless (`policy.headless`: no screen, no keys) nothing waits for a
///   key that cannot come: an interruption that would wait for space ends
///   the session (exit status 1, the take finalized) unless `--auto-resume`
///   brings audio back by itself.
public struct SessionStateMachine: Sendable {
    /// The devices the user chose: the only route audio ever starts on.
    public let route: DeviceRoute
    public let policy: SessionPolicy

    public init(route: DeviceRoute, policy: SessionPolicy) {
        self.route = route
        self.policy = policy
    }

    /// The next state and what to do on the way there. Pure.
    public func transition(from state: SessionState, on event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch state {
        case .stopped(.songEnded):
            return afterSongEnded(event)
        case .stopped, .failed:
            return (state, [])
        case .idle:
            return fromIdle(event)
        case .starting:
            return fromStarting(event)
        case let .running(micLive):
            return fromRunning(micLive: micLive, event)
        case let .recovering(micLive):
            return fromRecovering(micLive: micLive, event)
        case let .interrupted(reason, micLive):
            return fromInterrupted(reason, micLive: micLive, event)
        case let .waitingForDevice(lost, micLive):
            return fromWaiting(lost: lost, micLive: micLive, event)
        }
    }

    // MARK: Per state

    private func fromIdle(_ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch event {
        case .userStart: (.starting, [.startAudio(route)])
        case .userStop: (.stopped(.user), [.end(exitStatus: 0)])
        case .signal(.interrupt), .signal(.terminate), .signal(.hangup):
            (.stopped(.signal(event.signal!)), [.end(exitStatus: 0)])
        // Nothing to interrupt, but Ctrl-Z must still stop the process.
        case .signal(.terminalStop): (.idle, [.suspendProcess])
        default: (.idle, [])
        }
    }

    private func fromStarting(_ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch event {
        case .started: (.running(micLive: true), [])
        case let .startFailed(failure): (.failed(failure), [.stopAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)])
        case let .formatChanged(format): (.starting, [.rebuildGraph(format)])
        case let .deviceAppeared(name): (.starting, [.tell(appeared(name))])
        case .serverRestarted: (.starting, [])
        default:
            // Everything else while starting is what it would be while running with the mic on.
            running(micLive: true, event) ?? (.starting, [])
        }
    }

    private func fromRunning(micLive: Bool, _ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch event {
        case .micOn: (.running(micLive: true), [])
        case .micOff: (.running(micLive: false), [])
        case .songEnded:
            // Let what is queued play out: a song's last notes are not cut.
            (.stopped(.songEnded), [.drainAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 0)])
        case let .xrunStorm(count, seconds, period):
            (.running(micLive: micLive), [.tell(stormMessage(count: count, seconds: seconds, period: period))])
        case let .formatChanged(format):
            // A sound server's client told of a new buffer size or rate while
            // audio runs (ALSA PCMs report none: a PCM keeps its format while
            // open). The route and the mic are as they were and the server
            // never stopped: rebuild for the new format and go on at once,
            // whatever the policy (a JACK user changes the buffer size while
            // playing).
            (.recovering(micLive: micLive),
             [.stopAudio, .allNotesOff, .rebuildGraph(format), .tell("the device now runs at \(format); rebuilt for it, going on"),
              .startAudio(route)])
        default:
            running(micLive: micLive, event) ?? (.running(micLive: micLive), [])
        }
    }

    private func fromRecovering(micLive: Bool, _ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch event {
        // Said once a period has gone through, not when the start returns: a
        // sound server's PCM or client may start and give none (the watchdog
        // then restarts the streams or calls the device lost).
        case .started: return (.recovering(micLive: micLive), [])
        case .firstPeriod: return (.running(micLive: micLive), [.tell("audio is back on \(route)")])
        case .micOn: return (.recovering(micLive: true), [])
        case .micOff: return (.recovering(micLive: false), [])
        case let .formatChanged(format):
            // Said first: a rebuild that fails ends the session, and the last word must not be "rebuilt".
            return (.recovering(micLive: micLive), [.tell("the device now runs at \(format); rebuilding the graph for it"), .rebuildGraph(format)])
        case let .startFailed(failure):
            switch failure.kind {
            case .busy:
                if policy.headless && !(policy.autoResume && micLive) {
                    let (stopped, effects) = end(.interrupted(.deviceTaken))
                    return (stopped, [.tell(failure.message)] + effects)
                }
                // Let go of the devices and watch for them to be free again (said once, or restarted with --auto-resume).
                return (.interrupted(.deviceTaken, micLive: micLive), [.stopAudio, .allNotesOff, .tell(failure.message), .watchForDevice(route)])
            case .missing:
                return lost(failure.message, micLive: micLive)
            case .other:
                return end(.error(failure.message))
            }
        case .suspended:
            // A suspend during a resume: no second automatic attempt, ever (no loops).
            if policy.headless { return end(.interrupted(.suspended)) }
            return (.interrupted(.suspended, micLive: micLive), [.stopAudio, .allNotesOff, .tell("the device was suspended again; press space to start again")])
        default:
            return running(micLive: micLive, event, whileRecovering: true) ?? (.recovering(micLive: micLive), [])
        }
    }

    private func fromInterrupted(_ reason: InterruptionReason, micLive: Bool, _ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        let same = SessionState.interrupted(reason, micLive: micLive)
        switch event {
        case .userStart:
            return (.recovering(micLive: micLive), [reason == .suspended ? .resumeAudio(route) : .startAudio(route)])
        case .userStop, .signal(.interrupt), .signal(.terminate), .signal(.hangup), .deviceLost, .driverError:
            return running(micLive: micLive, event)!
        case .micOn: return (.interrupted(reason, micLive: true), [])
        case .micOff: return (.interrupted(reason, micLive: false), [])
        case let .formatChanged(format): return (same, [.rebuildGraph(format)])
        case let .stalled(ms):
            guard reason == .stalled else { return (same, []) }
            return ms >= policy.stallLossMilliseconds ? lost(stallLoss(ms), micLive: micLive) : (same, [])
        case let .noFirstPeriod(device, ms, restarts):
            guard reason == .stalled else { return (same, []) }
            return noFirstPeriod(from: device, milliseconds: ms, restarts: restarts, micLive: micLive)
        case .stallEnded:
            guard reason == .stalled else { return (same, []) }
            return (.running(micLive: micLive), [.tell("audio periods arrive again")])
        case .suspended:
            guard reason == .stalled else { return (same, []) }
            return running(micLive: micLive, event)!
        case .signal(.terminalStop):
            if reason == .processStopped { return (same, [.restoreTerminal, .suspendProcess]) }
            return (.interrupted(.processStopped, micLive: micLive), [.stopAudio, .allNotesOff, .restoreTerminal, .suspendProcess])
        case .signal(.continue):
            guard reason == .processStopped else { return (same, []) }
            if policy.autoResume && micLive {
                return (.recovering(micLive: micLive), [.reenterTerminal, .tell("continuing: restarting on \(route) (--auto-resume)"), .startAudio(route)])
            }
            if policy.headless { return end(.interrupted(.processStopped)) }
            return (same, [.reenterTerminal, .tell(micLive ? "continued; audio stays off until you press space (or use --auto-resume)"
                                                          : "continued; audio stays off until you press space")])
        case let .deviceAppeared(name):
            if reason == .deviceTaken && route.involves(name) && policy.autoResume && micLive {
                return (.recovering(micLive: micLive), [.tell("\(name) is free again; restarting on \(route) (--auto-resume)"), .startAudio(route)])
            }
            if reason == .deviceTaken && route.involves(name) {
                return (same, [.tell("\(name) is free again; press space to start audio on \(route)")])
            }
            return (same, [.tell(appeared(name))])
        case .serverRestarted:
            return (same, [.tell("the audio server is back")])
        case .started, .firstPeriod, .startFailed, .xrun, .xrunStorm, .songEnded:
            return (same, [])
        }
    }

    private func fromWaiting(lost: String, micLive: Bool, _ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        let same = SessionState.waitingForDevice(lost: lost, micLive: micLive)
        switch event {
        case .userStart:
            return (.recovering(micLive: micLive), [.startAudio(route)])
        case .userStop: return end(.user)
        case .signal(.interrupt), .signal(.terminate), .signal(.hangup): return end(.signal(event.signal!))
        case .micOn: return (.waitingForDevice(lost: lost, micLive: true), [])
        case .micOff: return (.waitingForDevice(lost: lost, micLive: false), [])
        case let .formatChanged(format): return (same, [.rebuildGraph(format)])
        case .signal(.terminalStop): return (same, [.restoreTerminal, .suspendProcess])
        case .signal(.continue): return (same, [.reenterTerminal])
        case let .deviceAppeared(name):
            guard route.involves(name), policy.reconnect else { return (same, [.tell(appeared(name))]) }
            return (.recovering(micLive: micLive), [.tell("\(name) is back; restarting on \(route) (--reconnect)"), .startAudio(route)])
        case .serverRestarted:
            guard policy.reconnect else { return (same, [.tell("the audio server is back")]) }
            return (.recovering(micLive: micLive), [.tell("the audio server is back; restarting on \(route) (--reconnect)"), .startAudio(route)])
        case .started, .firstPeriod, .startFailed, .xrun, .xrunStorm, .suspended, .stalled, .noFirstPeriod, .stallEnded, .deviceLost,
             .driverError, .songEnded:
            return (same, [])
        }
    }

    /// The song ended and its last notes were drained: a drain that failed
    /// because the device went turns the song's end into that loss (exit
    /// status 1). Nothing else changes a stopped session.
    private func afterSongEnded(_ event: SessionEvent) -> (SessionState, [SessionEffect]) {
        switch event {
        case let .deviceLost(what): (.stopped(.deviceLost(what)), [.end(exitStatus: 1)])
        case let .driverError(what): (.stopped(.error(what)), [.end(exitStatus: 1)])
        default: (.stopped(.songEnded), [])
        }
    }

    // MARK: Shared outcomes

    /// What the events common to every state where audio may be running do;
    /// nil for those the caller decides (or ignores).
    private func running(micLive: Bool, _ event: SessionEvent, whileRecovering: Bool = false) -> (SessionState, [SessionEffect])? {
        switch event {
        case .userStop: return end(.user)
        case .signal(.interrupt), .signal(.terminate), .signal(.hangup): return end(.signal(event.signal!))
        case let .deviceLost(what): return lost(what, micLive: micLive)
        case let .driverError(what): return end(.error(what))
        case .signal(.terminalStop):
            return (.interrupted(.processStopped, micLive: micLive), [.stopAudio, .allNotesOff, .restoreTerminal, .suspendProcess])
        case .suspended:
            if policy.autoResume && micLive {
                return (.recovering(micLive: micLive),
                        [.allNotesOff, .tell("the system suspended the device; resuming on \(route) (--auto-resume)"), .resumeAudio(route)])
            }
            if policy.headless { return end(.interrupted(.suspended)) }
            return (.interrupted(.suspended, micLive: micLive),
                    [.stopAudio, .allNotesOff, .tell("the system suspended the device; press space to resume")])
        case let .stalled(ms):
            if ms >= policy.stallLossMilliseconds { return lost(stallLoss(ms), micLive: micLive) }
            return (.interrupted(.stalled, micLive: micLive), [.tell("no audio period for \(ms) ms; waiting")])
        case let .noFirstPeriod(device, ms, restarts):
            return noFirstPeriod(from: device, milliseconds: ms, restarts: restarts, micLive: micLive)
        case let .deviceAppeared(name):
            return (whileRecovering ? .recovering(micLive: micLive) : .running(micLive: micLive), [.tell(appeared(name))])
        case .serverRestarted:
            return (whileRecovering ? .recovering(micLive: micLive) : .running(micLive: micLive), [.tell("the audio server restarted")])
        default:
            return nil
        }
    }

    /// Stop everything for good; after a device error, let the devices go
    /// within the bound (a failing device may hang its close).
    private func end(_ reason: SessionStopReason) -> (SessionState, [SessionEffect]) {
        let stop: SessionEffect = if case .error = reason { .releaseDevices } else { .stopAudio }
        return (.stopped(reason), [stop, .allNotesOff, .finalizeRecording, .end(exitStatus: reason.exitStatus)])
    }

    /// The device is gone: stop at once, never another output; wait for
    /// this one only when the user asked to.
    private func lost(_ what: String, micLive: Bool) -> (SessionState, [SessionEffect]) {
        // Let go within the bound first: the take is finalized however long a dead server's close waits.
        let common: [SessionEffect] = [.releaseDevices, .allNotesOff, .finalizeRecording]
        guard policy.reconnect else {
            return (.stopped(.deviceLost(what)), common + [.end(exitStatus: 1)])
        }
        return (.waitingForDevice(lost: what, micLive: micLive),
                common + [.tell("device lost: \(what); audio is off, Busker does not switch to another output; waiting for \(route) (--reconnect)"),
                          .watchForDevice(route)])
    }

    /// No period since the start: wait up to `firstPeriodMilliseconds`, then
    /// restart the streams on the same devices, up to `firstPeriodRestarts`
    /// times within the window; one more is a loss.
    private func noFirstPeriod(from device: String, milliseconds ms: Int, restarts: Int,
                               micLive: Bool) -> (SessionState, [SessionEffect]) {
        guard ms >= policy.firstPeriodMilliseconds else { return (.interrupted(.stalled, micLive: micLive), []) }
        guard restarts < policy.firstPeriodRestarts else {
            return lost("no audio period from \(device) in \(ms) ms after \(restarts) restarts of the streams "
                        + "(the device or its sound server runs none for Busker)", micLive: micLive)
        }
        let seconds = "\(ms / 1000).\(ms % 1000 / 100) s"
        return (.recovering(micLive: micLive),
                [.allNotesOff, .tell("no audio period in \(seconds) from \(device); restarting the streams (\(restarts + 1) of \(policy.firstPeriodRestarts))"),
                 .restartStreams(route)])
    }

    private func stallLoss(_ ms: Int) -> String {
        "no audio period from \(route) for \(ms) ms (the device or its sound server is gone)"
    }

    private func appeared(_ name: String) -> String {
        "a device appeared: \(name); Busker stays on \(route)"
    }

    private func stormMessage(count: Int, seconds: Int, period: Int) -> String {
        // A JACK client's route is its server (`jack:NAME`): the server sets the period, not --period.
        let fix = route.output.hasPrefix("jack:") ? "a larger JACK buffer (jack_bufsize \(period * 2))" : "--period \(period * 2)"
        return "xrun storm: \(count) xruns in \(seconds) s; this machine cannot keep up with \(period)-frame periods, try \(fix)"
    }
}

extension SessionEvent {
    /// The signal of a `.signal` event.
    var signal: ProcessSignal? {
        if case let .signal(s) = self { return s }
        return nil
    }
}
