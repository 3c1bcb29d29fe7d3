import CAllocationCounter
import Chains
import CJACK
import CommandLineInterface
import Engine
import Foundation
import JACK
import RenderTestSupport
import Sessions
import Session
import Synchronization
import XCTest

/// The JACK driver on a real jackd (dummy driver, 48 kHz, 64-frame cycles,
/// its own server name), with a second client (`ProbeClient`) feeding
/// Busker and reading it back.
final class JACKDriverTests: XCTestCase {
    private var server: JACKServerFixture!

    override func setUpWithError() throws {
        server = try JACKServerFixture(name: "busker-jdrv")
    }

    override func tearDown() {
        server?.stop()
    }

    private func openDriver(_ configure: (inout JACKDriver.Options) -> Void = { _ in }) throws -> JACKDriver {
        var options = JACKDriver.Options(connections: .none)
        configure(&options)
        return try JACKDriver(options: options)
    }

    /// The probe's impulses (0.5) go through Busker's half gain and come
    /// back at 0.25 on both outputs, one cycle (64 frames) late: the probe
    /// feeds Busker and reads it back, a feedback loop JACK breaks by
    /// running one of the two first in each cycle, so whichever it is, what
    /// the other wrote reaches it in the next cycle. Busker adds nothing.
    func testImpulsesComeBackOneCycleLateAtTheGraphsGain() throws {
        let driver = try openDriver()
        defer { driver.close() }
        XCTAssertEqual(driver.format, AudioFormat(sampleRate: 48000, periodFrames: 64, inputChannels: 1, outputChannels: 2))
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
        try driver.start(engine: engine)
        let probe = try ProbeClient(seconds: 2)
        defer { probe.close() }
        probe.activate()
        probe.patch(to: driver.clientName)
        probe.waitForFrames(probe.capacity)
        let arrivals = probe.arrivals(upTo: probe.capacity)
        XCTAssertGreaterThanOrEqual(arrivals.count, 15)
        // Xruns are not asserted: the dummy server runs without real-time
        // priority on a shared test machine, and its stalls are not Busker's;
        // an impulse may go missing only in a cycle it reported as an xrun.
        // The first may be sent before the patch is in place.
        let arrived = probe.assertArrivals(Array(arrivals.dropFirst()), delay: 64, level: 0.25, cycle: 64)
        XCTAssertGreaterThanOrEqual(arrived, arrivals.count / 2, "most impulses come back")
        XCTAssertEqual(driver.silencedCycles, 0)
    }

    /// `auto` patches in_N to the dummy's capture ports and out_L/out_R to its
    /// two playback ports; `none` leaves every port unconnected; a list makes exactly its connections.
    func testConnectAutoNoneAndAList() throws {
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        do {
            let driver = try openDriver { $0.inputChannels = 2; $0.connections = .auto }
            try driver.start(engine: engine)
            XCTAssertEqual(driver.portNames, ["in_1", "in_2", "out_L", "out_R"])
            XCTAssertEqual(driver.connections(of: "in_1"), ["system:capture_1"])
            XCTAssertEqual(driver.connections(of: "in_2"), ["system:capture_2"])
            XCTAssertEqual(driver.connections(of: "out_L"), ["system:playback_1"])
            XCTAssertEqual(driver.connections(of: "out_R"), ["system:playback_2"])
            XCTAssertTrue(driver.summary.contains("in_1 ← system:capture_1"), driver.summary)
            driver.close()
        }
        do {
            let driver = try openDriver { $0.connections = .none; $0.midiInput = true }
            try driver.start(engine: engine)
            XCTAssertEqual(driver.portNames, ["in_1", "out_L", "out_R", "midi_in"])
            for port in driver.portNames { XCTAssertEqual(driver.connections(of: port), [], port) }
            XCTAssertTrue(driver.summary.contains("nothing connected"), driver.summary)
            driver.close()
        }
        do {
            let list = try XCTUnwrap(JACKDriver.Connections(argument: "in_1=system:capture_2,out_L=system:playback_2"))
            let driver = try openDriver { $0.connections = list }
            try driver.start(engine: engine)
            XCTAssertEqual(driver.connections(of: "in_1"), ["system:capture_2"])
            XCTAssertEqual(driver.connections(of: "out_L"), ["system:playback_2"])
            XCTAssertEqual(driver.connections(of: "out_R"), [])
            driver.close()
        }
        XCTAssertThrowsError(try openDriver { $0.connections = .ports([.init(own: "out_C", other: "system:playback_1")]) }) {
            XCTAssertEqual(($0 as? JACKDriverError)?.description.contains("no port 'out_C'"), true, "\($0)")
        }
        XCTAssertThrowsError(try openDriver { $0.connections = .ports([.init(own: "out_L", other: "nobody:in")]) }) {
            XCTAssertEqual($0 as? JACKDriverError, .unknownServerPort(port: "nobody:in", server: server.name))
        }
    }

    /// A second client with Busker's name is renamed by JACK, and the driver says the name it got.
    func testAClashingNameIsReportedAsJACKRenamedIt() throws {
        let first = try openDriver()
        defer { first.close() }
        let second = try openDriver()
        defer { second.close() }
        XCTAssertEqual(first.clientName, "busker")
        XCTAssertNotEqual(second.clientName, "busker")
        XCTAssertTrue(second.summary.contains("'\(second.clientName)'"), second.summary)
    }

    /// Another client reads Busker's latency on its ports: out_L's capture
    /// latency is system:capture_1's plus Busker's own, in_1's playback latency
    /// is system:playback_1's plus Busker's own; changing Busker's own republishes.
    func testOwnLatencyIsPublishedOnThePorts() throws {
        let driver = try openDriver { $0.connections = .auto; $0.ownLatencyFrames = 100 }
        defer { driver.close() }
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        try driver.start(engine: engine)
        let probe = try ProbeClient()
        defer { probe.close() }
        let capture = try XCTUnwrap(probe.latencyRange(of: "system:capture_1", JackCaptureLatency))
        let playback = try XCTUnwrap(probe.latencyRange(of: "system:playback_1", JackPlaybackLatency))
        print("dummy server latencies: capture \(capture), playback \(playback); \(driver.summary)")
        func check(own: Int, line: UInt = #line) {
            // The server recomputes latencies asynchronously, capture and playback in separate
            // passes: wait for all four values.
            func published() -> Bool {
                let out = probe.latencyRange(of: "\(driver.clientName):out_L", JackCaptureLatency)
                let input = probe.latencyRange(of: "\(driver.clientName):in_1", JackPlaybackLatency)
                return out?.min == capture.min + own && out?.max == capture.max + own
                    && input?.min == playback.min + own && input?.max == playback.max + own
            }
            let deadline = Date().addingTimeInterval(5)
            while !published() && Date() < deadline { usleep(10_000) }
            let out = probe.latencyRange(of: "\(driver.clientName):out_L", JackCaptureLatency)
            XCTAssertEqual(out?.min, capture.min + own, line: line)
            XCTAssertEqual(out?.max, capture.max + own, line: line)
            let input = probe.latencyRange(of: "\(driver.clientName):in_1", JackPlaybackLatency)
            XCTAssertEqual(input?.min, playback.min + own, line: line)
            XCTAssertEqual(input?.max, playback.max + own, line: line)
        }
        check(own: 100)
        XCTAssertEqual(driver.serverCaptureLatency, capture.max)
        XCTAssertEqual(driver.serverPlaybackLatency, playback.max)
        XCTAssertTrue(driver.summary.contains("latency \(capture.max) capture + 100 Busker + \(playback.max) playback = \(capture.max + 100 + playback.max) frames"),
                      driver.summary)
        driver.ownLatencyFrames = 960
        check(own: 960)
    }

    /// The process thread is `audio-render` and makes no heap allocation or
    /// free in steady state with the whole live chain (two strips, every
    /// stage on) and knobs turning; the negative control allocates once on
    /// that thread after counting began and must be seen.
    func testProcessThreadIsNamedAndAllocatesNothing() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        final class Seen: @unchecked Sendable {
            let name = Mutex<String>("")
            let allocations = Atomic<Int>(0)
            var kept: AnyObject?
        }
        let seen = Seen()
        let driver = try openDriver {
            $0.inputChannels = 2
            $0.connections = .auto
            $0.calls = JACKCalls.live.withProcessThreadStart {
                seen.name.withLock { $0 = RealtimeThread.currentName }
                busker_allocation_counting_begin()
                seen.kept = NSObject()
                seen.allocations.store(busker_allocation_count(), ordering: .relaxed)
            }
        }
        defer { driver.close() }
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2", "--gain", "3", "--bass", "6", "--treble", "3", "--boost", "6",
                                                      "--reverb", "30", "--gate", "--compressor", "--voice-processing",
                                                      "--strip", "1:pan=-0.5", "--strip", "2:pan=0.5", "--room", "hall"])
        let chain = try LiveChain(inputChannelCount: 2, settings: settings, limiterLookaheadMilliseconds: 1)
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        engine.install(try chain.compile(spec: driver.processSpec))
        driver.ownLatencyFrames = chain.latencyFrames
        try driver.start(engine: engine)
        func run(frames: Int) {
            var i = 0
            while driver.framesProcessed < frames && driver.stopReason == nil {
                settings.strips[0].bassDB = Float(i % 25) - 12
                settings.strips[1].reverbSendPercent = Float(i % 100)
                chain.apply(settings)
                chain.micOn = (i / 11) % 3 != 0
                engine.collectRetiredPlans()
                i += 1
                usleep(500)
            }
        }
        run(frames: 24_000)
        XCTAssertEqual(seen.name.withLock { $0 }, "audio-render")
        XCTAssertTrue(JACKTestSupport.threadNames().contains("audio-render"), "\(JACKTestSupport.threadNames())")
        XCTAssertGreaterThan(seen.allocations.load(ordering: .relaxed), 0, "the counter catches an allocation on the process thread")
        busker_allocation_counts_reset()
        let start = driver.framesProcessed
        run(frames: start + 2 * 48000)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        XCTAssertGreaterThanOrEqual(driver.framesProcessed - start, 2 * 48000)
        XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
        XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
    }

    /// `jack_bufsize` 64 → 256 → 64 under a running session (headless, no
    /// flags): each change is a `.formatChanged`, the runner rebuilds the
    /// graph for the new size and goes on by itself; the impulses come back
    /// at the graph's gain one cycle late at every size (64, 256, 64 frames).
    /// The process thread allocates nothing throughout, the changes included
    /// (the rebuild allocates on the control thread).
    func testBufferSizeChangesRebuildAndGoOnAtTheNewSize() throws {
        let driver = try openDriver { $0.calls = JACKCalls.live.withProcessThreadStart { busker_allocation_counting_begin() } }
        let engine = RenderEngine()
        engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [] }, suspendProcess: {},
                                   reopen: { throw JACKDriverError.invalidState("no reopen in this test") })
        defer { runner.close() }
        var rebuilt: [Int] = []
        runner.rebuildGraph = { driver in
            engine.releaseAll()
            engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
            rebuilt.append(driver.format.periodFrames)
        }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        let probe = try ProbeClient(seconds: 9)
        defer { probe.close() }
        probe.activate()
        probe.patch(to: driver.clientName)
        func poll(until frame: Int) {
            let deadline = Date().addingTimeInterval(20)
            while probe.frames.load(ordering: .acquiring) < frame && Date() < deadline {
                runner.poll()
                usleep(5000)
            }
        }
        /// Changes the size and polls until the session runs at it; the probe's frame from then on.
        func change(to size: Int) throws -> Int {
            try server.setBufferSize(size)
            let deadline = Date().addingTimeInterval(5)
            while !(driver.format.periodFrames == size && rebuilt.last == size && runner.state == .running(micLive: true))
                    && Date() < deadline {
                runner.poll()
                usleep(5000)
            }
            XCTAssertEqual(rebuilt.last, size)
            XCTAssertEqual(runner.state, .running(micLive: true), "\(runner.notices)")
            return probe.frames.load(ordering: .acquiring)
        }
        poll(until: 48000)
        busker_allocation_counts_reset()
        poll(until: 2 * 48000)
        let firstChange = probe.frames.load(ordering: .acquiring)
        let at256 = try change(to: 256)
        poll(until: at256 + 2 * 48000)
        let secondChange = probe.frames.load(ordering: .acquiring)
        let at64 = try change(to: 64)
        poll(until: min(probe.capacity, at64 + 2 * 48000))
        XCTAssertEqual(driver.format.periodFrames, 64)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        if busker_allocation_counting_supported() != 0 {
            XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread across the changes")
            XCTAssertEqual(frees, 0, "heap frees on the audio-render thread across the changes")
        }
        let arrivals = probe.arrivals(upTo: probe.frames.load(ordering: .acquiring))
        // Each stretch from the first impulse sent after its size was in place (a cycle of slack) to the next change.
        let stretches = [(from: 4800, to: firstChange, delay: 64), (from: at256 + 256, to: secondChange, delay: 256),
                         (from: at64 + 64, to: Int.max, delay: 64)]
        for stretch in stretches {
            let checked = arrivals.filter { $0.sent > stretch.from && $0.sent + 4800 < stretch.to }
            XCTAssertGreaterThanOrEqual(checked.count, 10, "impulses checked at \(stretch.delay) frames")
            let arrived = probe.assertArrivals(checked, delay: stretch.delay, level: 0.25, cycle: stretch.delay)
            XCTAssertGreaterThanOrEqual(arrived, checked.count / 2, "most impulses come back at \(stretch.delay) frames")
        }
        print("buffer size 64 → 256 → 64: rebuilt for \(rebuilt), \(driver.silencedCycles) cycles silenced meanwhile, notices \(runner.notices)")
    }

    /// The server killed under a running driver: `.stopped(.deviceLost)`
    /// within 2 s, its words naming the server; close returns.
    func testServerKilledIsADeviceLoss() throws {
        let driver = try openDriver()
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        try driver.start(engine: engine)
        server.kill()
        let (found, seen) = JACKTestSupport.waitForEvent(driver, seconds: 2) {
            if case .stopped(.deviceLost) = $0 { return true }
            return false
        }
        XCTAssertTrue(found, "events: \(seen)")
        XCTAssertFalse(driver.isRunning)
        XCTAssertEqual(driver.stopReason, .deviceLost(.playback, code: -ESHUTDOWN))
        XCTAssertTrue(driver.stopDetail?.contains("JACK server '\(server.name)' shut down") ?? false, driver.stopDetail ?? "nil")
        XCTAssertThrowsError(try driver.start(engine: engine))
        let closing = Date()
        driver.close()
        XCTAssertLessThan(Date().timeIntervalSince(closing), 2)
    }

    /// A server that stops running cycles without telling (SIGSTOP here; a
    /// killed PipeWire in life) is reported `.stalled` after the stall time,
    /// and `.stallEnded` once cycles come again.
    func testAServerThatStopsRunningCyclesIsReportedStalled() throws {
        let driver = try openDriver { $0.stallMilliseconds = 300 }
        defer { driver.close() }
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        try driver.start(engine: engine)
        XCTAssertTrue(JACKTestSupport.stopProcess(server.pid))
        let stopped = Date()
        let stall = JACKTestSupport.waitForEvent(driver, seconds: 3) {
            if case .stalled = $0 { return true }
            return false
        }
        let noticed = Date().timeIntervalSince(stopped)
        XCTAssertEqual(kill(server.pid, SIGCONT), 0)
        XCTAssertTrue(stall.found, "events: \(stall.seen)")
        XCTAssertGreaterThanOrEqual(noticed, 0.3)
        XCTAssertLessThan(noticed, 1.5)
        let ended = JACKTestSupport.waitForEvent(driver, seconds: 3) { $0 == .stallEnded(.playback) }
        XCTAssertTrue(ended.found, "events: \(ended.seen)")
        XCTAssertTrue(driver.isRunning)
    }

    /// A start the server runs no cycle for (SIGSTOP here, between a stop and
    /// a start; a graph busy with clients coming and going in life) returns
    /// after `startTimeoutMilliseconds` instead of failing, and the stall
    /// watch reports `.noFirstPeriod`, which the session answers with a new
    /// client; cycles that come after all end it with `.stallEnded`.
    func testAStartWithoutACycleReturnsAndReportsNoFirstPeriod() throws {
        let driver = try openDriver {
            $0.stallMilliseconds = 300
            $0.startTimeoutMilliseconds = 500
        }
        defer { driver.close() }
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        try driver.start(engine: engine)
        driver.stop()
        while driver.nextEvent() != nil {}
        XCTAssertTrue(JACKTestSupport.stopProcess(server.pid))
        let starting = Date()
        XCTAssertNoThrow(try driver.start(engine: engine))
        let returned = Date().timeIntervalSince(starting)
        let report = JACKTestSupport.waitForEvent(driver, seconds: 3) {
            if case .noFirstPeriod = $0 { return true }
            return false
        }
        // Read before the server runs again: its first cycle after SIGCONT may come at once.
        let renderedWhileStopped = driver.cyclesRendered
        XCTAssertEqual(kill(server.pid, SIGCONT), 0)
        XCTAssertGreaterThanOrEqual(returned, 0.5)
        XCTAssertLessThan(returned, 1.5, "start waits no longer than its timeout")
        XCTAssertTrue(report.found, "events: \(report.seen)")
        if case let .noFirstPeriod(direction, ms)? = report.seen.last {
            XCTAssertEqual(direction, .playback)
            XCTAssertGreaterThanOrEqual(ms, 500)
        }
        XCTAssertEqual(renderedWhileStopped, 0)
        let ended = JACKTestSupport.waitForEvent(driver, seconds: 3) { $0 == .stallEnded(.playback) }
        XCTAssertTrue(ended.found, "events: \(ended.seen)")
        XCTAssertGreaterThan(driver.cyclesRendered, 0)
    }

    /// No server: one line naming it and what to do, at once.
    func testNoServerIsAOneLineErrorAtOnce() throws {
        let started = Date()
        XCTAssertThrowsError(try openDriver { $0.serverName = "busker-none-\(getpid())" }) { error in
            let text = "\(error)"
            XCTAssertEqual(error as? JACKDriverError, .serverNotRunning(server: "busker-none-\(getpid())"))
            XCTAssertFalse(text.contains("\n"))
            XCTAssertTrue(text.contains("jackd") && text.contains("--driver alsa"), text)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}
