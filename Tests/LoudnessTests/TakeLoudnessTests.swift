import AudioFiles
import CAllocationCounter
import Engine
import Foundation
import Loudness
import Recording
import RenderTestSupport
import XCTest

/// A take's loudness, measured by its writer thread: the EBU reference in a
/// take reads −23.0 LUFS in its report, its summary and its log, as `busker
/// analyze`'s reading of the file does; and recording with loudness on (and
/// the live tap next to it) allocates nothing on the render thread.
final class TakeLoudnessTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeWorkFolder("busker-loudness").path }

    override func tearDownWithError() throws { removeWorkFolder(atPath: folder) }

    /// The reference sine → (live tap) → recording tap, rendered by `engine`.
    private func makeEngine(recordingTap: RecordingTap, loudnessTap: LoudnessTap) throws -> RenderEngine {
        let graph = AudioGraph(inputChannelCount: 0)
        let source = graph.add(SineSourceNode(frequency: 1000, amplitude: amplitude(dBFS: -23)))
        graph.output = try graph.chain(source, graph.add(loudnessTap))
        try recordingTap.install(atEndOf: graph)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 512)))
        return engine
    }

    /// 20 s of EBU Tech 3341 test 1 recorded offline: the report, the summary,
    /// the log (an xrun makes one) and the file read back all say −23.0 ± 0.1 LUFS.
    func testATakeOfTheEBUReferenceReadsMinus23LUFS() throws {
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000, waitsForWriter: true)
        let engine = try makeEngine(recordingTap: tap, loudnessTap: LoudnessTap())
        let path = folder + "/take.wav"
        var options = Recorder.Options()
        options.frameLimit = 48000 * 20
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav24, sampleRate: 48000, options: options)
        recorder.noteXrun(at: 48000)
        let output = AudioBuffer(channelCount: 2, capacity: 512)
        while !recorder.isComplete { engine.render(input: nil, output: output.block(frames: 512)) }
        let report = recorder.stop(audioHasStopped: true)
        engine.releaseAll()
        XCTAssertEqual(report.frames, 48000 * 20)
        let loudness = try XCTUnwrap(report.loudness)
        print("take: \(report.summary)")
        XCTAssertEqual(loudness.integratedLUFS, -23, accuracy: 0.1)
        XCTAssertEqual(loudness.truePeakDBTP, -23, accuracy: 0.1, "a 1 kHz sine's true peak is its peak")
        XCTAssertEqual(loudness.seconds, 20, accuracy: 1e-9)
        XCTAssertTrue(report.summary.contains("; -23.0 LUFS integrated, range 0.0 LU, true peak -23.0 dBTP"), report.summary)
        let log = try String(contentsOfFile: try XCTUnwrap(report.logPath), encoding: .utf8)
        XCTAssertTrue(log.contains("1 xrun(s); loudness -23.0 LUFS integrated"), log)
        let file = try LoudnessReport.measure(path: path)
        XCTAssertEqual(file.report.integratedLUFS, loudness.integratedLUFS, accuracy: 0.01, "the file holds what the writer measured")
    }

    /// A take without `measuresLoudness` reports none and its summary says nothing of it.
    func testLoudnessCanBeLeftOut() throws {
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000, waitsForWriter: true)
        let engine = try makeEngine(recordingTap: tap, loudnessTap: LoudnessTap())
        var options = Recorder.Options()
        options.frameLimit = 4800
        options.measuresLoudness = false
        let recorder = try Recorder.start(tap: tap, path: folder + "/plain.wav", format: .wav24, sampleRate: 48000, options: options)
        let output = AudioBuffer(channelCount: 2, capacity: 512)
        while !recorder.isComplete { engine.render(input: nil, output: output.block(frames: 512)) }
        let report = recorder.stop(audioHasStopped: true)
        engine.releaseAll()
        XCTAssertNil(report.loudness)
        XCTAssertFalse(report.summary.contains("LUFS"), report.summary)
    }

    /// A take being written and measured, the live tap drained by the control
    /// thread: nothing allocated or freed on the render thread; the take reads
    /// the reference's −23 LUFS. The harness renders faster than real time, so
    /// both rings hold all 5 s.
    func testRecordingWithLoudnessOnDoesNotAllocateOnTheRenderThread() throws {
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000, ringSeconds: 6)
        let loudnessTap = LoudnessTap(ringSamples: 48000 * 2 * 6)
        let engine = try makeEngine(recordingTap: tap, loudnessTap: loudnessTap)
        let live = ShortTermLoudness(tap: loudnessTap)
        live.update()
        let recorder = try Recorder.start(tap: tap, path: folder + "/alloc.wav", format: .wav24, sampleRate: 48000)
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 48000 * 5 / 64, frames: 64, inputChannels: 0, outputChannels: 2) { _ in
            live.update()
            _ = recorder.status
            usleep(1000)
        }
        let report = recorder.stop()
        live.update()
        engine.releaseAll()
        XCTAssertNil(report.error)
        XCTAssertEqual(report.droppedFrames, 0)
        XCTAssertEqual(try XCTUnwrap(report.loudness).integratedLUFS, -23, accuracy: 0.1)
        XCTAssertEqual(try XCTUnwrap(live.shortTermLUFS), -23, accuracy: 0.1)
    }

    /// The harness catches an allocation made next to the recording and loudness taps.
    func testNegativeControlAnAllocationNextToTheTapsIsCaught() throws {
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000)
        let engine = try makeEngine(recordingTap: tap, loudnessTap: LoudnessTap())
        let recorder = try Recorder.start(tap: tap, path: folder + "/control.wav", format: .wav24, sampleRate: 48000)
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 100, frames: 64, inputChannels: 0, outputChannels: 2,
                                                    afterEachBlock: { block, _ in if block == 0 { takeAllocationSink = malloc(16) } })
        free(takeAllocationSink)
        recorder.stop()
        engine.releaseAll()
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting unavailable")
        XCTAssertGreaterThanOrEqual(counts.allocations, 1, "\(counts)")
    }
}

/// Where the negative control's allocation goes, so the optimizer cannot remove it.
nonisolated(unsafe) private var takeAllocationSink: UnsafeMutableRawPointer?
