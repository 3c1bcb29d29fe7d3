import ALSA
import CALSA
import Engine
import Foundation
import RenderTestSupport
import Session
import Synchronization
import XCTest

/// What the render loop does when a read, write, wait or recovery fails
/// mid-stream: real libasound underneath, one call replaced through `PCMCalls`.
final class RenderLoopFaultTests: XCTestCase {
    private var dir: URL!
    /// The frames each run renders (set by `options(frames:)`; `FrameLimit`).
    private var frames = 0

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// Options on the file loopback with `frames` of the test signal as capture.
    private func options(frames: Int, output: URL? = nil) throws -> (DuplexDriver.Options, [Float]) {
        let signal = ALSATestSupport.testSignal(frames: frames)
        let raw = dir.appendingPathComponent("in.raw")
        try ALSATestSupport.writeRaw(signal, to: raw)
        let o = ALSATestSupport.fileLoopbackOptions(input: raw, output: output ?? URL(fileURLWithPath: "/dev/null"),
                                                    playbackChannels: 1)
        self.frames = frames
        return (o, signal)
    }

    private func run(_ options: DuplexDriver.Options) throws -> (DuplexDriver, DriverStopReason?, [DriverEvent]) {
        let driver = try DuplexDriver(options: options, stopAfterFrames: frames)
        let engine = RenderEngine()
        engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
        try driver.start(engine: engine)
        let reason = ALSATestSupport.waitUntilStopped(driver)
        let events = ALSATestSupport.drainEvents(driver)
        driver.close()
        engine.releaseAll()
        return (driver, reason, events)
    }

    /// An xrun on capture is recovered: counted, reported, and the stream
    /// goes on to the end with the round trip restored (the recovery primes
    /// the same silence again, so after it the output is the input delayed by
    /// one more round trip, exactly).
    func testCaptureXrunIsRecoveredCountedAndRealigned() throws {
        let played = dir.appendingPathComponent("played.raw")
        var (o, signal) = try options(frames: 64 * 40, output: played)
        let reads = CallCounter()
        var calls = PCMCalls.live
        calls.readInterleaved = { pcm, buffer, frames in
            reads.next() == 10 ? -Int(EPIPE) : snd_pcm_readi(pcm, buffer, frames)
        }
        o.calls = calls
        let (driver, reason, events) = try run(o)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.xrunCount, 1)
        XCTAssertTrue(events.contains(.xrunRecovered(.capture, total: 1)), "\(events)")

        // Periods 0…8 went through before the xrun (the 10th read failed);
        // then the silence of a second prime, then the rest of the input.
        let out = try ALSATestSupport.readRawFloats(played)
        let delay = driver.granted.roundTripFrames
        let beforeXrun = 9 * 64
        for n in 0..<beforeXrun { XCTAssertEqual(out[n + delay], 0.5 * signal[n], accuracy: 1e-6) }
        for n in beforeXrun..<(beforeXrun + delay) { XCTAssertEqual(out[n + delay], 0) }
        for n in beforeXrun..<(64 * 38) { XCTAssertEqual(out[n + 2 * delay], 0.5 * signal[n], accuracy: 1e-6, "frame \(n)") }
    }

    func testPlaybackXrunIsRecovered() throws {
        var (o, _) = try options(frames: 64 * 40)
        let writes = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, frames in
            // Writes 1 and 2 are the prime; fail the fifth period's write.
            writes.next() == 7 ? -Int(EPIPE) : snd_pcm_writei(pcm, buffer, frames)
        }
        o.calls = calls
        let (driver, reason, events) = try run(o)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.xrunCount, 1)
        XCTAssertTrue(events.contains(.xrunRecovered(.playback, total: 1)), "\(events)")
    }

    /// A plugin PCM whose server died may answer -EPIPE forever while prepare
    /// still succeeds: the loop gives up instead of recovering forever.
    func testEndlessXrunsEndTheLoopInsteadOfSpinning() throws {
        var (o, _) = try options(frames: 64 * 1000)
        var calls = PCMCalls.live
        calls.readInterleaved = { _, _, _ in -Int(EPIPE) }
        o.calls = calls
        let (driver, reason, events) = try run(o)
        XCTAssertEqual(reason, .recoveryFailed(.capture, code: -EPIPE))
        XCTAssertEqual(events.last, .stopped(.recoveryFailed(.capture, code: -EPIPE)))
        XCTAssertEqual(driver.xrunCount, 9)
    }

    /// When the recovery itself fails (the next prepare, as with a dead JACK
    /// server), the device counts as lost.
    func testFailedRecoveryMeansDeviceLost() throws {
        var (o, _) = try options(frames: 64 * 100)
        let reads = CallCounter()
        var calls = PCMCalls.live
        calls.readInterleaved = { pcm, buffer, frames in
            reads.next() >= 5 ? -Int(EPIPE) : snd_pcm_readi(pcm, buffer, frames)
        }
        calls.recover = { _, _, _ in -ENODEV }
        o.calls = calls
        let (_, reason, _) = try run(o)
        XCTAssertEqual(reason, .deviceLost(.capture, code: -ENODEV))
    }

    func testDisconnectEndsTheLoopAsDeviceLost() throws {
        var (o, _) = try options(frames: 64 * 100)
        let writes = CallCounter()
        var calls = PCMCalls.live
        calls.writeInterleaved = { pcm, buffer, frames in
            writes.next() >= 6 ? -Int(ENODEV) : snd_pcm_writei(pcm, buffer, frames)
        }
        o.calls = calls
        let (driver, reason, events) = try run(o)
        XCTAssertEqual(reason, .deviceLost(.playback, code: -ENODEV))
        XCTAssertEqual(events.last, .stopped(.deviceLost(.playback, code: -ENODEV)))
        XCTAssertEqual(driver.xrunCount, 0)
        XCTAssertTrue(reason!.description.contains("playback device lost"), reason!.description)
    }

    /// Suspend stops the loop (resuming may take seconds: not the audio
    /// thread's job); `resumeAfterSuspend` carries on.
    func testSuspendStopsAndResumeContinues() throws {
        var (o, _) = try options(frames: 64 * 50)
        let reads = CallCounter()
        let resumes = CallCounter()
        var calls = PCMCalls.live
        calls.readInterleaved = { pcm, buffer, frames in
            reads.next() == 5 ? -Int(ESTRPIPE) : snd_pcm_readi(pcm, buffer, frames)
        }
        calls.resume = { _ in
            // The hardware comes back after a couple of tries.
            resumes.next() < 3 ? -EAGAIN : 0
        }
        o.calls = calls
        let driver = try DuplexDriver(options: o, stopAfterFrames: frames)
        let engine = RenderEngine()
        try driver.start(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), .suspended(.capture))
        try driver.resumeAfterSuspend(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason)
        XCTAssertGreaterThanOrEqual(resumes.count.load(ordering: .relaxed), 3)
        driver.close()
    }

    /// A device that stops delivering (a JACK server frozen or gone) is
    /// reported as stalled, and a stop request still ends the loop promptly.
    func testStalledDeviceIsReportedAndStopIsPrompt() throws {
        var (o, _) = try options(frames: 64 * 10_000)
        o.stallMilliseconds = 50
        let stall = Atomic<Bool>(false)
        let reads = CallCounter()
        var calls = PCMCalls.live
        calls.readInterleaved = { pcm, buffer, frames in
            if reads.next() > 20 { stall.store(true, ordering: .relaxed) }
            return stall.load(ordering: .relaxed) ? -Int(EAGAIN) : snd_pcm_readi(pcm, buffer, frames)
        }
        calls.wait = { pcm, timeout in
            guard stall.load(ordering: .relaxed) else { return snd_pcm_wait(pcm, timeout) }
            usleep(useconds_t(timeout) * 1000)  // what poll() does when nothing comes
            return 0
        }
        o.calls = calls
        let driver = try DuplexDriver(options: o, stopAfterFrames: frames)
        try driver.start(engine: RenderEngine())
        let deadline = Date().addingTimeInterval(5)
        var events: [DriverEvent] = []
        while Date() < deadline && !events.contains(where: { if case .stalled = $0 { return true }; return false }) {
            events += ALSATestSupport.drainEvents(driver)
            usleep(5000)
        }
        guard case let .stalled(direction, ms)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(direction, .capture)
        XCTAssertGreaterThanOrEqual(ms, 50)
        XCTAssertEqual(driver.stallCount, 1)
        XCTAssertTrue(driver.isRunning, "a stall is reported, not acted on: that is the state machine's call")
        let stopping = Date()
        driver.stop()
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 0.5)
        XCTAssertEqual(driver.stopReason, .requested)
        driver.close()
    }
}
