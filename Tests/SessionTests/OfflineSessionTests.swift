import AudioFiles
import Engine
import Foundation
import OfflineDrivers
import RenderTestSupport
import Session
import XCTest

/// The session runner on the offline file driver, through the same protocol
/// as a live one: it starts it, sees the input end, drains and finishes,
/// and the file it leaves is the one `FileRenderDriver.run` writes, byte for byte.
final class OfflineSessionTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws { directory = try makeWorkFolder("busker-offline-session") }

    override func tearDownWithError() throws { removeWorkFolder(directory) }

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

    /// A driver whose graph holds its first block until `gate` opens, so a
    /// stop or close finds the run going, whatever the machine's load.
    private func gatedDriver(input: String, output: String, gate: DispatchSemaphore) throws -> (FileRenderDriver, RenderEngine) {
        let driver = try FileRenderDriver(options: FileRenderDriver.Options(inputPath: input, outputPath: output))
        driver.outputChannelCount = 1
        let graph = AudioGraph(inputChannelCount: 1)
        let held = graph.add(GatedNode(name: "gated", gate: gate))
        try graph.connect(graph.input, to: held)
        graph.output = held
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: driver.processSpec))
        return (driver, engine)
    }

    func testStoppingTheFileDriverMidwayLeavesNoPartialFile() throws {
        let input = try makeInput()
        let output = directory.appendingPathComponent("cut.wav").path
        let gate = DispatchSemaphore(value: 0)
        let (driver, engine) = try gatedDriver(input: input, output: output, gate: gate)
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [.interrupt] }, suspendProcess: {},
                                   reopen: { throw AudioFileError.cannotOpen(path: input, reason: "not reopened") })
        runner.send(.userStart)
        XCTAssertTrue(driver.isRunning)
        // The run writes a temporary beside the output; the output itself appears only when the run completes.
        let temporaryPrefix = ".cut.wav.busker-"
        func temporaries() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix(temporaryPrefix) }
        }
        XCTAssertEqual(temporaries().count, 1, "the temporary is created when the run starts")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "the output appears only when the run completes")
        // The first block is held until after the signal is read; the stop joins the render thread, so open the gate meanwhile.
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { gate.signal() }
        runner.poll()
        XCTAssertEqual(runner.state, .stopped(.signal(.interrupt)))
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a render cut short leaves nothing behind")
        XCTAssertEqual(temporaries(), [], "nor a temporary")
        runner.close()
        engine.releaseAll()
    }

    func testClosingTheFileDriverMidwayLeavesNoPartialFileAndItRunsOnce() throws {
        let input = try makeInput()
        let output = directory.appendingPathComponent("closed.wav").path
        let gate = DispatchSemaphore(value: 0)
        let (driver, engine) = try gatedDriver(input: input, output: output, gate: gate)
        try driver.start(engine: engine)
        XCTAssertThrowsError(try driver.start(engine: engine)) { error in
            XCTAssertEqual(error as? OfflineRunError, .runsOnce(path: output), "an offline run reads its input once")
        }
        XCTAssertThrowsError(try driver.resumeAfterSuspend(engine: engine, timeoutMilliseconds: 0)) { error in
            XCTAssertEqual(error as? OfflineRunError, .notSuspended(path: output))
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { gate.signal() }
        driver.close()
        XCTAssertTrue(driver.isClosed)
        XCTAssertEqual(driver.stopReason, .requested)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        engine.releaseAll()
    }

    /// An input that turns out shorter than its header said (cut while the run
    /// reads it) ends the session with the file's own words, exit status 1,
    /// and no output file.
    func testAnInputCutShortWhileReadEndsTheSessionWithTheFilesError() throws {
        let input = try makeInput()
        let output = directory.appendingPathComponent("short.wav").path
        let driver = try FileRenderDriver(options: FileRenderDriver.Options(inputPath: input, outputPath: output))
        driver.outputChannelCount = 1
        // The driver has read the header (48017 frames); the file now holds a third of them.
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: input))
        let engine = RenderEngine()
        engine.install(try plan(inputChannels: 1, spec: driver.processSpec))
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: SessionPolicy(headless: true),
                                   watcher: nil, takeSignals: { [] }, suspendProcess: {},
                                   reopen: { throw AudioFileError.cannotOpen(path: input, reason: "not reopened") })
        runner.send(.userStart)
        let deadline = Date().addingTimeInterval(20)
        while !runner.isOver && Date() < deadline {
            runner.poll()
            usleep(2000)
        }
        guard case let .stopped(.error(what)) = runner.state else { return XCTFail("\(runner.state)") }
        XCTAssertTrue(what.contains("input 'file:\(input)'"), what)
        XCTAssertTrue(what.contains("is truncated"), "the file's own error, not only an errno: \(what)")
        XCTAssertEqual(runner.state.exitStatus, 1)
        runner.close()
        engine.releaseAll()
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "a failed run leaves no output")
        XCTAssertEqual(driver.stopReason, .ioError(.capture, code: -EIO))
    }
}

/// Passes its input through, holding its first block until `gate` opens.
final class GatedNode: AudioNode {
    private let gate: DispatchSemaphore
    private var opened = false

    init(name: String, gate: DispatchSemaphore) {
        self.gate = gate
        super.init(name: name)
    }

    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        if !opened {
            gate.wait()
            opened = true
        }
        guard let input = inputs.connectedBus0 else { return output.clear() }
        output.copy(from: input)
    }
}
