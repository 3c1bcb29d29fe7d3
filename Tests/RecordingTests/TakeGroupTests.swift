import Engine
import Foundation
import Recording
import XCTest

/// A master and a stem on one switch end together when either fails to write.
final class TakeGroupTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("group") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// One file of the take hits a full disk after 128 frames (its call table);
    /// the group reports that one as failed, and once stopped the other
    /// file's report says its take ended because of it.
    func testAFailedFileEndsTheWholeTakeAndTheOthersSaySo() throws {
        for stemFails in [true, false] {
            let recordSwitch = RecordingSwitch()
            let graph = AudioGraph(inputChannelCount: 1)
            let stemTap = RecordingTap(name: "stem", channelCount: 1, sampleRate: 48000, recordSwitch: recordSwitch)
            let masterTap = RecordingTap(name: "master", channelCount: 1, sampleRate: 48000, recordSwitch: recordSwitch)
            let stemID = graph.add(stemTap)
            try graph.connect(graph.input, to: stemID)
            graph.output = stemID
            try masterTap.install(atEndOf: graph)
            let engine = RenderEngine()
            engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
            var stemOptions = Recorder.Options(), masterOptions = Recorder.Options()
            stemOptions.startsTake = false
            if stemFails { stemOptions.calls = .fullDisk(afterFrames: 128) } else { masterOptions.calls = .fullDisk(afterFrames: 128) }
            let stem = try Recorder.start(tap: stemTap, path: folder + "/take-\(stemFails)-mic.wav", format: .wav16, sampleRate: 48000, options: stemOptions)
            let master = try Recorder.start(tap: masterTap, path: folder + "/take-\(stemFails).wav", format: .wav16, sampleRate: 48000, options: masterOptions)
            let group = TakeGroup(master: master, stems: [stem])
            let input = AudioBuffer(channelCount: 1, capacity: 64), output = AudioBuffer(channelCount: 1, capacity: 64)
            for i in 0..<64 { input[0][i] = 0.25 }
            for _ in 0..<10 { engine.render(input: input.block(frames: 64), output: output.block(frames: 64)) }
            // The writers fail when they reach frame 128; wait for it (bounded).
            let culprit = stemFails ? stem : master
            let deadline = Date().addingTimeInterval(20)
            while !culprit.hasFailed && Date() < deadline { usleep(5000) }
            XCTAssertTrue(group.failed === culprit, "stem fails: \(stemFails)")
            let reports = group.stop(audioHasStopped: true)
            XCTAssertEqual(reports.map(\.path), [master.path, stem.path])
            let (failedReport, otherReport) = stemFails ? (reports[1], reports[0]) : (reports[0], reports[1])
            XCTAssertNotNil(failedReport.error)
            XCTAssertNil(failedReport.endedBy)
            XCTAssertNil(otherReport.error)
            XCTAssertEqual(otherReport.endedBy, "its \(stemFails ? "stem" : "master") \(culprit.path) failed")
            XCTAssertTrue(otherReport.summary.contains("ENDED EARLY: its"), otherReport.summary)
            XCTAssertEqual(failedReport.frames, 128)
            engine.releaseAll()
        }
    }
}
