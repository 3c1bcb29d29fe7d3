import ALSA
import Engine
import FileIO
import Foundation
import Rig
import XCTest

/// The live voice chain through real ALSA PCMs (the `file` plugin's capture
/// `infile`, playback kept in a file) against the offline file driver with
/// the same settings: the same samples, shifted by the driver's round trip.
final class VoiceChainLoopbackTests: XCTestCase {
    func testLiveDriverPlaysWhatTheFileDriverRendersForTheSameSettings() throws {
        let dir = try ALSATestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frames = 24_000
        let files = try ALSATestSupport.loopbackFiles(in: dir, frames: frames)
        let (wav, raw, played, offline) = (files.wav, files.raw, files.played, files.offline)

        var settings = VoiceSettings()
        settings.bassDB = 6
        settings.trebleDB = 3
        settings.boostDB = 3
        settings.reverbPercent = 30
        settings.room = .large
        settings.volume = 0.8

        // Live: the driver at 64-frame periods on the file/null PCMs.
        var options = ALSATestSupport.fileLoopbackOptions(input: raw, output: played)
        options.stopAfterFrames = frames + 4 * 64
        let driver = try DuplexDriver(options: options)
        let chain = try VoiceChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings)
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver), .frameLimitReached)
        XCTAssertEqual(driver.xrunCount, 0)
        driver.close()
        engine.releaseAll()
        let live = try ALSATestSupport.readRawFloats(played)

        // Offline: the file driver, which drops the limiter's look-ahead.
        var fileOptions = FileRenderDriver.Options(inputPath: wav.path, outputPath: offline.path)
        fileOptions.sampleFormat = .f32
        var lookahead = 0
        _ = try FileRenderDriver(options: fileOptions).run { channels, spec in
            let offlineChain = try VoiceChain(inputChannelCount: channels, settings: settings)
            let plan = try offlineChain.compile(spec: spec)
            lookahead = offlineChain.latencyFrames
            return (plan, offlineChain.latencyFrames)
        }
        let rendered = try SoundFileReader(path: offline.path).readAll()

        let delay = driver.granted.roundTripFrames + lookahead
        XCTAssertGreaterThan(lookahead, 0)
        var worst: Float = 0, loudest: Float = 0
        for n in 0..<(frames - delay) {
            for c in 0..<2 {
                worst = max(worst, abs(live[(n + delay) * 2 + c] - rendered[n * 2 + c]))
                loudest = max(loudest, abs(rendered[n * 2 + c]))
            }
        }
        XCTAssertGreaterThan(loudest, 0.05, "the comparison is of sound, not silence")
        XCTAssertLessThanOrEqual(worst, 1e-4, "live output differs from the file driver's, shifted by \(delay) frames")
    }
}
