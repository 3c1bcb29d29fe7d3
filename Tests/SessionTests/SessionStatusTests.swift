import Session
import XCTest

final class SessionStatusTests: XCTestCase {
    func testNothingHappensByItselfUnlessAsked() {
        let policy = SessionPolicy()
        XCTAssertFalse(policy.autoResume)
        XCTAssertFalse(policy.reconnect)
    }

    /// An xrun storm's advice fits the driver: --period on ALSA, the server's buffer on JACK.
    func testAnXrunStormSuggestsWhatSetsThePeriod() {
        func advice(_ route: DeviceRoute) -> String {
            let machine = SessionStateMachine(route: route, policy: SessionPolicy())
            let (_, effects) = machine.transition(from: .running(micLive: true), on: .xrunStorm(count: 8, seconds: 5, period: 64))
            for case let .tell(text) in effects { return text }
            return ""
        }
        XCTAssertTrue(advice(DeviceRoute(input: "hw:1", output: "hw:1")).hasSuffix("try --period 128"))
        XCTAssertTrue(advice(DeviceRoute(input: "jack:default", output: "jack:default")).hasSuffix("try a larger JACK buffer (jack_bufsize 128)"))
    }

    func testExitStatusSaysWhoStoppedIt() {
        XCTAssertEqual(SessionState.stopped(.user).exitStatus, 0)
        XCTAssertEqual(SessionState.stopped(.signal(.interrupt)).exitStatus, 0)
        XCTAssertEqual(SessionState.stopped(.songEnded).exitStatus, 0)
        XCTAssertEqual(SessionState.stopped(.deviceLost("gone")).exitStatus, 1)
        XCTAssertEqual(SessionState.stopped(.error("EIO")).exitStatus, 1)
        XCTAssertEqual(SessionState.failed(Fixture.busy).exitStatus, 1)
        XCTAssertNil(SessionState.running(micLive: true).exitStatus)
    }

    func testStatusTextNamesStateAndReason() {
        XCTAssertEqual(SessionState.running(micLive: true).statusText, "running")
        XCTAssertEqual(SessionState.interrupted(.suspended, micLive: true).statusText,
                       "INTERRUPTED: the device was suspended by the system")
        XCTAssertEqual(SessionState.stopped(.deviceLost("playback device 'busker_out' lost")).statusText,
                       "stopped: device lost: playback device 'busker_out' lost")
        XCTAssertTrue(SessionState.waitingForDevice(lost: "x", micLive: true).statusText.hasPrefix("WAITING"))
        XCTAssertNotNil(SessionState.interrupted(.processStopped, micLive: true).hint)
        XCTAssertNil(SessionState.running(micLive: true).hint)
    }

    func testRouteDescription() {
        XCTAssertEqual(DeviceRoute(input: "a", output: "b").description, "a → b")
        XCTAssertEqual(DeviceRoute(input: "d", output: "d").description, "d")
        XCTAssertEqual(DeviceRoute(input: nil, output: "out").description, "out")
        XCTAssertTrue(DeviceRoute(input: "a", output: "b").involves("a"))
        XCTAssertFalse(DeviceRoute(input: nil, output: "b").involves("a"))
    }

    /// 8 xruns within 5 s is a storm, reported once per window; spread-out xruns are not.
    func testXrunStormDetector() {
        var detector = XrunStormDetector(policy: SessionPolicy())
        // One xrun a second for 20 s: never 8 within 5 s.
        XCTAssertFalse((0..<20).map { detector.record(at: Double($0)) }.contains(true))
        var storm = XrunStormDetector(policy: SessionPolicy())
        let reports = (0..<40).map { storm.record(at: 100 + Double($0) * 0.25) }  // 4 per second for 10 s
        XCTAssertEqual(reports.firstIndex(of: true), 7, "the 8th xrun within 5 s is the storm")
        XCTAssertEqual(reports.filter { $0 }.count, 2, "then once per 5 s window: \(reports)")
    }
}
