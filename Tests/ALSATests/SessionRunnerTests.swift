import ALSA
import CALSA
import Engine
import Foundation
import Session
import Synchronization
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
        poll(runner) { runner.state == .running(micLive: true) }
        XCTAssertEqual(runner.state, .running(micLive: true))
        XCTAssertTrue(runner.driver.isRunning)
    }

    // MARK: No first period

    /// Calls whose waits time out (as poll() does when nothing comes: a JACK
    /// PCM the server has not scheduled yet) for the first `silentRuns` starts
    /// (each start prepares the stream once), and work after.
    private func callsWithoutFirstPeriods(silentRuns: Int, prepares: CallCounter) -> PCMCalls {
        var calls = PCMCalls.live
        calls.prepare = { pcm in
            _ = prepares.next()
            return snd_pcm_prepare(pcm)
        }
        calls.wait = { pcm, timeout in
            guard prepares.count.load(ordering: .relaxed) <= silentRuns else { return snd_pcm_wait(pcm, timeout) }
            usleep(useconds_t(timeout) * 1000)
            return 0
        }
        return calls
    }

    /// Stalls reported after 50 ms, and restarts after 200 ms without a first period (headless).
    private func quickFirstPeriod(_ options: DuplexDriver.Options) -> (DuplexDriver.Options, SessionPolicy) {
        var o = options
        o.stallMilliseconds = 50
        var policy = SessionPolicy(headless: true)
        policy.firstPeriodMilliseconds = 200
        return (o, policy)
    }

    /// Polls the runner until `done` or five seconds.
    private func poll(_ runner: SessionRunner, until done: () -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        while !done() && Date() < deadline {
            runner.poll()
            usleep(5000)
        }
    }

    /// A stream whose first start gives no period is let go and the same
    /// route opened and started again, said in one line, and then runs: not
    /// a lost device.
    func testAStreamWithoutAFirstPeriodIsRestartedAndRuns() throws {
        let prepares = CallCounter()
        let (o, policy) = quickFirstPeriod(options(calls: callsWithoutFirstPeriods(silentRuns: 1, prepares: prepares)))
        let first = try DuplexDriver(options: o)
        var reopened: [DuplexDriver] = []
        let runner = runner(first, policy: policy) {
            let driver = try DuplexDriver(options: o)
            reopened.append(driver)
            return driver
        }
        defer { runner.close() }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        poll(runner) { (reopened.first?.framesProcessed ?? 0) >= 64 * 20 && runner.state == .running(micLive: true) }
        XCTAssertEqual(reopened.count, 1, "the route opened once more: \(runner.notices)")
        XCTAssertTrue(first.isClosed, "the stuck stream was let go")
        XCTAssertEqual(prepares.count.load(ordering: .relaxed), 2, "one restart of the stream: \(runner.notices)")
        let driver = try XCTUnwrap(reopened.first)
        XCTAssertTrue(runner.driver === driver)
        XCTAssertGreaterThanOrEqual(driver.framesProcessed, 64 * 20, "periods flow after the restart")
        XCTAssertEqual(runner.state, .running(micLive: true))
        XCTAssertTrue(driver.isRunning)
        let restarts = runner.notices.filter { $0.contains("restarting the streams") }
        XCTAssertEqual(restarts.count, 1, "\(runner.notices)")
        let said = restarts.first ?? ""
        XCTAssertTrue(said.hasPrefix("no audio period in 0.") && said.hasSuffix(" s from \(pcm); restarting the streams (1 of 3)"), said)
        XCTAssertFalse(runner.notices.contains { $0.contains("lost") }, "\(runner.notices)")
        // Said once, after the restart's line: the restarted stream's periods came.
        XCTAssertEqual(runner.notices.filter { $0.hasPrefix("audio is back") }, ["audio is back on \(pcm)"], "\(runner.notices)")
        let back = runner.notices.firstIndex { $0.hasPrefix("audio is back") } ?? -1
        let restarted = runner.notices.firstIndex { $0.contains("restarting the streams") } ?? Int.max
        XCTAssertGreaterThan(back, restarted, "\(runner.notices)")
    }

    /// Duplex, each run's capture read and its period rendered, but playback
    /// takes nothing after its priming (its writes say -EAGAIN and its waits
    /// time out: a JACK PCM the server does not schedule) in the first start
    /// and the first restart. The engine renders in those runs, yet audio is
    /// said to be back only after the second restart, whose periods are
    /// written: once, after both restart lines.
    func testAudioIsBackOnlyOnceAPeriodIsWrittenNotMerelyRendered() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("busker-written-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.raw")
        try ALSATestSupport.writeRaw(ALSATestSupport.testSignal(frames: 48000 * 20), to: raw)
        func driver(playbackStuck: Bool) throws -> DuplexDriver {
            var o = ALSATestSupport.fileLoopbackOptions(input: raw, output: URL(fileURLWithPath: "/dev/null"), playbackChannels: 1)
            o.stallMilliseconds = 50
            if playbackStuck { o.calls = Self.callsWithStuckPlayback() }
            return try DuplexDriver(options: o)
        }
        var policy = SessionPolicy(headless: true)
        policy.firstPeriodMilliseconds = 200
        let engine = RenderEngine()
        var reopens = 0
        var renderedAtRestarts: [Int] = []
        let first = try driver(playbackStuck: true)
        let runner = SessionRunner(command: "test", driver: first, engine: engine, policy: policy, watcher: nil,
                                   takeSignals: { [] }, suspendProcess: {}, reopen: {
            reopens += 1
            renderedAtRestarts.append(engine.renderedBlockCount)
            return try driver(playbackStuck: reopens < 2)
        })
        defer { runner.close() }
        runner.send(.userStart)
        poll(runner) { runner.notices.contains { $0.hasPrefix("audio is back") } || runner.isOver }
        XCTAssertEqual(reopens, 2, "\(runner.notices)")
        // The first restart's run rendered while its playback was stuck: the engine's block count
        // moved, and a runner that watched it would have called audio back there.
        XCTAssertEqual(renderedAtRestarts.count, 2)
        XCTAssertGreaterThan(renderedAtRestarts.last ?? 0, renderedAtRestarts.first ?? .max, "\(renderedAtRestarts)")
        let said = runner.notices.filter { $0.contains("restarting the streams") || $0.hasPrefix("audio is back") }
        XCTAssertEqual(said.count, 3, "\(runner.notices)")
        XCTAssertTrue(said.first?.hasSuffix("restarting the streams (1 of 3)") ?? false, "\(said)")
        XCTAssertTrue(said.dropFirst().first?.hasSuffix("restarting the streams (2 of 3)") ?? false, "\(said)")
        XCTAssertEqual(said.last, "audio is back on \(runner.machine.route)", "\(said)")
        XCTAssertEqual(runner.state, .running(micLive: true))
    }

    /// Calls whose playback stream takes its priming and then nothing: after
    /// `snd_pcm_start`, writes to it say -EAGAIN and waits on it time out.
    private static func callsWithStuckPlayback() -> PCMCalls {
        let stuck = StuckPlayback()
        var calls = PCMCalls.live
        calls.open = { handle, name, stream, mode, configuration in
            let rc = PCMCalls.live.open(handle, name, stream, mode, configuration)
            if rc == 0, stream == SND_PCM_STREAM_PLAYBACK, let pcm = handle.pointee {
                stuck.playback.store(Int(bitPattern: UnsafeRawPointer(pcm)), ordering: .relaxed)
            }
            return rc
        }
        calls.start = { pcm in
            stuck.started.store(true, ordering: .relaxed)
            return snd_pcm_start(pcm)
        }
        calls.writeInterleaved = { pcm, buffer, frames in
            stuck.holds(pcm) ? -snd_pcm_sframes_t(EAGAIN) : snd_pcm_writei(pcm, buffer, frames)
        }
        calls.writeNoninterleaved = { pcm, buffers, frames in
            stuck.holds(pcm) ? -snd_pcm_sframes_t(EAGAIN) : snd_pcm_writen(pcm, buffers, frames)
        }
        calls.wait = { pcm, timeout in
            guard stuck.holds(pcm) else { return snd_pcm_wait(pcm, timeout) }
            usleep(useconds_t(max(0, timeout)) * 1000)
            return 0
        }
        return calls
    }

    /// A stream that gives no first period however often it is restarted:
    /// three restarts, each said, then the device is lost (exit status 1),
    /// the take finalized once and the devices let go.
    func testAStreamThatNeverGivesAPeriodIsLostAfterThreeRestarts() throws {
        let prepares = CallCounter()
        let (o, policy) = quickFirstPeriod(options(calls: callsWithoutFirstPeriods(silentRuns: .max, prepares: prepares)))
        var reopens = 0
        let runner = runner(try DuplexDriver(options: o), policy: policy) {
            reopens += 1
            return try DuplexDriver(options: o)
        }
        defer { runner.close() }
        var finalized = 0
        runner.finalizeRecording = { finalized += 1 }
        runner.send(.userStart)
        poll(runner) { runner.isOver }
        guard case let .stopped(.deviceLost(what)) = runner.state else { return XCTFail("\(runner.state): \(runner.notices)") }
        XCTAssertTrue(what.hasPrefix("no audio period from \(pcm) in ") && what.contains(" ms after 3 restarts of the streams"), what)
        XCTAssertEqual(runner.state.exitStatus, 1)
        XCTAssertEqual(prepares.count.load(ordering: .relaxed), 4, "the first start and three restarts")
        XCTAssertEqual(reopens, 3)
        let restarts = runner.notices.filter { $0.contains("restarting the streams") }
        XCTAssertEqual(restarts.count, 3, "\(runner.notices)")
        for (index, line) in restarts.enumerated() {
            XCTAssertTrue(line.hasSuffix("; restarting the streams (\(index + 1) of 3)"), line)
        }
        XCTAssertEqual(finalized, 1)
        XCTAssertTrue(runner.driver.isClosed, "the lost device was let go")
        // No restart gave a period: audio was never said to be back.
        XCTAssertFalse(runner.notices.contains { $0.contains("audio is back") }, "\(runner.notices)")
    }

    /// A restart for want of a first period whose close does not return
    /// within the bound: no second render thread on the engine, no reopen;
    /// the device counts as lost (exit status 1), said as such.
    func testARestartWhoseCloseHangsIsALoss() throws {
        let prepares = CallCounter()
        var calls = callsWithoutFirstPeriods(silentRuns: .max, prepares: prepares)
        calls.close = { pcm in
            usleep(1_500_000)
            return snd_pcm_close(pcm)
        }
        let (o, policy) = quickFirstPeriod(options(calls: calls))
        var reopens = 0
        let runner = runner(try DuplexDriver(options: o), policy: policy) {
            reopens += 1
            return try DuplexDriver(options: o)
        }
        defer { runner.close() }
        runner.send(.userStart)
        poll(runner) { runner.isOver }
        guard case let .stopped(.deviceLost(what)) = runner.state else { return XCTFail("\(runner.state): \(runner.notices)") }
        XCTAssertEqual(what, "\(pcm) did not close within 500 ms to restart")
        XCTAssertEqual(reopens, 0)
        XCTAssertEqual(runner.closesLeftRunning, 1)
        XCTAssertTrue(runner.notices.contains { $0.hasSuffix("restarting the streams (1 of 3)") }, "\(runner.notices)")
    }

    // MARK: A close that hangs

    /// The device lost while its close hangs (a dead sound server's library
    /// waiting seconds on it): the runner lets the driver go within
    /// `releaseMilliseconds`, finalizes the take, and ends with exit status 1;
    /// the close finishes on its own thread later.
    func testALossWithAHangingCloseEndsWithinTheBound() throws {
        let hang = Atomic<Bool>(false)
        let closes = CallCounter()
        var calls = PCMCalls.live
        calls.close = { pcm in
            if hang.load(ordering: .relaxed) { usleep(3_000_000) }
            _ = closes.next()
            return snd_pcm_close(pcm)
        }
        let runner = runner(try DuplexDriver(options: options(calls: calls)), policy: SessionPolicy(headless: true)) {
            XCTFail("no reopen expected")
            throw self.busy()
        }
        var finalized: Date?
        runner.finalizeRecording = { finalized = Date() }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        hang.store(true, ordering: .relaxed)
        let lost = Date()
        runner.send(.deviceLost("test: output gone"))
        runner.close()
        let ended = Date().timeIntervalSince(lost)
        XCTAssertEqual(runner.state, .stopped(.deviceLost("test: output gone")))
        XCTAssertEqual(runner.state.exitStatus, 1)
        let finalizedAfter = try XCTUnwrap(finalized).timeIntervalSince(lost)
        // The bound is 500 ms; the close hangs 3 s.
        XCTAssertLessThan(finalizedAfter, 0.9, "the take was finalized \(finalizedAfter) s after the loss")
        XCTAssertLessThan(ended, 0.9, "the session ended \(ended) s after the loss")
        XCTAssertEqual(runner.closesLeftRunning, 1)
        XCTAssertEqual(closes.count.load(ordering: .relaxed), 0, "the close still hangs on its own thread")
        XCTAssertEqual(runner.xruns, 0, "the runner reads nothing more of the driver it let go")
        // The detached close does finish.
        let deadline = Date().addingTimeInterval(5)
        while closes.count.load(ordering: .relaxed) == 0 && Date() < deadline { usleep(10_000) }
        XCTAssertEqual(closes.count.load(ordering: .relaxed), 1)
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

/// Which PCM is the stuck playback, and whether the streams have started
/// (priming writes go through before that). Atomics only: read on the audio thread.
private final class StuckPlayback: Sendable {
    let playback = Atomic<Int>(0)
    let started = Atomic<Bool>(false)

    /// Whether `pcm` is the playback stream and it has been started.
    func holds(_ pcm: OpaquePointer) -> Bool {
        started.load(ordering: .relaxed) && playback.load(ordering: .relaxed) == Int(bitPattern: UnsafeRawPointer(pcm))
    }
}
