import ALSA
import AudioFiles
import Engine
import Foundation
import OfflineDrivers
import RenderTestSupport
import XCTest

/// Real ALSA, no stand-in: the duplex driver runs between libasound's `file`
/// plugin (reading a known signal as capture, keeping what was played) and
/// the `null` device, through ALSA's `plug` converter.
final class FileLoopbackTests: XCTestCase {
    /// The acceptance test of the driver: what comes out of playback is what
    /// the render graph makes of the capture, delayed by exactly the granted
    /// round trip (the primed periods), and equal to what the offline file
    /// driver renders from the same WAV with the same graph.
    func testCapturedSignalComesOutRenderedAfterTheGrantedDelay() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 24_000
        let files = try ALSATestSupport.loopbackFiles(in: dir, frames: frames)
        let (wav, raw, played, offline, wavSamples) = (files.wav, files.raw, files.played, files.offline, files.samples)

        let options = ALSATestSupport.fileLoopbackOptions(input: raw, output: played)
        let driver = try DuplexDriver(options: options, stopAfterFrames: frames + 4 * 64)
        XCTAssertEqual(driver.granted.sampleRate, 48000)
        XCTAssertEqual(driver.granted.periodFrames, 64)
        XCTAssertEqual(driver.granted.capture?.format, .float32, "FLOAT_LE is preferred")
        XCTAssertEqual(driver.granted.bufferFrames, 128, "the smallest buffer holding 2 periods")
        XCTAssertEqual(driver.granted.roundTripFrames, 128, "1 period ahead of capture: 2 periods round trip")
        XCTAssertTrue(driver.granted.description.contains("period 64 × 2 = 128 frames"), driver.granted.description)

        let engine = RenderEngine()
        engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
        try driver.start(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason)
        let events = ALSATestSupport.drainEvents(driver)
        XCTAssertEqual(events.first, .started)
        XCTAssertEqual(events.last, .stopped(driver.frameLimitReason))
        XCTAssertEqual(driver.xrunCount, 0)
        driver.close()
        engine.releaseAll()

        let delay = driver.granted.roundTripFrames
        let out = try ALSATestSupport.readRawFloats(played)
        XCTAssertGreaterThanOrEqual(out.count / 2, frames + delay)
        var worst: Float = 0
        for n in 0..<(frames + delay) {
            let expected = n < delay ? 0 : 0.5 * wavSamples[n - delay]
            for c in 0..<2 { worst = max(worst, abs(out[n * 2 + c] - expected)) }
        }
        XCTAssertLessThanOrEqual(worst, 1e-4, "playback differs from 0.5 × capture delayed by \(delay) frames")

        // The same graph through the offline file driver, block size = period.
        var fileOptions = FileRenderDriver.Options(inputPath: wav.path, outputPath: offline.path)
        fileOptions.blockSize = 64
        fileOptions.sampleFormat = .f32
        _ = try FileRenderDriver(options: fileOptions).run { inputChannels, spec in
            (try HalfGainNode.plan(inputChannels: inputChannels, spec: spec), 0)
        }
        let rendered = try SoundFileReader(path: offline.path).readAll()
        XCTAssertGreaterThanOrEqual(rendered.count, frames, "the file driver keeps a tail; its first frames are the input's")
        var worstAgainstFileDriver: Float = 0
        for n in 0..<frames {
            worstAgainstFileDriver = max(worstAgainstFileDriver, abs(out[(n + delay) * 2] - rendered[n]))
        }
        XCTAssertLessThanOrEqual(worstAgainstFileDriver, 1e-4, "ALSA output differs from the file driver's render")
    }

    /// Each device format, negotiated for real. The capture file holds the
    /// signal in that format as libsndfile encodes it (an encoder independent
    /// of ours), and ALSA's `plug` converts what the driver plays back to
    /// FLOAT_LE (a decoder independent of ours): the loop still reproduces
    /// 0.5 × input within the format's resolution.
    func testEveryFormatRoundTripsThroughALSA() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 4800
        let signal = ALSATestSupport.testSignal(frames: frames)
        for format in PCMSampleFormat.allCases {
            let raw = dir.appendingPathComponent("in-\(format.rawValue).raw")
            try ALSATestSupport.writeRaw(signal, format: format, to: raw, scratch: dir)
            let played = dir.appendingPathComponent("played-\(format.rawValue).raw")
            var options = ALSATestSupport.fileLoopbackOptions(input: raw, output: played, playbackChannels: 1)
            options.formats = [format]
            let driver = try DuplexDriver(options: options, stopAfterFrames: frames + 4 * 64)
            XCTAssertEqual(driver.granted.capture?.format, format)
            XCTAssertEqual(driver.granted.playback.format, format)
            let engine = RenderEngine()
            engine.install(try HalfGainNode.plan(inputChannels: 1, spec: driver.processSpec))
            try driver.start(engine: engine)
            XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason, "\(format)")
            driver.close()
            engine.releaseAll()

            let out = try ALSATestSupport.readRawFloats(played)
            let delay = driver.granted.roundTripFrames
            XCTAssertGreaterThanOrEqual(out.count, frames + delay)
            // libsndfile scales by 2^(bits-1) - 1, we by 2^(bits-1); plus a
            // rounding step at each end: a few steps of the format.
            let bits: Int = switch format {
            case .s16: 16
            case .s24, .s24Packed: 24
            case .s32, .float32: 32
            }
            let tolerance = max(4 / Float(1 << (bits - 1)), 1e-6)
            var worst: Float = 0
            for n in 0..<min(frames, out.count - delay) { worst = max(worst, abs(out[n + delay] - 0.5 * signal[n])) }
            XCTAssertLessThanOrEqual(worst, tolerance, "\(format): worst error \(worst)")
        }
    }

    /// The render thread carries the name users see in `top -H` and `ps -L`.
    func testRenderThreadIsNamedAudioRender() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.raw")
        try ALSATestSupport.writeRaw([Float](repeating: 0, count: 64), to: raw)
        var options = ALSATestSupport.fileLoopbackOptions(input: raw, output: URL(fileURLWithPath: "/dev/null"))
        options.periodFrames = 1024
        let driver = try DuplexDriver(options: options)
        let engine = RenderEngine()
        XCTAssertFalse(ALSATestSupport.threadNames().contains("audio-render"))
        try driver.start(engine: engine)
        XCTAssertTrue(driver.isRunning)
        XCTAssertTrue(ALSATestSupport.threadNames().contains("audio-render"), "\(ALSATestSupport.threadNames())")
        let started = Date()
        driver.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "stop must be prompt")
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertTrue(ALSATestSupport.threadGone(named: "audio-render"), "\(ALSATestSupport.threadNames())")
        driver.close()
    }

    /// A loop that ended by itself can be started again (the driver
    /// re-prepares and re-primes), and the xrun count survives restarts.
    func testStartsAgainAfterTheLoopEndedByItself() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.raw")
        try ALSATestSupport.writeRaw([Float](repeating: 0, count: 64), to: raw)
        let options = ALSATestSupport.fileLoopbackOptions(input: raw, output: URL(fileURLWithPath: "/dev/null"))
        let driver = try DuplexDriver(options: options, stopAfterFrames: 64 * 10)
        let engine = RenderEngine()
        for _ in 0..<3 {
            try driver.start(engine: engine)
            XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), driver.frameLimitReason)
            XCTAssertEqual(driver.framesProcessed, 64 * 10)
        }
        XCTAssertEqual(driver.xrunCount, 0)
        driver.close()
        XCTAssertThrowsError(try driver.start(engine: engine)) { XCTAssertEqual($0 as? ALSAError, .invalidState("start after close")) }
    }

    /// Asking for SCHED_FIFO either works or yields one clear line; either way audio runs.
    func testRealtimeRequestIsGrantedOrExplained() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("in.raw")
        try ALSATestSupport.writeRaw([Float](repeating: 0, count: 64), to: raw)
        var options = ALSATestSupport.fileLoopbackOptions(input: raw, output: URL(fileURLWithPath: "/dev/null"))
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
        print("real-time: \(realtime)")
        driver.close()
    }
}
