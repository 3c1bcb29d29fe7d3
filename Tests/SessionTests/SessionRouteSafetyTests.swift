import Session
import XCTest

/// Searches every state reachable from `idle` through every sequence of
/// events (a breadth-first search over the finite state graph), under every
/// combination of the two policy flags, with other devices appearing,
/// servers restarting and signals arriving, and checks on every reachable
/// transition:
/// - audio only ever starts or resumes on the route the user chose;
/// - it starts by itself only when the user asked for it, with the flag
///   that allows it, and never because some other device appeared;
/// - a muted mic never comes back on by itself;
/// - every stop and loss ends every note, finalizes the recording, and ends
///   with the right exit status (1 for a lost device).
final class SessionRouteSafetyTests: XCTestCase {
    private let chosen = Fixture.route
    /// Devices that come and go: the chosen ends, and others a fallback would grab.
    private let appearing = ["busker_out", "busker_in", "default", "hw:0,0", "hw:9,0", "plughw:USB", "pulse"]

    private var events: [SessionEvent] {
        Fixture.events + appearing.map { .deviceAppeared($0) } + [.stalled(milliseconds: 999), .stalled(milliseconds: 5000)]
    }

    private struct Edge {
        let from: SessionState, event: SessionEvent, to: SessionState, effects: [SessionEffect]
    }

    /// Every transition reachable from `idle`.
    private func reachableEdges(_ machine: SessionStateMachine) -> (states: Set<SessionState>, edges: [Edge]) {
        var seen: Set<SessionState> = [.idle]
        var queue: [SessionState] = [.idle]
        var edges: [Edge] = []
        while let state = queue.popLast() {
            for event in events {
                let (next, effects) = machine.transition(from: state, on: event)
                edges.append(Edge(from: state, event: event, to: next, effects: effects))
                if seen.insert(next).inserted { queue.append(next) }
            }
        }
        return (seen, edges)
    }

    private let policies = [SessionPolicy(), SessionPolicy(autoResume: true), SessionPolicy(reconnect: true),
                            SessionPolicy(autoResume: true, reconnect: true),
                            SessionPolicy(headless: true), SessionPolicy(autoResume: true, headless: true),
                            SessionPolicy(autoResume: true, reconnect: true, headless: true)]

    /// The machine only ever names its own route (it has no other): this pins
    /// that no effect is built from an event's device name. That the runner
    /// refuses any other route, from an effect or from a reopened driver, is
    /// tested on the runner itself (`ALSAIOTests.SessionRunnerTests`).
    func testAudioOnlyEverStartsOnTheChosenRoute() {
        for policy in policies {
            let machine = SessionStateMachine(route: chosen, policy: policy)
            let (states, edges) = reachableEdges(machine)
            XCTAssertGreaterThan(states.count, 10, "the search should reach most states (\(policy))")
            for edge in edges {
                for effect in edge.effects {
                    if let route = effect.route {
                        XCTAssertEqual(route, chosen, "\(edge.from) + \(edge.event) → \(effect) (\(policy))")
                    }
                }
            }
        }
    }

    func testAudioStartsByItselfOnlyWhenAllowedAndNeverForAnotherDevice() {
        for policy in policies {
            let machine = SessionStateMachine(route: chosen, policy: policy)
            for edge in reachableEdges(machine).edges where edge.effects.contains(where: \.startsAudio) {
                let context = "\(edge.from) + \(edge.event) (\(policy))"
                switch edge.event {
                case .userStart:
                    break  // the user asked
                case let .deviceAppeared(name):
                    XCTAssertTrue(chosen.involves(name), "another device appearing started audio: \(context)")
                    if case .waitingForDevice = edge.from {
                        XCTAssertTrue(policy.reconnect, context)
                    } else {
                        XCTAssertTrue(policy.autoResume, context)
                        XCTAssertTrue(edge.from.micLive, "a muted mic came back by itself: \(context)")
                    }
                case .serverRestarted:
                    XCTAssertTrue(policy.reconnect, context)
                case .noFirstPeriod:
                    // Audio the session started gave no period: the same streams again, the mic as it was.
                    XCTAssertEqual(edge.effects.filter(\.startsAudio), [.restartStreams(chosen)], context)
                    XCTAssertEqual(edge.to, .recovering(micLive: edge.from.micLive || edge.from == .starting), context)
                case .formatChanged where Self.isRunning(edge.from):
                    // Audio was on: it goes on at the new format, the mic as it was.
                    XCTAssertEqual(edge.to, .recovering(micLive: edge.from.micLive), context)
                case .suspended, .signal(.continue), .formatChanged:
                    XCTAssertTrue(policy.autoResume, context)
                    XCTAssertTrue(edge.from.micLive || edge.from == .starting, "a muted mic came back by itself: \(context)")
                default:
                    XCTFail("audio started on \(context)")
                }
            }
        }
    }

    /// Whether audio runs in `state` (a format change there goes on, as it was).
    private static func isRunning(_ state: SessionState) -> Bool {
        if case .running = state { return true }
        return false
    }

    /// Without either flag, nothing but the user ever starts audio (audio
    /// that runs goes on after a format change: that starts nothing new).
    func testWithoutFlagsOnlyTheUserStartsAudio() {
        let machine = SessionStateMachine(route: chosen, policy: SessionPolicy())
        for edge in reachableEdges(machine).edges where edge.effects.contains(where: \.startsAudio) {
            if case .formatChanged = edge.event, Self.isRunning(edge.from) { continue }
            if edge.effects.contains(.restartStreams(chosen)) { continue }  // started audio that gave no period, started again
            XCTAssertEqual(edge.event, .userStart, "\(edge.from) + \(edge.event)")
        }
    }

    func testEveryStopAndLossEndsNotesAndFinalizesTheRecording() {
        for policy in policies {
            let machine = SessionStateMachine(route: chosen, policy: policy)
            for edge in reachableEdges(machine).edges where !edge.from.isFinal && edge.from != .idle {
                let context = "\(edge.from) + \(edge.event) → \(edge.to) (\(policy))"
                let stops: Bool = switch edge.to {
                case .stopped, .failed: true
                case .waitingForDevice: !(edge.from.isWaiting)
                default: false
                }
                if stops {
                    XCTAssertTrue(edge.effects.contains(.stopAudio) || edge.effects.contains(.releaseDevices)
                                  || edge.effects.contains(.drainAudio), context)
                    XCTAssertTrue(edge.effects.contains(.allNotesOff), context)
                    XCTAssertTrue(edge.effects.contains(.finalizeRecording), context)
                }
                if case .interrupted = edge.to, edge.from.isInterrupted == false {
                    XCTAssertTrue(edge.effects.contains(.allNotesOff) || edge.event == .stalled(milliseconds: 600)
                                  || edge.event == .stalled(milliseconds: 999) || edge.event == Fixture.firstPeriodWait,
                                  "interrupted without all-notes-off: \(context)")
                }
                if let status = edge.to.exitStatus {
                    XCTAssertEqual(edge.effects.last, .end(exitStatus: status), context)
                    if case .stopped(.deviceLost) = edge.to { XCTAssertEqual(status, 1, context) }
                }
            }
        }
    }

    /// A loss never leads anywhere but the end (exit 1) or, with --reconnect, waiting for the same route.
    func testALossNeverFallsBackToAnything() {
        for policy in policies {
            let machine = SessionStateMachine(route: chosen, policy: policy)
            for edge in reachableEdges(machine).edges where !edge.from.isFinal {
                guard case .deviceLost = edge.event else { continue }
                switch edge.to {
                case .stopped(.deviceLost):
                    XCTAssertFalse(policy.reconnect)
                case .waitingForDevice:
                    XCTAssertTrue(policy.reconnect)
                    if !edge.from.isWaiting { XCTAssertTrue(edge.effects.contains(.watchForDevice(chosen)), "\(edge.from)") }
                default:
                    XCTAssertTrue(edge.from == .idle || edge.from.isWaiting, "\(edge.from) + \(edge.event) → \(edge.to)")
                }
                XCTAssertFalse(edge.effects.contains(where: \.startsAudio))
            }
        }
    }

    /// Headless (no screen, no keys): after the one start at launch only
    /// devices, the driver and signals send events. No state that only a key
    /// could leave is ever reached, and nothing tells the user to press space.
    func testHeadlessNeverWaitsForAKey() {
        let keys: Set<SessionEvent> = [.userStart, .userStop, .micOn, .micOff]
        let headlessEvents = events.filter { !keys.contains($0) }
        for policy in policies where policy.headless {
            let machine = SessionStateMachine(route: chosen, policy: policy)
            var seen: Set<SessionState> = [.starting]
            var queue: [SessionState] = [.starting]
            while let state = queue.popLast() {
                for event in headlessEvents {
                    let (next, effects) = machine.transition(from: state, on: event)
                    let context = "\(state) + \(event) → \(next) (\(policy))"
                    for case let .tell(text) in effects {
                        XCTAssertFalse(text.contains("press space"), "\(context): '\(text)'")
                    }
                    switch next {
                    case .interrupted(.stalled, _), .interrupted(.processStopped, _):
                        break  // periods come back or the stall becomes a loss; SIGCONT comes
                    case .interrupted(.deviceTaken, _):
                        // Waited for only when it restarts by itself once free.
                        XCTAssertTrue(policy.autoResume && next.micLive, context)
                    case .interrupted:
                        XCTFail("headless, only a key could leave: \(context)")
                    default:
                        break
                    }
                    if seen.insert(next).inserted { queue.append(next) }
                }
            }
            XCTAssertTrue(seen.contains(.stopped(.interrupted(.suspended))), "\(policy): \(seen)")
            XCTAssertEqual(seen.contains(.stopped(.interrupted(.processStopped))), !policy.autoResume, "\(policy): \(seen)")
        }
    }
}

private extension SessionState {
    var isWaiting: Bool {
        if case .waitingForDevice = self { return true }
        return false
    }

    var isInterrupted: Bool {
        if case .interrupted = self { return true }
        return false
    }
}
