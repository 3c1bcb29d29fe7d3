import ALSA
import CALSA
import Engine
import Foundation
import Synchronization
import XCTest

/// What the playback-only loop does when a write, a wait or a recovery fails
/// mid-stream: real libasound underneath (the playback-only `file` PCM of
/// `PlaybackOnlyTestSupport`), one call replaced through `PCMCalls`.
///
/// Call numbering: priming writes two periods of silence (writes 1 and 2),
/// then each period is one wait for room and one write, on `null` underneath
/// always granted at once.
final class PlaybackOnlyFaultTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// Mono options that play into `output` or nowhere.
    private func options(output: URL? = nil, calls: PCMCalls) -> DuplexDriver.Options {
        var o = PlaybackOnlyTestSupport.options(output: output ?? URL(fileURLWithPath: "/dev/null"), channels: 1)
        o.calls = calls
        return o
    }

    /// A write that fails with -EPIPE is an xrun: counted, reported, and
    /// recovered by priming again. The period whose write failed is dropped;
    /// the stream goes on with the next one, to the end.
    func testXrunOnWriteIsRecoveredAndCounted() throws {
        let played = dir.appendingPathComponent("played.raw")
        let frames = 64 * 40
        let signal = ALSATestSupport.testSignal(frames: frames)
        let writes = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, count in
            // Writes 1 and 2 are the prime: the 7th is period 4's.
            writes.next() == 7 ? -Int(EPIPE) : snd_pcm_writei(pcm, buffer, count)
        }
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play(
            signal, options: options(output: played, calls: calls), stopAfterFrames: frames)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.xrunCount, 1)
        XCTAssertEqual(events.filter { if case .xrunRecovered = $0 { return true }; return false },
                       [.xrunRecovered(.playback, total: 1)])
        XCTAssertEqual(driver.framesProcessed, frames, "the dropped period is not counted")

        // Prime, periods 0…3, prime again, then periods 5… (4 was dropped).
        let out = try ALSATestSupport.readRawFloats(played)
        let primed = driver.granted.primedFrames
        XCTAssertGreaterThanOrEqual(out.count, 2 * primed + frames)
        guard out.count >= 2 * primed + frames else { return }
        let expected = [Float](repeating: 0, count: primed) + signal[0..<256]
            + [Float](repeating: 0, count: primed) + signal[320...]
        XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(out, expected: expected))
    }

    /// An xrun that `snd_pcm_wait` reports (the state the device is in
    /// before the loop writes) is recovered the same way; no rendered
    /// period is lost, since the render comes after the wait.
    func testXrunReportedByTheWaitIsRecoveredWithoutLosingAPeriod() throws {
        let played = dir.appendingPathComponent("played.raw")
        let frames = 64 * 40
        let signal = ALSATestSupport.testSignal(frames: frames)
        let writes = CallCounter()
        let failed = Atomic<Bool>(false)
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, count in
            _ = writes.next()
            return snd_pcm_writei(pcm, buffer, count)
        }
        calls.wait = { pcm, timeout in
            // Once, after the prime and five periods.
            if writes.count.load(ordering: .relaxed) == 7 && !failed.exchange(true, ordering: .relaxed) {
                return -EPIPE
            }
            return snd_pcm_wait(pcm, timeout)
        }
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play(
            signal, options: options(output: played, calls: calls), stopAfterFrames: frames)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.xrunCount, 1)
        XCTAssertTrue(events.contains(.xrunRecovered(.playback, total: 1)), "\(events)")

        let out = try ALSATestSupport.readRawFloats(played)
        let primed = driver.granted.primedFrames
        XCTAssertGreaterThanOrEqual(out.count, 2 * primed + frames)
        guard out.count >= 2 * primed + frames else { return }
        let expected = [Float](repeating: 0, count: primed) + signal[0..<320]
            + [Float](repeating: 0, count: primed) + signal[320...]
        XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(out, expected: expected))
    }

    /// A sound server that died may answer -EPIPE forever while prepare
    /// still succeeds: the loop gives up after a bounded number of tries
    /// instead of recovering forever.
    func testEndlessXrunsEndTheLoopInsteadOfSpinning() throws {
        var calls = PCMCalls.live
        calls.wait = { _, _ in -EPIPE }
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play(
            [0.5], options: options(calls: calls), stopAfterFrames: 64 * 1000)
        XCTAssertEqual(reason, .recoveryFailed(.playback, code: -EPIPE))
        XCTAssertEqual(events.last, .stopped(.recoveryFailed(.playback, code: -EPIPE)))
        XCTAssertEqual(driver.xrunCount, 9, "eight recoveries in a row, the ninth xrun gives up")
        XCTAssertEqual(driver.framesProcessed, 0)
    }

    /// When the recovery itself fails (the prepare after a dead server), the device counts as lost.
    func testFailedRecoveryMeansDeviceLost() throws {
        let writes = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, count in
            writes.next() == 7 ? -Int(EPIPE) : snd_pcm_writei(pcm, buffer, count)
        }
        calls.recover = { _, _, _ in -ENODEV }
        let (driver, reason, _) = try PlaybackOnlyTestSupport.play(
            [0.5], options: options(calls: calls), stopAfterFrames: 64 * 100)
        XCTAssertEqual(reason, .deviceLost(.playback, code: -ENODEV))
        XCTAssertEqual(driver.xrunCount, 1)
    }

    /// A device that disappears (-ENODEV from a write) ends the loop with that reason, no recovery tried.
    func testDeviceGoneOnWriteStopsAsDeviceLost() throws {
        let writes = CallCounter()
        let recoveries = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, count in
            writes.next() >= 6 ? -Int(ENODEV) : snd_pcm_writei(pcm, buffer, count)
        }
        calls.recover = { pcm, code, silent in
            _ = recoveries.next()
            return snd_pcm_recover(pcm, code, silent)
        }
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play(
            [0.5], options: options(calls: calls), stopAfterFrames: 64 * 100)
        XCTAssertEqual(reason, .deviceLost(.playback, code: -ENODEV))
        XCTAssertEqual(events.last, .stopped(.deviceLost(.playback, code: -ENODEV)))
        XCTAssertEqual(driver.xrunCount, 0)
        XCTAssertEqual(recoveries.count.load(ordering: .relaxed), 0)
        XCTAssertEqual(driver.framesProcessed, 3 * 64, "periods 0…2 went out before the device went")
        XCTAssertTrue(reason!.description.contains("playback device lost"), reason!.description)
    }

    /// A device that reports itself disconnected while waiting: an unknown
    /// error from the wait, with the PCM in the DISCONNECTED state, is a lost device too.
    func testDisconnectedStateDuringTheWaitStopsAsDeviceLost() throws {
        let waits = CallCounter()
        let gone = Atomic<Bool>(false)
        var calls = PCMCalls.live
        calls.wait = { pcm, timeout in
            if waits.next() >= 10 { gone.store(true, ordering: .relaxed) }
            return gone.load(ordering: .relaxed) ? -EIO : snd_pcm_wait(pcm, timeout)
        }
        calls.state = { pcm in gone.load(ordering: .relaxed) ? SND_PCM_STATE_DISCONNECTED : snd_pcm_state(pcm) }
        let (driver, reason, _) = try PlaybackOnlyTestSupport.play(
            [0.5], options: options(calls: calls), stopAfterFrames: 64 * 100)
        XCTAssertEqual(reason, .deviceLost(.playback, code: -EIO))
        XCTAssertEqual(driver.xrunCount, 0)
    }

    /// Suspend stops the loop (resuming may take seconds: not the audio
    /// thread's job); `resumeAfterSuspend` resumes playback, the only
    /// stream there is, and carries on.
    func testSuspendStopsAndResumeContinues() throws {
        let writes = CallCounter()
        let resumes = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, count in
            writes.next() == 5 ? -Int(ESTRPIPE) : snd_pcm_writei(pcm, buffer, count)
        }
        calls.resume = { _ in
            // The hardware comes back after a couple of tries.
            resumes.next() < 3 ? -EAGAIN : 0
        }
        let driver = try DuplexDriver(options: options(calls: calls), stopAfterFrames: 64 * 50)
        let engine = RenderEngine()
        try driver.start(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), .suspended(.playback))
        try driver.resumeAfterSuspend(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason)
        XCTAssertEqual(resumes.count.load(ordering: .relaxed), 3, "one stream, resumed until it answered 0")
        driver.close()
    }

    /// A device that stops taking frames (a frozen sound server) is
    /// reported as stalled while the loop waits for room, the end of the
    /// stall is reported too, and the stream then plays to the end.
    func testStallWhileWaitingForRoomIsReportedAndEnds() throws {
        let waits = CallCounter()
        var calls = PCMCalls.live
        calls.wait = { pcm, timeout in
            // Waits 10…29 time out, as poll() does when nothing comes:
            // 20 timeouts of 10 ms, well over the 50 ms stall threshold.
            let n = waits.next()
            guard (10..<30).contains(n) else { return snd_pcm_wait(pcm, timeout) }
            usleep(useconds_t(timeout) * 1000)
            return 0
        }
        var o = options(calls: calls)
        o.stallMilliseconds = 50
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play([0.5], options: o, stopAfterFrames: 64 * 100)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.stallCount, 1)
        let stalls = events.filter {
            switch $0 {
            case .stalled, .stallEnded: true
            default: false
            }
        }
        guard stalls.count == 2, case let .stalled(direction, ms) = stalls[0] else { return XCTFail("\(events)") }
        XCTAssertEqual(direction, .playback)
        XCTAssertGreaterThanOrEqual(ms, 50)
        XCTAssertEqual(stalls[1], .stallEnded(.playback))
    }

    /// A stalled device does not hold the loop: a stop request ends it.
    func testStopWhileStalledEndsTheLoop() throws {
        let waits = CallCounter()
        var calls = PCMCalls.live
        calls.wait = { pcm, timeout in
            guard waits.next() >= 10 else { return snd_pcm_wait(pcm, timeout) }
            usleep(useconds_t(timeout) * 1000)
            return 0
        }
        var o = options(calls: calls)
        o.stallMilliseconds = 50
        let driver = try DuplexDriver(options: o, stopAfterFrames: 64 * 10_000)
        try driver.start(engine: RenderEngine())
        let deadline = Date().addingTimeInterval(5)
        while driver.stallCount == 0 && Date() < deadline { usleep(5000) }
        XCTAssertEqual(driver.stallCount, 1)
        XCTAssertTrue(driver.isRunning, "a stall is reported, not acted on: that is the state machine's call")
        driver.stop()
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertTrue(ALSATestSupport.drainEvents(driver).contains(.stalled(.playback, milliseconds: 50)))
        driver.close()
    }

    /// A failure while starting (here the prepare) is thrown by `start`, naming the playback device and the call.
    func testStartFailureNamesThePlaybackDevice() throws {
        var calls = PCMCalls.live
        calls.prepare = { _ in -EIO }
        let driver = try DuplexDriver(options: options(calls: calls), stopAfterFrames: 64)
        XCTAssertThrowsError(try driver.start(engine: RenderEngine())) { error in
            guard case let .callFailed(device, direction, call, code, _)? = error as? ALSAError else { return XCTFail("\(error)") }
            XCTAssertEqual(device, PlaybackOnlyTestSupport.pcmName)
            XCTAssertEqual(direction, .playback)
            XCTAssertEqual(call, "snd_pcm_prepare")
            XCTAssertEqual(code, -EIO)
        }
        XCTAssertFalse(driver.isRunning)
        driver.close()
    }
}
