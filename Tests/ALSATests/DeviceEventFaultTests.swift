import ALSA
import CALSA
import Engine
import Foundation
import Session
import Synchronization
import XCTest

/// Each error at each point of a device's life — open, prepare, start,
/// read, write, recover, drain — injected through `PCMCalls` into the real
/// duplex driver (libasound's `file` loopback underneath), and followed all
/// the way: what the driver reports, the session event it reads as, and the
/// state the session state machine ends in (default policy: nothing by itself).
final class DeviceEventFaultTests: XCTestCase {
    enum Point: String, CaseIterable { case open, prepare, start, read, wait, write, recover, drain }
    /// Duplex reads capture periods (its waits only follow a read that found
    /// nothing, which the file loopback never does); playback-only waits for room instead.
    static let duplexPoints: [Point] = [.open, .prepare, .start, .read, .write, .recover, .drain]
    static let playbackOnlyPoints: [Point] = [.open, .prepare, .start, .wait, .write, .recover, .drain]
    static let errors: [Int32] = [ENODEV, EBUSY, EPIPE, ESTRPIPE, EIO]

    /// What the driver did.
    enum Outcome: Equatable {
        /// `DuplexDriver.init` threw.
        case openFailed(ALSAError)
        /// `start` threw `callFailed` for this call, direction and code.
        case startFailed(call: String, direction: StreamDirection, code: Int32)
        /// The loop ended by itself (or at the test's `FrameLimit`) after this many xruns.
        case stopped(DriverStopReason, xruns: Int)
        /// `finish()` returned this (nil: everything played).
        case finished(DriverStopReason?)
    }

    private var dir: URL!
    private var procRoot: URL!
    /// Duplex on the file loopback, or playback only (the `asym` PCM with no capture side).
    private var playbackOnly = false
    private var capture: String? { playbackOnly ? nil : "busker_test_infile" }
    private var playback: String { playbackOnly ? PlaybackOnlyTestSupport.pcmName : "busker_test_playback" }
    /// The side that opens first, and so fails first at open, prepare and start.
    private var first: (name: String, direction: StreamDirection) { capture.map { ($0, .capture) } ?? (playback, .playback) }
    private var route: DeviceRoute { DeviceRoute(input: capture, output: playback) }
    /// How a run that reached its `FrameLimit` ends: the first call of the
    /// next period fails, on the side that opens first.
    private var frameLimitReason: DriverStopReason { .ioError(first.direction, code: FrameLimit.code) }

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
        procRoot = try Self.fakeProc(in: dir)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// A `/proc` with one process holding a capture node (pid 4242, `arecord`),
    /// one a playback node (4244, `aplay`) and one only an ordinary file.
    static func fakeProc(in dir: URL) throws -> URL {
        let root = dir.appendingPathComponent("proc")
        let fm = FileManager.default
        for (pid, comm, target) in [(4242, "arecord", "/dev/snd/pcmC0D0c"), (4243, "vim", "/home/user/notes.txt"),
                                    (4244, "aplay", "/dev/snd/pcmC1D0p")] {
            let fd = root.appendingPathComponent("\(pid)/fd")
            try fm.createDirectory(at: fd, withIntermediateDirectories: true)
            try "\(comm)\n".write(to: root.appendingPathComponent("\(pid)/comm"), atomically: true, encoding: .utf8)
            try fm.createSymbolicLink(atPath: fd.appendingPathComponent("3").path, withDestinationPath: target)
        }
        return root
    }

    // MARK: Running one fault

    private func options(calls: PCMCalls, frames: Int) throws -> DuplexDriver.Options {
        var o: DuplexDriver.Options
        if playbackOnly {
            o = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"), channels: 1)
        } else {
            let raw = dir.appendingPathComponent("in.raw")
            try ALSATestSupport.writeRaw(ALSATestSupport.testSignal(frames: frames), to: raw)
            o = ALSATestSupport.fileLoopbackOptions(input: raw, output: URL(fileURLWithPath: "/dev/null"), playbackChannels: 1)
        }
        o.calls = calls
        let procRoot = procRoot.path
        o.calls.deviceHolders = { DeviceHolder.holders(of: $0, direction: $1, procRoot: procRoot) }
        return o
    }

    /// The live table with `point` failing with `-code` (once, mid-stream, for reads and writes).
    private func faultyCalls(_ point: Point, _ code: Int32) -> PCMCalls {
        var calls = PCMCalls.live
        let counter = CallCounter()
        let name = first.name
        let playbackOnly = self.playbackOnly
        switch point {
        case .open:
            calls.open = { handle, pcm, stream, mode, configuration in
                String(cString: pcm) == name ? -code : PCMCalls.live.open(handle, pcm, stream, mode, configuration)
            }
        case .prepare:
            calls.prepare = { _ in -code }
        case .start:
            calls.start = { _ in -code }
        case .read:
            calls.readInterleaved = { pcm, buffer, frames in
                counter.next() == 5 ? -Int(code) : snd_pcm_readi(pcm, buffer, frames)
            }
        case .write:
            // Writes 1 and 2 prime playback; the 7th is the fifth period's.
            calls.writeInterleaved = { pcm, buffer, frames in
                counter.next() == 7 ? -Int(code) : snd_pcm_writei(pcm, buffer, frames)
            }
        case .wait:
            calls.wait = { pcm, timeout in
                counter.next() == 5 ? -code : snd_pcm_wait(pcm, timeout)
            }
        case .recover:
            if playbackOnly {
                calls.writeInterleaved = { pcm, buffer, frames in
                    counter.next() == 7 ? -Int(EPIPE) : snd_pcm_writei(pcm, buffer, frames)
                }
            } else {
                calls.readInterleaved = { pcm, buffer, frames in
                    counter.next() == 5 ? -Int(EPIPE) : snd_pcm_readi(pcm, buffer, frames)
                }
            }
            calls.recover = { _, _, _ in -code }
        case .drain:
            calls.drain = { _ in -code }
        }
        return calls
    }

    /// Runs the driver with one fault and collects what it did and reported.
    private func run(_ point: Point, _ code: Int32) throws -> (Outcome, [DriverEvent]) {
        let frames = point == .drain ? 64 * 100_000 : 64 * 60
        let o = try options(calls: faultyCalls(point, code), frames: frames)
        let driver: DuplexDriver
        do {
            driver = try DuplexDriver(options: o, stopAfterFrames: frames)
        } catch {
            return (.openFailed(error), [])
        }
        defer { driver.close() }
        let engine = RenderEngine()
        defer { engine.releaseAll() }
        do {
            try driver.start(engine: engine)
        } catch {
            guard case let .callFailed(_, direction, call, code, _) = error else { return (.openFailed(error), []) }
            return (.startFailed(call: call, direction: direction, code: code), [])
        }
        if point == .drain {
            // Let some periods through, then end as a song does.
            let deadline = Date().addingTimeInterval(10)
            while driver.framesProcessed < 64 * 10 && Date() < deadline { usleep(1000) }
            let result = driver.finish(timeoutMilliseconds: 500)
            return (.finished(result), ALSATestSupport.drainEvents(driver))
        }
        let reason = ALSATestSupport.waitUntilStopped(driver)
        return (.stopped(reason ?? .requested, xruns: driver.xrunCount), ALSATestSupport.drainEvents(driver))
    }

    /// The session events the driver's reports read as (what the session runner's DriverWatch sends).
    private func sessionEvents(_ outcome: Outcome, _ events: [DriverEvent]) -> [SessionEvent] {
        switch outcome {
        case let .openFailed(error):
            return [.startFailed(error.startFailure)]
        case let .startFailed(call, direction, code):
            let error = ALSAError.callFailed(device: direction == .capture ? capture ?? playback : playback, direction: direction,
                                             call: call, code: code, detail: "")
            return [.startFailed(error.startFailure)]
        case let .finished(reason):
            return reason?.sessionEvent(route: DeviceRoute(input: capture, output: playback)).map { [$0] } ?? []
        case .stopped:
            return events.compactMap { event in
                switch event {
                case let .xrunRecovered(_, total): .xrun(total: total)
                // The end the test asked for is not the session's, as a requested stop is not.
                case let .stopped(reason) where reason == frameLimitReason: nil
                case let .stopped(reason): reason.sessionEvent(route: DeviceRoute(input: capture, output: playback))
                default: nil
                }
            }
        }
    }

    // MARK: The expectations

    private func expectedOutcome(_ point: Point, _ code: Int32) -> Outcome {
        let (name, side) = first
        switch point {
        case .open:
            switch code {
            case EBUSY:
                let holder = side == .capture ? DeviceHolder(pid: 4242, command: "arecord", node: "/dev/snd/pcmC0D0c")
                                              : DeviceHolder(pid: 4244, command: "aplay", node: "/dev/snd/pcmC1D0p")
                return .openFailed(.deviceBusy(device: name, direction: side, holders: [holder]))
            case ENODEV:
                return .openFailed(.unknownPCM(device: name, direction: side, detail: ""))
            default:
                return .openFailed(.callFailed(device: name, direction: side, call: "snd_pcm_open", code: -code, detail: ""))
            }
        case .prepare:
            return .startFailed(call: "snd_pcm_prepare", direction: side, code: -code)
        case .start:
            return .startFailed(call: "snd_pcm_start", direction: side, code: -code)
        case .read, .wait, .write:
            let side: StreamDirection = point == .read ? .capture : .playback
            switch code {
            case ENODEV: return .stopped(.deviceLost(side, code: -ENODEV), xruns: 0)
            case EPIPE: return .stopped(frameLimitReason, xruns: 1)
            case ESTRPIPE: return .stopped(.suspended(side), xruns: 0)
            default: return .stopped(.ioError(side, code: -code), xruns: 0)
            }
        case .recover:
            // Preparing again failed: the device is gone (a dead server fails
            // exactly here), unless it was suspended meanwhile.
            let side = first.direction
            return .stopped(code == ESTRPIPE ? .suspended(side) : .deviceLost(side, code: -code), xruns: 1)
        case .drain:
            switch code {
            case EPIPE: return .finished(nil)
            case ENODEV: return .finished(.deviceLost(.playback, code: -ENODEV))
            case ESTRPIPE: return .finished(.suspended(.playback))
            default: return .finished(.ioError(.playback, code: -code))
            }
        }
    }

    /// Where the session ends up, fed those events from the state the point happens in.
    private func expectedSessionState(_ point: Point, _ code: Int32, events: [SessionEvent]) -> SessionState {
        switch point {
        case .open, .prepare, .start:
            guard case let .startFailed(failure)? = events.first else { return .idle }
            return .failed(failure)
        case .read, .wait, .write, .recover:
            switch events.last {
            case .deviceLost(let what)?: return .stopped(.deviceLost(what))
            case .driverError(let what)?: return .stopped(.error(what))
            case .suspended?: return .interrupted(.suspended, micLive: true)
            default: return .running(micLive: true)
            }
        case .drain:
            // The song had ended; a drain that failed because the device went
            // (or on an error) makes it a loss or an error: exit status 1, not 0.
            switch events.last {
            case .deviceLost(let what)?: return .stopped(.deviceLost(what))
            case .driverError(let what)?: return .stopped(.error(what))
            default: return .stopped(.songEnded)
            }
        }
    }

    private func startState(_ point: Point) -> SessionState {
        switch point {
        case .open, .prepare, .start: .starting
        case .read, .wait, .write, .recover: .running(micLive: true)
        case .drain: .stopped(.songEnded)
        }
    }

    /// The kind of start failure each errno makes, and the session event kind
    /// each mid-stream error makes, pinned independently of the code that maps them.
    private func expectedEventKind(_ point: Point, _ code: Int32) -> String {
        switch point {
        case .open, .prepare, .start:
            return code == EBUSY ? "busy" : code == ENODEV ? "missing" : "other"
        case .read, .wait, .write:
            return [ENODEV: "lost", EPIPE: "xrun", ESTRPIPE: "suspended"][code] ?? "error"
        case .recover:
            // Counted as an xrun (xruns: 1), but never reported recovered: it was not.
            return code == ESTRPIPE ? "suspended" : "lost"
        case .drain:
            return [ENODEV: "lost", EPIPE: "none", ESTRPIPE: "suspended"][code] ?? "error"
        }
    }

    private func kind(of events: [SessionEvent]) -> String {
        if events.isEmpty { return "none" }
        return events.map { event -> String in
            switch event {
            case let .startFailed(f): switch f.kind { case .busy: "busy"; case .missing: "missing"; case .other: "other" }
            case .deviceLost: "lost"
            case .driverError: "error"
            case .suspended: "suspended"
            case .xrun: "xrun"
            default: "\(event)"
            }
        }.joined(separator: "+")
    }

    static func errnoName(_ code: Int32) -> String {
        [ENODEV: "ENODEV", EBUSY: "EBUSY", EPIPE: "EPIPE", ESTRPIPE: "ESTRPIPE", EIO: "EIO"][code] ?? "\(code)"
    }

    // MARK: The test

    func testEveryErrorAtEveryPointDuplex() throws {
        playbackOnly = false
        try checkEveryErrorAtEveryPoint(Self.duplexPoints, mode: "duplex")
    }

    func testEveryErrorAtEveryPointPlaybackOnly() throws {
        playbackOnly = true
        try checkEveryErrorAtEveryPoint(Self.playbackOnlyPoints, mode: "playback only")
    }

    private func checkEveryErrorAtEveryPoint(_ points: [Point], mode: String) throws {
        let machine = SessionStateMachine(route: route, policy: SessionPolicy())
        var table: [String] = []
        for point in points {
            for code in Self.errors {
                let label = "\(point.rawValue) -\(Self.errnoName(code))"
                let (outcome, driverEvents) = try run(point, code)
                XCTAssertEqual(outcome, expectedOutcome(point, code), "\(mode): \(label)")
                let events = sessionEvents(outcome, driverEvents)
                XCTAssertEqual(kind(of: events), expectedEventKind(point, code), "\(mode): \(label): \(events)")
                var state = startState(point)
                for event in events { state = machine.transition(from: state, on: event).0 }
                XCTAssertEqual(state, expectedSessionState(point, code, events: events), "\(mode): \(label)")
                table.append("\(label.padding(toLength: 18, withPad: " ", startingAt: 0)) → \(outcome) → \(kind(of: events)) → \(state.statusText)")
            }
        }
        print("Device event fault matrix, \(mode) (point, error → driver → session event → session state):\n" + table.joined(separator: "\n"))
    }

    /// A busy device at open names the device and the process holding it, in one line.
    func testBusyAtOpenNamesTheDeviceAndTheHolder() throws {
        let (outcome, _) = try run(.open, EBUSY)
        guard case let .openFailed(error) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(error.description,
                       "capture device 'busker_test_infile' is busy, held by arecord (pid 4242); close it, or use a shared PCM such as 'default' or 'plug:dmix'")
        XCTAssertFalse(error.description.contains("\n"))
        XCTAssertEqual(error.startFailure.kind, .busy)
    }

    /// A drain that never completes (a dead server's PCM stays "draining")
    /// gives up after its timeout instead of hanging, and drops the rest.
    func testADrainThatNeverEndsGivesUp() throws {
        var calls = PCMCalls.live
        calls.drain = { _ in -EAGAIN }
        calls.state = { pcm in
            // The playback side claims to drain forever; anything else is told truthfully.
            snd_pcm_stream(pcm) == SND_PCM_STREAM_PLAYBACK ? SND_PCM_STATE_DRAINING : snd_pcm_state(pcm)
        }
        let driver = try DuplexDriver(options: options(calls: calls, frames: 64 * 100_000), stopAfterFrames: 64 * 100_000)
        defer { driver.close() }
        try driver.start(engine: RenderEngine())
        XCTAssertEqual(driver.finish(timeoutMilliseconds: 50), .ioError(.playback, code: -ETIMEDOUT))
        XCTAssertFalse(driver.isRunning)
    }
}
