import AudioFiles
import Engine
import Foundation
import OfflineDrivers
import XCTest

/// A source that plays a 440 Hz tone at half scale for its first `frames`
/// frames and silence after: a song whose last sound is known to the frame.
private final class ToneThenSilence: AudioNode {
    let frames: Int
    private var position = 0
    init(frames: Int) {
        self.frames = frames
        super.init(name: "tone")
    }
    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func reset() { position = 0 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for i in 0..<output.frameCount {
            let n = position + i
            let v: Float = n < frames ? 0.5 * sinf(2 * .pi * 440 * Float(n) / 48_000) : 0
            for c in 0..<output.channelCount { output[c][i] = v }
        }
        position += output.frameCount
    }
}

/// `SongRenderDriver`: the song and its tail to a file, the end found frame by
/// frame; a cancelled or failed render leaves no file.
final class SongRenderDriverTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("busker-song-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func plan(soundingFrames: Int, block: Int) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(ToneThenSilence(frames: soundingFrames))
        return try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: block))
    }

    /// The file ends 50 ms (2400 frames) after the last frame above −90 dBFS,
    /// at any block size; a song longer than its sound is kept to its end.
    func testTheFileEndsFiftyMillisecondsAfterTheLastSound() throws {
        for (block, sounding, song) in [(1024, 48_000, 24_000), (333, 30_001, 24_000), (256, 10_000, 40_000)] {
            let path = directory.appendingPathComponent("song-\(block).wav").path
            var options = SongRenderDriver.Options(outputPath: path)
            options.blockSize = block
            let driver = SongRenderDriver(options: options)
            let report = try driver.run(plan: try plan(soundingFrames: sounding, block: block), engine: RenderEngine(),
                                        latencyFrames: 0, songFrames: song)
            // The last frame at or above −90 dBFS is the tone's last one at most; the end is that plus 2400, or the song's end plus 2400.
            let reader = try SoundFileReader(path: path)
            let samples = try reader.readAll()
            var lastLoud = -1
            for i in 0..<(samples.count / 2) where abs(samples[2 * i]) >= 3.2e-5 { lastLoud = i }
            XCTAssertEqual(Int(reader.frameCount), max(song, lastLoud + 1) + 2400, "block \(block)")
            XCTAssertEqual(report.outputFrames, reader.frameCount)
            XCTAssertEqual(report.renderThreadName, "audio-render")
            XCTAssertEqual(driver.stopReason, .endOfInput)
        }
    }

    func testACancelledRenderThrowsAndLeavesNoFile() throws {
        let path = directory.appendingPathComponent("cancelled.wav").path
        let driver = SongRenderDriver(options: SongRenderDriver.Options(outputPath: path))
        var asked = 0
        XCTAssertThrowsError(try driver.run(plan: try plan(soundingFrames: 48_000 * 600, block: 1024), engine: RenderEngine(),
                                            latencyFrames: 0, songFrames: 48_000 * 600,
                                            isCancelled: { asked += 1; return asked > 1 })) { error in
            XCTAssertTrue(error is SongRenderDriver.Cancelled, "\(error)")
        }
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "ten minutes were not rendered in one poll, and nothing is left")
    }

    func testAFolderAsTheOutputIsAOneLineErrorAndNothingIsWritten() throws {
        let folder = directory.appendingPathComponent("a-folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let driver = SongRenderDriver(options: SongRenderDriver.Options(outputPath: folder))
        XCTAssertThrowsError(try driver.run(plan: try plan(soundingFrames: 480, block: 1024), engine: RenderEngine(),
                                            latencyFrames: 0, songFrames: 480)) { error in
            XCTAssertEqual(error as? AudioFileError, .cannotOpen(path: folder, reason: "is a directory"))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }
}
