import ALSA
import CALSA
import Engine
import Foundation
import Session
import XCTest

/// The session runner on the real driver (playback only, libasound's `file`
/// plugin over `null` underneath), with faults injected through `PCMCalls`:
/// what the runner does with what the driver and the device watcher report,
/// and what it refuses.
final class SessionRunnerTests: XCTestCase {
    private let pcm = PlaybackOnlyTestSupport.pcmName

    private func options(calls: PCMCalls = .live, playback: String? = nil) -> DuplexDriver.Options {
        var o = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"), channels: 1)
        o.calls = calls
        if let playback { o.playbackPCM = playback }
        return o
    }

    private func runner(_ driver: DuplexDriver, policy: SessionPolicy,
                        reopen: @escaping () throws -> DuplexDriver) -> SessionRunner {
        SessionRunner(command: "test", driver: driver, engine: RenderEngine(), policy: policy,
                      watcher: DeviceWatcher(configuration: driver.options.configuration, calls: driver.options.calls),
                      takeSignals: { [] }, suspendProcess: {}, reopen: reopen)
    }

    private func busy() -> ALSAError {
        .deviceBusy(device: pcm, direction: .playback, holders: [DeviceHolder(pid: 4244, command: "aplay", node: "/dev/snd/pcmC1D0p")])
    }

    // MARK: The final drain

    /// A song's end drains what is queued; a drain that fails because the
    /// device went (`-ENODEV`) is a loss: exit status 1, the take finalized once.
    func testADeviceLostDuringTheFinalDrainEndsWithExitStatus1() throws {
        var calls = PCMCalls.live
        calls.drain = { _ in -ENODEV }
        let runner = runner(try DuplexDriver(options: options(calls: calls)), policy: SessionPolicy()) {
            XCTFail("no reopen expected")
            throw self.busy()
        }
        defer { runner.close() }
        var finalized = 0
        runner.finalizeRecording = { finalized += 1 }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        runner.send(.songEnded)
        guard case let .stopped(.deviceLost(what)) = runner.state else {
            return XCTFail("a drain that failed with -ENODEV ended as \(runner.state)")
        }
        XCTAssertTrue(what.contains("output '\(pcm)' is gone"), what)
        XCTAssertEqual(runner.state.exitStatus, 1)
        XCTAssertEqual(finalized, 1)
        XCTAssertFalse(runner.driver.isRunning)
    }

    /// The same song's end with a drain that works is a clean end (exit status 0).
    func testADrainThatWorksEndsTheSongWithExitStatus0() throws {
        let runner = runner(try DuplexDriver(options: options()), policy: SessionPolicy()) { throw self.busy() }
        defer { runner.close() }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        runner.send(.songEnded)
        XCTAssertEqual(runner.state, .stopped(.songEnded))
        XCTAssertEqual(runner.state.exitStatus, 0)
    }

    // MARK: The route

    /// After a loss (`--reconnect`), a reopen that hands back a driver on
    /// another PCM is refused: that driver is closed at once, never started,
    /// and the session ends (exit status 1) rather than play anywhere else.
    func testAReopenOnAnotherPCMIsRefused() throws {
        let foreignPCM = "busker_test_po_plug"
        var foreign: DuplexDriver?
        var reopens = 0
        let runner = runner(try DuplexDriver(options: options()), policy: SessionPolicy(reconnect: true)) {
            reopens += 1
            let d = try DuplexDriver(options: self.options(playback: foreignPCM))
            foreign = d
            return d
        }
        defer { runner.close() }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        runner.send(.deviceLost("test: output gone"))
        XCTAssertEqual(runner.state, .waitingForDevice(lost: "test: output gone", micLive: true))
        XCTAssertTrue(runner.driver.isClosed, "the lost devices are let go while waiting")

        runner.send(.userStart)
        XCTAssertEqual(reopens, 1)
        let other = try XCTUnwrap(foreign)
        XCTAssertTrue(other.isClosed, "the driver on \(foreignPCM) was not closed")
        XCTAssertFalse(other.isRunning)
        XCTAssertFalse(runner.driver === other, "the runner kept a driver on another PCM")
        XCTAssertEqual(runner.driver.route.output, pcm)
        guard case let .stopped(.error(what)) = runner.state else { return XCTFail("\(runner.state)") }
        XCTAssertTrue(what.contains("refused to start on \(foreignPCM)"), what)
        XCTAssertEqual(runner.state.exitStatus, 1)
    }

    /// A start or resume effect for any route but the chosen one (which the
    /// state machine never makes; a bug elsewhere might) is refused: nothing
    /// is opened, nothing starts.
    func testAStartEffectForAnotherRouteIsRefused() throws {
        var reopens = 0
        let runner = runner(try DuplexDriver(options: options()), policy: SessionPolicy(reconnect: true)) {
            reopens += 1
            return try DuplexDriver(options: self.options())
        }
        defer { runner.close() }
        let elsewhere = DeviceRoute(input: nil, output: "hw:9,0")
        // Before any start: the open driver stays idle.
        runner.perform(.startAudio(elsewhere))
        XCTAssertFalse(runner.driver.isRunning, "audio started on a start effect for \(elsewhere)")
        XCTAssertTrue(runner.notices.last?.contains("refused to start on hw:9,0") ?? false, "\(runner.notices)")
        // While waiting for the lost device (driver closed): nothing reopens.
        runner.send(.userStart)
        runner.send(.deviceLost("test: output gone"))
        XCTAssertTrue(runner.driver.isClosed)
        runner.perform(.startAudio(elsewhere))
        runner.perform(.resumeAudio(elsewhere))
        XCTAssertEqual(reopens, 0, "a start effect for \(elsewhere) reopened the devices")
        XCTAssertTrue(runner.driver.isClosed)
        XCTAssertEqual(runner.notices.filter { $0.contains("refused to start on hw:9,0") }.count, 3, "\(runner.notices)")
    }

    // MARK: Devices coming back

    /// The device comes back but is taken by another program at the reopen:
    /// INTERRUPTED (device taken). The route stays watched, and its being
    /// free is said once, not at every poll.
    func testAFreeRouteIsSaidOnceWhileTheDeviceIsTaken() throws {
        var reopens = 0
        let runner = runner(try DuplexDriver(options: options()), policy: SessionPolicy(reconnect: true)) {
            reopens += 1
            throw self.busy()
        }
        defer { runner.close() }
        runner.send(.userStart)
        runner.send(.deviceLost("test: output gone"))
        // The route opens again (it is a file PCM): the watcher says so, the runner reopens, and the reopen is busy.
        runner.pollDevices()
        XCTAssertEqual(reopens, 1)
        XCTAssertEqual(runner.state, .interrupted(.deviceTaken, micLive: true))
        for _ in 0..<5 { runner.pollDevices() }
        let said = runner.notices.filter { $0.contains("free again") || $0.contains("a device appeared") }
        XCTAssertEqual(said.count, 1, "five polls of a route that stays free: \(runner.notices)")
        XCTAssertEqual(runner.state, .interrupted(.deviceTaken, micLive: true))
        XCTAssertEqual(reopens, 1, "nothing retries by itself without --auto-resume")
    }

    /// With `--auto-resume`, the device taken at the reopen is restarted on
    /// by itself once it is free again: the route is watched after the busy reopen.
    func testWithAutoResumeATakenDeviceIsRestartedWhenFree() throws {
        var reopens = 0
        let runner = runner(try DuplexDriver(options: options()), policy: SessionPolicy(autoResume: true, reconnect: true)) {
            reopens += 1
            if reopens == 1 { throw self.busy() }
            return try DuplexDriver(options: self.options())
        }
        defer { runner.close() }
        runner.send(.userStart)
        runner.send(.deviceLost("test: output gone"))
        runner.pollDevices()
        XCTAssertEqual(runner.state, .interrupted(.deviceTaken, micLive: true))
        runner.pollDevices()
        XCTAssertEqual(reopens, 2)
        XCTAssertEqual(runner.state, .running(micLive: true))
        XCTAssertTrue(runner.driver.isRunning)
    }
}

/// The device watcher reports a watched route when it becomes available, not at every poll.
final class DeviceWatcherTests: XCTestCase {
    private final class Switch: @unchecked Sendable {
        var busy = false
    }

    func testARouteIsReportedOnItsWayToAvailableOnly() {
        let taken = Switch()
        var calls = PCMCalls.live
        calls.open = { handle, name, stream, mode, configuration in
            taken.busy ? -EBUSY : PCMCalls.live.open(handle, name, stream, mode, configuration)
        }
        let configuration = PlaybackOnlyTestSupport.configuration(output: URL(fileURLWithPath: "/dev/null"), fileChannels: 1)
        let watcher = DeviceWatcher(configuration: configuration, calls: calls, listCards: { [:] })
        XCTAssertEqual(watcher.poll(), [], "nothing watched")
        watcher.watchedRoute = DeviceRoute(input: nil, output: PlaybackOnlyTestSupport.pcmName)
        XCTAssertEqual((0..<3).map { _ in watcher.poll() }, [[.routeAvailable], [], []])
        taken.busy = true
        XCTAssertEqual(watcher.poll(), [])
        taken.busy = false
        XCTAssertEqual((0..<2).map { _ in watcher.poll() }, [[.routeAvailable], []])
        // Watching anew (after another loss) reports it again.
        watcher.watchedRoute = DeviceRoute(input: nil, output: PlaybackOnlyTestSupport.pcmName)
        XCTAssertEqual(watcher.poll(), [.routeAvailable])
    }
}
