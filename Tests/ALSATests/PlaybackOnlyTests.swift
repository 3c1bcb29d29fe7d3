import ALSA
import CALSA
import CAllocationCounter
import Engine
import Foundation
import Synchronization
import XCTest

/// The driver's playback-only mode (`DuplexDriver.Options(playback:)`, what
/// `busker play` runs on), on real libasound with no sound card: a render
/// graph without input plays through ALSA's `plug` into the `file` plugin,
/// and the file is compared with what the graph rendered.
final class PlaybackOnlyTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// The acceptance test of the mode: what the graph renders is in the
    /// file bit for bit (FLOAT_LE end to end, so ALSA converts nothing),
    /// after exactly `primedFrames` of silence — the priming: two periods
    /// (128 frames) with the default `periodsAhead` of 1 — and both
    /// channels in their places.
    func testRenderedSignalIsPlayedBitExactAfterThePrimingSilence() throws {
        let played = dir.appendingPathComponent("played.raw")
        let frames = 24_000
        let signal = ALSATestSupport.testSignal(frames: frames)
        let options = PlaybackOnlyTestSupport.options(output: played)
        let (driver, reason, events) = try PlaybackOnlyTestSupport.play(signal, options: options, stopAfterFrames: frames + 4 * 64)

        let granted = driver.granted
        XCTAssertTrue(granted.isPlaybackOnly)
        XCTAssertNil(granted.capture)
        XCTAssertNil(driver.options.capturePCM)
        XCTAssertEqual(granted.playback.device, PlaybackOnlyTestSupport.pcmName)
        XCTAssertEqual(granted.playback.format, .float32, "FLOAT_LE is preferred")
        XCTAssertEqual(granted.playback.channels, 2)
        XCTAssertEqual(granted.periodFrames, 64)
        XCTAssertEqual(granted.bufferFrames, 128)
        XCTAssertEqual(granted.primedFrames, 128, "(1 + periodsAhead) periods of silence")
        XCTAssertEqual(granted.outputLatencyFrames, 128, "the loop keeps the whole buffer queued")
        XCTAssertEqual(granted.roundTripFrames, granted.outputLatencyFrames)
        XCTAssertFalse(granted.linked)
        XCTAssertEqual(granted.description,
                       "48000 Hz, FLOAT_LE, 2 out (no capture), period 64 × 2 = 128 frames, output latency ≈ 2.7 ms (128 frames)")

        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(events.first, .started)
        XCTAssertEqual(events.last, .stopped(driver.frameLimitReason))
        XCTAssertEqual(driver.xrunCount, 0)
        XCTAssertEqual(driver.stallCount, 0)
        XCTAssertEqual(driver.framesProcessed, frames + 4 * 64, "rendered frames; the priming is not counted")

        let out = try ALSATestSupport.readRawFloats(played)
        let primed = granted.primedFrames
        XCTAssertGreaterThanOrEqual(out.count / 2, primed + frames)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        XCTAssertTrue(left.prefix(primed).allSatisfy { $0.bitPattern == 0 }, "priming silence")
        XCTAssertTrue(right.prefix(primed).allSatisfy { $0.bitPattern == 0 }, "priming silence")
        XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(left, from: primed, expected: signal),
                     "left differs from the signal at this frame")
        XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(right, from: primed, expected: signal.map { -$0 }),
                     "right differs from the negated signal at this frame")
    }

    /// The priming follows `periodsAhead`, the latency follows the buffer:
    /// with one period primed in a three-period buffer the signal starts
    /// 64 frames in, and the loop keeps 192 frames queued.
    func testPrimingFollowsPeriodsAheadAndLatencyTheBuffer() throws {
        let played = dir.appendingPathComponent("played.raw")
        let frames = 4800
        let signal = ALSATestSupport.testSignal(frames: frames)
        var options = PlaybackOnlyTestSupport.options(output: played, channels: 1)
        options.periodCount = 3
        options.periodsAhead = 0
        let (driver, reason, _) = try PlaybackOnlyTestSupport.play(signal, options: options, stopAfterFrames: frames + 4 * 64)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.granted.bufferFrames, 192)
        XCTAssertEqual(driver.granted.primedFrames, 64)
        XCTAssertEqual(driver.granted.outputLatencyFrames, 192)
        XCTAssertTrue(driver.granted.description.hasSuffix("output latency ≈ 4.0 ms (192 frames)"), driver.granted.description)

        let out = try ALSATestSupport.readRawFloats(played)
        XCTAssertGreaterThanOrEqual(out.count, 64 + frames)
        XCTAssertTrue(out.prefix(64).allSatisfy { $0.bitPattern == 0 })
        XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(out, from: 64, expected: signal))
    }

    /// Each device format, negotiated for real: the driver encodes, ALSA's
    /// `plug` decodes back to FLOAT_LE (a decoder independent of ours). A
    /// signal on the 16-bit grid is representable in every format, so it
    /// comes back exactly.
    func testEveryFormatIsPlayedExactlyConverted() throws {
        let frames = 4800
        let signal = PlaybackOnlyTestSupport.onSixteenBitGrid(ALSATestSupport.testSignal(frames: frames))
        for format in PCMSampleFormat.allCases {
            let played = dir.appendingPathComponent("played-\(format.rawValue).raw")
            var options = PlaybackOnlyTestSupport.options(output: played, channels: 1)
            options.formats = [format]
            let (driver, reason, _) = try PlaybackOnlyTestSupport.play(signal, options: options, stopAfterFrames: frames + 4 * 64)
            XCTAssertEqual(reason, driver.frameLimitReason, "\(format)")
            XCTAssertEqual(driver.granted.playback.format, format)
            let out = try ALSATestSupport.readRawFloats(played)
            let primed = driver.granted.primedFrames
            XCTAssertGreaterThanOrEqual(out.count, primed + frames, "\(format)")
            guard out.count >= primed + frames else { continue }
            XCTAssertTrue(out.prefix(primed).allSatisfy { $0 == 0 }, "\(format): priming silence")
            XCTAssertNil(PlaybackOnlyTestSupport.firstDifference(out, from: primed, expected: signal), "\(format)")
        }
    }

    /// No capture PCM is opened: every `snd_pcm_open` goes through the
    /// driver's call table, and the only one asks for playback. The PCM
    /// could not have served capture anyway: the duplex driver on the same
    /// name fails on its capture side.
    func testNoCapturePCMIsOpened() throws {
        let captureOpens = CallCounter(), playbackOpens = CallCounter()
        var calls = PCMCalls.live
        calls.open = { handle, name, stream, mode, configuration in
            _ = stream == SND_PCM_STREAM_CAPTURE ? captureOpens.next() : playbackOpens.next()
            return PCMCalls.live.open(handle, name, stream, mode, configuration)
        }
        var options = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"))
        options.calls = calls
        let (driver, reason, _) = try PlaybackOnlyTestSupport.play([0.25], options: options, stopAfterFrames: 64 * 20)
        XCTAssertEqual(reason, driver.frameLimitReason)
        XCTAssertEqual(driver.framesProcessed, 64 * 20)
        XCTAssertEqual(captureOpens.count.load(ordering: .relaxed), 0, "capture opens")
        XCTAssertEqual(playbackOpens.count.load(ordering: .relaxed), 1, "playback opens")

        var duplex = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"))
        duplex.capturePCM = PlaybackOnlyTestSupport.pcmName
        XCTAssertThrowsError(try DuplexDriver(options: duplex)) { error in
            XCTAssertEqual(error as? ALSAError, .noChannels(device: PlaybackOnlyTestSupport.pcmName, direction: .capture))
        }
    }

    /// The render thread carries the usual name, a stop request ends the
    /// loop, and a loop that ended by itself starts again with the priming
    /// repeated and the counts intact.
    func testRenderThreadIsNamedStopsOnRequestAndStartsAgain() throws {
        var options = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"))
        options.periodFrames = 1024
        let driver = try DuplexDriver(options: options)
        let engine = RenderEngine()
        XCTAssertFalse(ALSATestSupport.threadNames().contains("audio-render"))
        try driver.start(engine: engine)
        XCTAssertTrue(driver.isRunning)
        XCTAssertTrue(ALSATestSupport.threadNames().contains("audio-render"), "\(ALSATestSupport.threadNames())")
        driver.stop()
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertTrue(ALSATestSupport.threadGone(named: "audio-render"), "\(ALSATestSupport.threadNames())")
        driver.close()

        let limited = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"))
        let again = try DuplexDriver(options: limited, stopAfterFrames: 64 * 10)
        for _ in 0..<3 {
            try again.start(engine: engine)
            XCTAssertEqual(ALSATestSupport.waitUntilStopped(again), again.frameLimitReason)
            XCTAssertEqual(again.framesProcessed, 64 * 10)
        }
        XCTAssertEqual(again.xrunCount, 0)
        again.close()
        XCTAssertThrowsError(try again.start(engine: engine)) { XCTAssertEqual($0 as? ALSAError, .invalidState("start after close")) }
        engine.releaseAll()
    }

    /// The render thread asks for SCHED_FIFO as in duplex mode; it gets it or says why in one line.
    func testRealtimeRequestIsGrantedOrExplained() throws {
        var options = PlaybackOnlyTestSupport.options(output: URL(fileURLWithPath: "/dev/null"))
        options.realtimePriority = 70
        let driver = try DuplexDriver(options: options, stopAfterFrames: 64 * 100)
        try driver.start(engine: RenderEngine())
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason)
        let realtime = try XCTUnwrap(driver.realtime)
        if realtime.hasRealtimePriority {
            XCTAssertNil(realtime.notice)
        } else {
            let notice = try XCTUnwrap(realtime.notice)
            XCTAssertFalse(notice.contains("\n"))
            XCTAssertTrue(notice.contains("SCHED_FIFO 70"), notice)
        }
        driver.close()
    }
}
