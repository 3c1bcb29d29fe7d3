import Engine
import Foundation
import Recording
import XCTest

/// Xruns reach the take's sidecar log with their positions.
final class TakeLogTests: XCTestCase {
    func testXrunsAreLoggedWithTheirPositions() throws {
        let folder = try makeTemporaryFolder("log")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000)
        let engine = RenderEngine()
        engine.install(try passThroughPlan(tap: tap, inputChannels: 2, spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 480)))
        let path = folder + "/x.wav"
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav16, sampleRate: 48000)
        let output = AudioBuffer(channelCount: 2, capacity: 480)
        for _ in 0..<10 { engine.render(input: nil, output: output.block(frames: 480)) }
        recorder.noteXrun(at: 1234)
        recorder.followXruns(total: 5)   // the driver's count when following starts: a baseline, not xruns
        recorder.followXruns(total: 7)   // two more: logged where the take is now (frame 4800)
        XCTAssertEqual(recorder.status.xruns, 3)
        let report = recorder.stop(audioHasStopped: true)
        XCTAssertEqual(report.xrunFrames, [1234, 4800, 4800])
        XCTAssertEqual(report.frames, 4800)
        let log = try String(contentsOfFile: try XCTUnwrap(report.logPath), encoding: .utf8)
        XCTAssertTrue(log.contains("xrun at 0.026 s (frame 1234)"), log)
        XCTAssertEqual(log.components(separatedBy: "xrun at 0.100 s (frame 4800)").count - 1, 2, log)
        XCTAssertTrue(log.contains("summary: 4800 frames in the file, 0 dropped in 0 gap(s), 3 xrun(s)"), log)
        engine.releaseAll()
    }
}
