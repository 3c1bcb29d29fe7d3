import Engine
import FileIO
import Foundation
import Session
import XCTest

/// The session runner on the offline file driver, through the same protocol
/// as a live one: it starts it, sees the input end, drains and finishes,
/// and the file it leaves is the one `FileRenderDriver.run` writes, byte for byte.
final class OfflineSessionTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("busker-offline-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A second of a 440 Hz tone and a decaying noise burst, mono, 48 kHz, as 24-bit WAV.
    private func makeInput() throws -> String {
        let path = directory.appendingPathComponent("in.wav").path
        var state: UInt64 = 9
        let samples: [Float] = (0..<48_017).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let noise = Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
            return 0.3 * sinf(2 * .pi * 440 * Float(i) / 48_000) + 0.2 * noise * expf(-Float(i) / 4800)
        }
        let writer = try SoundFileWriter(path: path, sampleRate: 48_000, channelCount: 1, sampleFormat: .s24)
        try writer.write(interleaved: samples)
        try writer.close()
        return path
    }

    private func plan(inputChannels: Int, spec: ProcessSpec) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: inputChannels)
        let half = graph.add(HalfGainNode(name: "half"))
        try graph.connect(graph.input, to: half)
        graph.output = half
        return try graph.compile(spec: spec)
    }

    func testTheRunnerDrivesTheFileDriverToTheSameBytesAsRun() throws {
        let input = try makeInput()
        let direct = directory.appendingPathComponent("direct.wav").path
        var options = FileRenderDriver.Options(inputPath: input, outputPath: direct)
        options.blockSize = 333
        let report = try FileRenderDriver(options: options).run { channels, spec in
            (try plan(inputChannels: channels, spec: spec), 0)
        }
        XCTAssertEqual(report.renderThreadName, "audio-render")

        let viaRunner = directory.appendingPathComponent("runner.wav").path
        options.outputPath = viaRunner
        let driver = try FileRenderDriver(options: options)
        driver.outputChannelCount = 1
        let engine = RenderEngine()
        engine.install(try plan(inputChannels: driver.inputChannelCount, spec: driver.processSpec))
        var finalized = 0
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [] }, suspendProcess: {},
                                   reopen: { throw AudioFileError.cannotOpen(path: input, reason: "not reopened") })
        runner.finalizeRecording = { finalized += 1 }
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        let deadline = Date().addingTimeInterval(20)
        while !runner.isOver && Date() < deadline {
            runner.poll()
            usleep(2000)
        }
        XCTAssertEqual(runner.state, .stopped(.songEnded), "the end of the input ends the session cleanly")
        XCTAssertEqual(runner.state.exitStatus, 0)
        XCTAssertEqual(finalized, 1)
        runner.close()
        engine.releaseAll()
        XCTAssertTrue(driver.isClosed)
        XCTAssertEqual(driver.report?.renderThreadName, "audio-render")

        let a = try Data(contentsOf: URL(fileURLWithPath: direct))
        let b = try Data(contentsOf: URL(fileURLWithPath: viaRunner))
        XCTAssertGreaterThan(a.count, 48_000 * 3)
        XCTAssertEqual(a, b, "the same input through the same graph gives the same file, whoever drives the driver")
    }

    func testStoppingTheFileDriverMidwayLeavesNoPartialFile() throws {
        let input = try makeInput()
        let output = directory.appendingPathComponent("cut.wav").path
        let driver = try FileRenderDriver(options: FileRenderDriver.Options(inputPath: input, outputPath: output))
        driver.outputChannelCount = 1
        let engine = RenderEngine()
        // 10 ms a block: the 48 blocks of the input take half a second, so the
        // signal the runner reads at its first poll finds the run going.
        let graph = AudioGraph(inputChannelCount: 1)
        let slow = graph.add(SlowNode(name: "slow"))
        try graph.connect(graph.input, to: slow)
        graph.output = slow
        engine.install(try graph.compile(spec: driver.processSpec))
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [.interrupt] }, suspendProcess: {},
                                   reopen: { throw AudioFileError.cannotOpen(path: input, reason: "not reopened") })
        runner.send(.userStart)
        XCTAssertTrue(driver.isRunning)
        runner.poll()
        XCTAssertEqual(runner.state, .stopped(.signal(.interrupt)))
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a render cut short leaves nothing behind")
        runner.close()
        engine.releaseAll()
    }
}

/// Passes its input through, 10 ms late per block: an offline render slow enough to catch midway.
final class SlowNode: AudioNode {
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        usleep(10_000)
        guard let input = inputs.connectedBus0 else { return output.clear() }
        output.copy(from: input)
    }
}
