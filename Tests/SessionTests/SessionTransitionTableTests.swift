import Session
import XCTest

/// Every (state, event) pair, as a table, under the default policy (nothing
/// happens by itself), then the pairs that `--auto-resume --reconnect`
/// change. A table must name every event: a new event without a row fails
/// `testEveryTableNamesEveryEvent`, so no pair goes untested.
final class SessionTransitionTableTests: XCTestCase {
    typealias Table = [SessionEvent: Expected]
    let route = Fixture.route
    let f = Fixture.format

    // MARK: Default policy

    private func idleTable() -> Table {
        var t = Table()
        for e in Fixture.events { t[e] = .nothing }
        t[.userStart] = .to(.starting, [.startAudio(route)])
        t[.userStop] = .to(.stopped(.user), [.end(exitStatus: 0)])
        t[.signal(.interrupt)] = .to(.stopped(.signal(.interrupt)), [.end(exitStatus: 0)])
        t[.signal(.terminate)] = .to(.stopped(.signal(.terminate)), [.end(exitStatus: 0)])
        t[.signal(.hangup)] = .to(.stopped(.signal(.hangup)), [.end(exitStatus: 0)])
        t[.signal(.terminalStop)] = .to(.idle, [.suspendProcess])
        return t
    }

    private func startingTable() -> Table {
        [
            .userStart: .nothing,
            .userStop: .ended(.user),
            .micOn: .nothing,
            .micOff: .nothing,
            .started: .to(.running(micLive: true), []),
            .firstPeriod: .nothing,
            .startFailed(Fixture.busy): .to(.failed(Fixture.busy), [.stopAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)]),
            .startFailed(Fixture.missing): .to(.failed(Fixture.missing), [.stopAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)]),
            .startFailed(Fixture.other): .to(.failed(Fixture.other), [.stopAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)]),
            .xrun(total: 1): .nothing,
            .xrunStorm(count: 8, seconds: 5, period: 64): .nothing,
            .suspended: .to(.interrupted(.suspended, micLive: true), [.stopAudio, .allNotesOff, .tell("suspended")]),
            .stalled(milliseconds: 600): .to(.interrupted(.stalled, micLive: true), [.tell("600 ms")]),
            .stalled(milliseconds: 1000): .lostAndExit(Fixture.stallLossText),
            .stallEnded: .nothing,
            Fixture.firstPeriodWait: .to(.interrupted(.stalled, micLive: true), []),
            Fixture.firstPeriodRestart: .restartStreams(micLive: true),
            Fixture.firstPeriodGiveUp: .lostAndExit(Fixture.firstPeriodLossText),
            .deviceLost(Fixture.lostText): .lostAndExit(Fixture.lostText),
            .driverError("Input/output error"): .ended(.error("Input/output error")),
            .deviceAppeared("busker_out"): .to(.starting, [.tell("appeared")]),
            .deviceAppeared("hw:9,0"): .to(.starting, [.tell("stays on busker_in → busker_out")]),
            .formatChanged(f): .to(.starting, [.rebuildGraph(f)]),
            .serverRestarted: .nothing,
            .songEnded: .nothing,
            .signal(.interrupt): .ended(.signal(.interrupt)),
            .signal(.terminate): .ended(.signal(.terminate)),
            .signal(.hangup): .ended(.signal(.hangup)),
            .signal(.terminalStop): .ctrlZ(micLive: true),
            .signal(.continue): .nothing,
        ]
    }

    private func runningTable(micLive m: Bool) -> Table {
        [
            .userStart: .nothing,
            .userStop: .ended(.user),
            .micOn: .to(.running(micLive: true), []),
            .micOff: .to(.running(micLive: false), []),
            .started: .nothing,
            .firstPeriod: .nothing,
            .startFailed(Fixture.busy): .nothing,
            .startFailed(Fixture.missing): .nothing,
            .startFailed(Fixture.other): .nothing,
            .xrun(total: 1): .nothing,
            .xrunStorm(count: 8, seconds: 5, period: 64): .to(.running(micLive: m), [.tell("8 xruns in 5 s; this machine cannot keep up with 64-frame periods, try --period 128")]),
            .suspended: .to(.interrupted(.suspended, micLive: m), [.stopAudio, .allNotesOff, .tell("press space to resume")]),
            .stalled(milliseconds: 600): .to(.interrupted(.stalled, micLive: m), [.tell("no audio period for 600 ms")]),
            .stalled(milliseconds: 1000): .lostAndExit(Fixture.stallLossText),
            .stallEnded: .nothing,
            Fixture.firstPeriodWait: .to(.interrupted(.stalled, micLive: m), []),
            Fixture.firstPeriodRestart: .restartStreams(micLive: m),
            Fixture.firstPeriodGiveUp: .lostAndExit(Fixture.firstPeriodLossText),
            .deviceLost(Fixture.lostText): .lostAndExit(Fixture.lostText),
            .driverError("Input/output error"): .ended(.error("Input/output error")),
            .deviceAppeared("busker_out"): .to(.running(micLive: m), [.tell("a device appeared: busker_out")]),
            .deviceAppeared("hw:9,0"): .to(.running(micLive: m), [.tell("a device appeared: hw:9,0; Busker stays on busker_in → busker_out")]),
            .formatChanged(f): .to(.recovering(micLive: m), [.stopAudio, .allNotesOff, .rebuildGraph(f), .tell("44100 Hz"), .startAudio(route)]),
            .serverRestarted: .to(.running(micLive: m), [.tell("restarted")]),
            .songEnded: .to(.stopped(.songEnded), [.drainAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 0)]),
            .signal(.interrupt): .ended(.signal(.interrupt)),
            .signal(.terminate): .ended(.signal(.terminate)),
            .signal(.hangup): .ended(.signal(.hangup)),
            .signal(.terminalStop): .ctrlZ(micLive: m),
            .signal(.continue): .nothing,
        ]
    }

    private func recoveringTable() -> Table {
        [
            .userStart: .nothing,
            .userStop: .ended(.user),
            .micOn: .nothing,
            .micOff: .to(.recovering(micLive: false), []),
            // The start returned, but audio is back only once a period has gone through.
            .started: .nothing,
            .firstPeriod: .to(.running(micLive: true), [.tell("audio is back on busker_in → busker_out")]),
            // The devices are let go and watched: said once when free (or restarted on with --auto-resume).
            .startFailed(Fixture.busy): .to(.interrupted(.deviceTaken, micLive: true),
                                            [.stopAudio, .allNotesOff, .tell("held by aplay (pid 42)"), .watchForDevice(route)]),
            .startFailed(Fixture.missing): .lostAndExit(Fixture.missing.message),
            .startFailed(Fixture.other): .ended(.error(Fixture.other.message)),
            .xrun(total: 1): .nothing,
            .xrunStorm(count: 8, seconds: 5, period: 64): .nothing,
            .suspended: .to(.interrupted(.suspended, micLive: true), [.stopAudio, .allNotesOff, .tell("suspended again")]),
            .stalled(milliseconds: 600): .to(.interrupted(.stalled, micLive: true), [.tell("600 ms")]),
            .stalled(milliseconds: 1000): .lostAndExit(Fixture.stallLossText),
            .stallEnded: .nothing,
            Fixture.firstPeriodWait: .to(.interrupted(.stalled, micLive: true), []),
            Fixture.firstPeriodRestart: .restartStreams(micLive: true),
            Fixture.firstPeriodGiveUp: .lostAndExit(Fixture.firstPeriodLossText),
            .deviceLost(Fixture.lostText): .lostAndExit(Fixture.lostText),
            .driverError("Input/output error"): .ended(.error("Input/output error")),
            .deviceAppeared("busker_out"): .to(.recovering(micLive: true), [.tell("appeared")]),
            .deviceAppeared("hw:9,0"): .to(.recovering(micLive: true), [.tell("appeared")]),
            .formatChanged(f): .to(.recovering(micLive: true), [.tell("now runs at 44100 Hz, period 64, 2 in / 2 out; rebuilding"), .rebuildGraph(f)]),
            .serverRestarted: .to(.recovering(micLive: true), [.tell("restarted")]),
            .songEnded: .nothing,
            .signal(.interrupt): .ended(.signal(.interrupt)),
            .signal(.terminate): .ended(.signal(.terminate)),
            .signal(.hangup): .ended(.signal(.hangup)),
            .signal(.terminalStop): .ctrlZ(micLive: true),
            .signal(.continue): .nothing,
        ]
    }

    /// The rows every interrupted state shares; each reason then overrides a few.
    private func interruptedTable(_ reason: InterruptionReason) -> Table {
        let same = SessionState.interrupted(reason, micLive: true)
        var t: Table = [
            .userStart: .to(.recovering(micLive: true), [.startAudio(route)]),
            .userStop: .ended(.user),
            .micOn: .nothing,
            .micOff: .to(.interrupted(reason, micLive: false), []),
            .started: .nothing,
            .firstPeriod: .nothing,
            .startFailed(Fixture.busy): .nothing,
            .startFailed(Fixture.missing): .nothing,
            .startFailed(Fixture.other): .nothing,
            .xrun(total: 1): .nothing,
            .xrunStorm(count: 8, seconds: 5, period: 64): .nothing,
            .suspended: .nothing,
            .stalled(milliseconds: 600): .nothing,
            .stalled(milliseconds: 1000): .nothing,
            .stallEnded: .nothing,
            Fixture.firstPeriodWait: .nothing,
            Fixture.firstPeriodRestart: .nothing,
            Fixture.firstPeriodGiveUp: .nothing,
            .deviceLost(Fixture.lostText): .lostAndExit(Fixture.lostText),
            .driverError("Input/output error"): .ended(.error("Input/output error")),
            .deviceAppeared("busker_out"): .to(same, [.tell("a device appeared: busker_out")]),
            .deviceAppeared("hw:9,0"): .to(same, [.tell("a device appeared: hw:9,0")]),
            .formatChanged(f): .to(same, [.rebuildGraph(f)]),
            .serverRestarted: .to(same, [.tell("server is back")]),
            .songEnded: .nothing,
            .signal(.interrupt): .ended(.signal(.interrupt)),
            .signal(.terminate): .ended(.signal(.terminate)),
            .signal(.hangup): .ended(.signal(.hangup)),
            .signal(.terminalStop): .ctrlZ(micLive: true),
            .signal(.continue): .nothing,
        ]
        switch reason {
        case .suspended:
            // A suspended device is resumed (snd_pcm_resume), not restarted.
            t[.userStart] = .to(.recovering(micLive: true), [.resumeAudio(route)])
        case .stalled:
            t[.suspended] = .to(.interrupted(.suspended, micLive: true), [.stopAudio, .allNotesOff, .tell("suspended")])
            t[.stalled(milliseconds: 1000)] = .lostAndExit(Fixture.stallLossText)
            t[.stallEnded] = .to(.running(micLive: true), [.tell("arrive again")])
            // Still no first period: restart the streams while restarts are left, else the device is lost.
            t[Fixture.firstPeriodRestart] = .restartStreams(micLive: true)
            t[Fixture.firstPeriodGiveUp] = .lostAndExit(Fixture.firstPeriodLossText)
        case .processStopped:
            t[.signal(.terminalStop)] = .to(same, [.restoreTerminal, .suspendProcess])
            t[.signal(.continue)] = .to(same, [.reenterTerminal, .tell("audio stays off until you press space")])
        case .deviceTaken:
            t[.deviceAppeared("busker_out")] = .to(same, [.tell("busker_out is free again; press space")])
        case .formatChanged:
            break
        }
        return t
    }

    private func waitingTable() -> Table {
        let same = SessionState.waitingForDevice(lost: "x", micLive: true)
        var t = Table()
        for e in Fixture.events { t[e] = .nothing }
        t[.userStart] = .to(.recovering(micLive: true), [.startAudio(route)])
        t[.userStop] = .ended(.user)
        t[.micOff] = .to(.waitingForDevice(lost: "x", micLive: false), [])
        // Without --reconnect (only reachable with it, but defined without): say so, do nothing.
        t[.deviceAppeared("busker_out")] = .to(same, [.tell("a device appeared: busker_out")])
        t[.deviceAppeared("hw:9,0")] = .to(same, [.tell("a device appeared: hw:9,0")])
        t[.formatChanged(f)] = .to(same, [.rebuildGraph(f)])
        t[.serverRestarted] = .to(same, [.tell("server is back")])
        t[.signal(.interrupt)] = .ended(.signal(.interrupt))
        t[.signal(.terminate)] = .ended(.signal(.terminate))
        t[.signal(.hangup)] = .ended(.signal(.hangup))
        t[.signal(.terminalStop)] = .to(same, [.restoreTerminal, .suspendProcess])
        t[.signal(.continue)] = .to(same, [.reenterTerminal])
        return t
    }

    private func finalTable() -> Table {
        var t = Table()
        for e in Fixture.events { t[e] = .nothing }
        return t
    }

    /// A song's end drains the last notes: a loss during the drain makes it a loss (exit status 1).
    private func songEndedTable() -> Table {
        var t = finalTable()
        t[.deviceLost(Fixture.lostText)] = .to(.stopped(.deviceLost(Fixture.lostText)), [.end(exitStatus: 1)])
        t[.driverError("Input/output error")] = .to(.stopped(.error("Input/output error")), [.end(exitStatus: 1)])
        return t
    }

    /// Every sample state with its default-policy table.
    private func defaultTables() -> [(SessionState, Table)] {
        [
            (.idle, idleTable()),
            (.starting, startingTable()),
            (.running(micLive: true), runningTable(micLive: true)),
            (.running(micLive: false), runningTable(micLive: false)),
            (.recovering(micLive: true), recoveringTable()),
            (.interrupted(.suspended, micLive: true), interruptedTable(.suspended)),
            (.interrupted(.stalled, micLive: true), interruptedTable(.stalled)),
            (.interrupted(.processStopped, micLive: true), interruptedTable(.processStopped)),
            (.interrupted(.deviceTaken, micLive: true), interruptedTable(.deviceTaken)),
            (.interrupted(.formatChanged, micLive: true), interruptedTable(.formatChanged)),
            (.waitingForDevice(lost: "x", micLive: true), waitingTable()),
            (.stopped(.user), finalTable()),
            (.stopped(.songEnded), songEndedTable()),
            (.stopped(.deviceLost(Fixture.lostText)), finalTable()),
            (.failed(Fixture.busy), finalTable()),
        ]
    }

    /// A restart for want of a first period, walked event by event: the
    /// restarted streams' start returning says nothing; a second restart
    /// follows when still no period comes, and "audio is back" is said only
    /// on the first period, once.
    func testAudioIsSaidBackOnlyOnceAPeriodHasComeAfterARestart() {
        let machine = SessionStateMachine(route: route, policy: Fixture.defaultPolicy)
        let walk: [SessionEvent] = [
            .userStart, .started,
            .noFirstPeriod(device: "busker_in", milliseconds: 1000, restarts: 0), .started,
            .noFirstPeriod(device: "busker_in", milliseconds: 600, restarts: 1),
            .noFirstPeriod(device: "busker_in", milliseconds: 1000, restarts: 1), .started,
            .firstPeriod, .firstPeriod,
        ]
        var state = SessionState.idle
        var said: [String] = []
        var states: [SessionState] = []
        for event in walk {
            let (next, effects) = machine.transition(from: state, on: event)
            state = next
            states.append(next)
            said += effects.compactMap { if case let .tell(text) = $0 { text } else { nil } }
        }
        XCTAssertEqual(states, [
            .starting, .running(micLive: true),
            .recovering(micLive: true), .recovering(micLive: true),
            .interrupted(.stalled, micLive: true),
            .recovering(micLive: true), .recovering(micLive: true),
            .running(micLive: true), .running(micLive: true),
        ])
        XCTAssertEqual(said, [
            "no audio period in 1.0 s from busker_in; restarting the streams (1 of 3)",
            "no audio period in 1.0 s from busker_in; restarting the streams (2 of 3)",
            "audio is back on busker_in → busker_out",
        ])
    }

    func testEveryTableNamesEveryEvent() {
        for (state, table) in defaultTables() {
            XCTAssertEqual(Set(table.keys), Set(Fixture.events), "the table of \(state) misses or adds events")
        }
    }

    func testEveryPairUnderTheDefaultPolicy() {
        let machine = SessionStateMachine(route: route, policy: Fixture.defaultPolicy)
        var pairs = 0
        for (state, table) in defaultTables() {
            for event in Fixture.events {
                assertOutcome(machine.transition(from: state, on: event), table[event]!, from: state, on: event)
                pairs += 1
            }
        }
        XCTAssertEqual(pairs, 15 * 30)
    }

    // MARK: --auto-resume --reconnect

    /// What `--auto-resume --reconnect` changes; every other pair must be as under the default policy.
    private func permissiveChanges() -> [SessionState: Table] {
        let lostWait = Expected.lostAndWait(Fixture.lostText, micLive: true)
        let stallWait = Expected.lostAndWait(Fixture.stallLossText, micLive: true)
        let firstPeriodWait = Expected.lostAndWait(Fixture.firstPeriodLossText, micLive: true)
        let resume = Expected.to(.recovering(micLive: true), [.allNotesOff, .tell("--auto-resume"), .resumeAudio(route)])
        return [
            .starting: [
                .suspended: resume,
                .stalled(milliseconds: 1000): stallWait,
                Fixture.firstPeriodGiveUp: firstPeriodWait,
                .deviceLost(Fixture.lostText): lostWait,
            ],
            .running(micLive: true): [
                .suspended: resume,
                .stalled(milliseconds: 1000): stallWait,
                Fixture.firstPeriodGiveUp: firstPeriodWait,
                .deviceLost(Fixture.lostText): lostWait,
            ],
            // A muted mic is not brought back by itself; a lost device is still waited for.
            .running(micLive: false): [
                .stalled(milliseconds: 1000): .lostAndWait(Fixture.stallLossText, micLive: false),
                Fixture.firstPeriodGiveUp: .lostAndWait(Fixture.firstPeriodLossText, micLive: false),
                .deviceLost(Fixture.lostText): .lostAndWait(Fixture.lostText, micLive: false),
            ],
            .recovering(micLive: true): [
                .startFailed(Fixture.missing): .lostAndWait(Fixture.missing.message, micLive: true),
                .stalled(milliseconds: 1000): stallWait,
                Fixture.firstPeriodGiveUp: firstPeriodWait,
                .deviceLost(Fixture.lostText): lostWait,
            ],
            .interrupted(.suspended, micLive: true): [.deviceLost(Fixture.lostText): lostWait],
            .interrupted(.stalled, micLive: true): [
                .suspended: resume,
                .stalled(milliseconds: 1000): stallWait,
                Fixture.firstPeriodGiveUp: firstPeriodWait,
                .deviceLost(Fixture.lostText): lostWait,
            ],
            .interrupted(.processStopped, micLive: true): [
                .deviceLost(Fixture.lostText): lostWait,
                .signal(.continue): .to(.recovering(micLive: true), [.reenterTerminal, .tell("--auto-resume"), .startAudio(route)]),
            ],
            .interrupted(.deviceTaken, micLive: true): [
                .deviceLost(Fixture.lostText): lostWait,
                .deviceAppeared("busker_out"): .to(.recovering(micLive: true), [.tell("free again"), .startAudio(route)]),
            ],
            .interrupted(.formatChanged, micLive: true): [.deviceLost(Fixture.lostText): lostWait],
            .waitingForDevice(lost: "x", micLive: true): [
                .deviceAppeared("busker_out"): .to(.recovering(micLive: true), [.tell("--reconnect"), .startAudio(route)]),
                .serverRestarted: .to(.recovering(micLive: true), [.tell("--reconnect"), .startAudio(route)]),
            ],
        ]
    }

    func testEveryPairUnderAutoResumeAndReconnect() {
        let strict = SessionStateMachine(route: route, policy: Fixture.defaultPolicy)
        let machine = SessionStateMachine(route: route, policy: Fixture.permissive)
        let changes = permissiveChanges()
        var changed = 0
        for (state, table) in defaultTables() {
            for event in Fixture.events {
                if let expected = changes[state]?[event] {
                    assertOutcome(machine.transition(from: state, on: event), expected, from: state, on: event)
                    changed += 1
                } else {
                    // Unchanged: the same outcome as without the flags, which the default table pins.
                    assertOutcome(machine.transition(from: state, on: event), table[event]!, from: state, on: event)
                    let a = machine.transition(from: state, on: event), b = strict.transition(from: state, on: event)
                    XCTAssertEqual(a.0, b.0, "\(state) + \(event)")
                    XCTAssertEqual(a.1, b.1, "\(state) + \(event)")
                }
            }
        }
        XCTAssertEqual(changed, changes.values.reduce(0) { $0 + $1.count }, "every listed change is a sample pair")
    }

    /// `--auto-resume` alone resumes, but a lost device still ends the session;
    /// `--reconnect` alone waits for a lost device, but an interruption still waits for the user.
    func testEachFlagOnItsOwn() {
        let resumeOnly = SessionStateMachine(route: route, policy: SessionPolicy(autoResume: true))
        assertOutcome(resumeOnly.transition(from: .running(micLive: true), on: .suspended),
                      .to(.recovering(micLive: true), [.allNotesOff, .tell("resuming"), .resumeAudio(route)]),
                      from: .running(micLive: true), on: .suspended)
        assertOutcome(resumeOnly.transition(from: .running(micLive: true), on: .deviceLost(Fixture.lostText)),
                      .lostAndExit(Fixture.lostText), from: .running(micLive: true), on: .deviceLost(Fixture.lostText))
        let reconnectOnly = SessionStateMachine(route: route, policy: SessionPolicy(reconnect: true))
        assertOutcome(reconnectOnly.transition(from: .running(micLive: true), on: .suspended),
                      .to(.interrupted(.suspended, micLive: true), [.stopAudio, .allNotesOff, .tell("press space")]),
                      from: .running(micLive: true), on: .suspended)
        assertOutcome(reconnectOnly.transition(from: .running(micLive: true), on: .deviceLost(Fixture.lostText)),
                      .lostAndWait(Fixture.lostText, micLive: true), from: .running(micLive: true), on: .deviceLost(Fixture.lostText))
        // Ctrl-Z then fg without --auto-resume: terminal back, audio stays off.
        assertOutcome(reconnectOnly.transition(from: .interrupted(.processStopped, micLive: true), on: .signal(.continue)),
                      .to(.interrupted(.processStopped, micLive: true), [.reenterTerminal, .tell("--auto-resume")]),
                      from: .interrupted(.processStopped, micLive: true), on: .signal(.continue))
    }

    // MARK: Headless (--no-tui, busker record)

    /// What `headless` changes: every interruption that would wait for a key
    /// ends the session instead (exit status 1, the take finalized); every
    /// other pair is as under the default policy.
    private func headlessChanges() -> [SessionState: Table] {
        let suspendedEnd = Expected.ended(.interrupted(.suspended))
        return [
            .starting: [.suspended: suspendedEnd],
            .running(micLive: true): [.suspended: suspendedEnd],
            .running(micLive: false): [.suspended: suspendedEnd],
            .recovering(micLive: true): [
                .suspended: suspendedEnd,
                // The holder is still named before the end.
                .startFailed(Fixture.busy): .to(.stopped(.interrupted(.deviceTaken)),
                                                [.tell("held by aplay (pid 42)"), .stopAudio, .allNotesOff, .finalizeRecording, .end(exitStatus: 1)]),
            ],
            .interrupted(.stalled, micLive: true): [.suspended: suspendedEnd],
            .interrupted(.processStopped, micLive: true): [.signal(.continue): .ended(.interrupted(.processStopped))],
        ]
    }

    func testEveryPairHeadless() {
        let machine = SessionStateMachine(route: route, policy: SessionPolicy(headless: true))
        let changes = headlessChanges()
        var changed = 0
        for (state, table) in defaultTables() {
            for event in Fixture.events {
                let expected = changes[state]?[event] ?? table[event]!
                if changes[state]?[event] != nil { changed += 1 }
                assertOutcome(machine.transition(from: state, on: event), expected, from: state, on: event)
            }
        }
        XCTAssertEqual(changed, changes.values.reduce(0) { $0 + $1.count }, "every listed change is a sample pair")
    }

    /// Headless with `--auto-resume --reconnect`: as with the flags and a
    /// screen, except where even then the user would have to press space: a
    /// second suspend during a resume (never retried by itself), and a muted
    /// mic (never brought back by itself). Those end the session instead.
    func testEveryPairHeadlessWithAutoResumeAndReconnect() {
        let withScreen = SessionStateMachine(route: route, policy: Fixture.permissive)
        var policy = Fixture.permissive
        policy.headless = true
        let machine = SessionStateMachine(route: route, policy: policy)
        let exceptions: [SessionState: Table] = [
            .recovering(micLive: true): [.suspended: .ended(.interrupted(.suspended))],
            .running(micLive: false): [.suspended: .ended(.interrupted(.suspended))],
        ]
        for (state, _) in defaultTables() {
            for event in Fixture.events {
                if let expected = exceptions[state]?[event] {
                    assertOutcome(machine.transition(from: state, on: event), expected, from: state, on: event)
                    continue
                }
                let a = machine.transition(from: state, on: event), b = withScreen.transition(from: state, on: event)
                XCTAssertEqual(a.0, b.0, "\(state) + \(event)")
                XCTAssertEqual(a.1, b.1, "\(state) + \(event)")
            }
        }
    }

    func testAHeadlessStopSaysWhyAndExitsWith1() {
        let reason = SessionStopReason.interrupted(.processStopped)
        XCTAssertEqual(reason.exitStatus, 1)
        XCTAssertEqual(reason.description, "stopped: Busker was stopped (Ctrl-Z), and with no screen there is no key to start audio again")
    }
}
