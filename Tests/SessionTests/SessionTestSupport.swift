import Session
import XCTest

/// The route, events and states the session tests share.
enum Fixture {
    static let route = DeviceRoute(input: "busker_in", output: "busker_out")
    static let format = AudioFormat(sampleRate: 44100, periodFrames: 64, inputChannels: 2, outputChannels: 2)
    static let busy = StartFailure(kind: .busy, device: "busker_out",
                                   message: "playback device 'busker_out' is busy, held by aplay (pid 42)")
    static let missing = StartFailure(kind: .missing, device: "busker_out", message: "no ALSA PCM named 'busker_out'")
    static let other = StartFailure(kind: .other, device: "busker_out", message: "snd_pcm_prepare failed: Input/output error")
    static let lostText = "playback device 'busker_out' lost (No such device)"
    static let stallLossText = "no audio period from busker_in → busker_out for 1000 ms (the device or its sound server is gone)"
    /// No first period: below the restart threshold, at it with a restart left, and with none left.
    static let firstPeriodWait = SessionEvent.noFirstPeriod(device: "busker_in", milliseconds: 600, restarts: 0)
    static let firstPeriodRestart = SessionEvent.noFirstPeriod(device: "busker_in", milliseconds: 1000, restarts: 2)
    static let firstPeriodGiveUp = SessionEvent.noFirstPeriod(device: "busker_in", milliseconds: 1000, restarts: 3)
    static let firstPeriodLossText = "no audio period from busker_in in 1000 ms after 3 restarts of the streams "
        + "(the device or its sound server runs none for Busker)"

    static let defaultPolicy = SessionPolicy()
    static let permissive = SessionPolicy(autoResume: true, reconnect: true)

    /// One of each event, with both sides of every threshold and of "is it our device".
    static let events: [SessionEvent] = [
        .userStart, .userStop, .micOn, .micOff, .started, .firstPeriod,
        .startFailed(busy), .startFailed(missing), .startFailed(other),
        .xrun(total: 1), .xrunStorm(count: 8, seconds: 5, period: 64),
        .suspended, .stalled(milliseconds: 600), .stalled(milliseconds: 1000), .stallEnded,
        firstPeriodWait, firstPeriodRestart, firstPeriodGiveUp,
        .deviceLost(lostText), .driverError("Input/output error"),
        .deviceAppeared("busker_out"), .deviceAppeared("hw:9,0"),
        .formatChanged(format), .serverRestarted, .songEnded,
        .signal(.interrupt), .signal(.terminate), .signal(.hangup), .signal(.terminalStop), .signal(.continue),
    ]
}

/// What a transition should give: nothing at all, or a state and effects.
/// A `.tell` in an expectation matches any message containing its text, so
/// the tables pin what is said without copying every word.
enum Expected {
    case nothing
    case to(SessionState, [SessionEffect])

    /// Ended; on a device error the devices are let go within the bound.
    static func ended(_ reason: SessionStopReason) -> Expected {
        let stop: SessionEffect = if case .error = reason { .releaseDevices } else { .stopAudio }
        return .to(.stopped(reason), [stop, .allNotesOff, .finalizeRecording, .end(exitStatus: reason.exitStatus)])
    }

    /// Lost, without --reconnect: let the devices go (bounded), finalize, exit 1.
    static func lostAndExit(_ what: String) -> Expected {
        .to(.stopped(.deviceLost(what)), [.releaseDevices, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)])
    }

    /// Lost, with --reconnect: let the devices go (bounded), say so, watch for the same route.
    static func lostAndWait(_ what: String, micLive: Bool) -> Expected {
        .to(.waitingForDevice(lost: what, micLive: micLive),
            [.releaseDevices, .allNotesOff, .finalizeRecording, .tell("does not switch to another output"), .watchForDevice(Fixture.route)])
    }

    /// No first period, a restart left: restart the streams on the same route, saying which of how many.
    static func restartStreams(micLive: Bool, _ said: String = "no audio period in 1.0 s from busker_in; restarting the streams (3 of 3)") -> Expected {
        .to(.recovering(micLive: micLive), [.allNotesOff, .tell(said), .restartStreams(Fixture.route)])
    }

    /// Ctrl-Z while audio may run.
    static func ctrlZ(micLive: Bool) -> Expected {
        .to(.interrupted(.processStopped, micLive: micLive), [.stopAudio, .allNotesOff, .restoreTerminal, .suspendProcess])
    }
}

func assertOutcome(_ actual: (SessionState, [SessionEffect]), _ expected: Expected, from state: SessionState,
                   on event: SessionEvent, file: StaticString = #filePath, line: UInt = #line) {
    let (expectedState, expectedEffects): (SessionState, [SessionEffect]) = switch expected {
    case .nothing: (state, [])
    case let .to(s, e): (s, e)
    }
    let context = "\(state) + \(event)"
    XCTAssertEqual(actual.0, expectedState, context, file: file, line: line)
    XCTAssertEqual(actual.1.count, expectedEffects.count, "\(context): \(actual.1)", file: file, line: line)
    for (a, e) in zip(actual.1, expectedEffects) {
        if case let .tell(text) = e {
            guard case let .tell(said) = a else { XCTFail("\(context): \(a) instead of \(e)", file: file, line: line); continue }
            XCTAssertTrue(said.contains(text), "\(context): '\(said)' should say '\(text)'", file: file, line: line)
        } else {
            XCTAssertEqual(a, e, context, file: file, line: line)
        }
    }
}
