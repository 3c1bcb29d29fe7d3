import Foundation
import OfflineDrivers
import Recording
import XCTest

/// What the tap and the writer put in the file, through the offline file
/// driver (the same render engine and threads as a live session).
final class RecordingCaptureTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("capture") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// Renders `input` through input → tap (the output) with a take armed
    /// before the first block; returns the driver's report and the take's.
    private func record(input: String, output: String, take: String, format: RecordingFormat, block: Int,
                        options: Recorder.Options = Recorder.Options(), ringSeconds: Double = 4,
                        afterRun: () -> Void = {}) throws -> (FileRenderDriver.Report, TakeReport) {
        var driverOptions = FileRenderDriver.Options(inputPath: input, outputPath: output)
        driverOptions.blockSize = block
        driverOptions.sampleFormat = .f32
        let driver = try FileRenderDriver(options: driverOptions)
        var recorder: Recorder?
        let report = try driver.run { channels, spec in
            let tap = RecordingTap(channelCount: channels, sampleRate: spec.sampleRate, ringSeconds: ringSeconds)
            let plan = try passThroughPlan(tap: tap, inputChannels: channels, spec: spec)
            recorder = try Recorder.start(tap: tap, path: take, format: format, sampleRate: Int(spec.sampleRate), options: options)
            return (plan, 0)
        }
        afterRun()
        let take = try XCTUnwrap(recorder).stop(audioHasStopped: true)
        return (report, take)
    }

    func testTheRecordedSamplesAreTheRenderedSamplesFromTheFirstFrame() throws {
        let frames = 100_003
        let signal = knownSignal(frames: frames)
        let input = folder + "/in.wav", output = folder + "/out.wav", take = folder + "/take.wav"
        try writeFloatWAV(signal, channels: 2, to: input)
        // 333-frame blocks: the take must not depend on how the driver cuts the stream.
        let (report, takeReport) = try record(input: input, output: output, take: take, format: .wavFloat, block: 333)
        // The driver renders a quiet tail after the input (50 ms of silence): the tap records it too.
        let total = Int(report.outputFrames)
        XCTAssertGreaterThan(total, frames)
        XCTAssertNil(takeReport.error)
        XCTAssertEqual(takeReport.frames, total)
        XCTAssertEqual(takeReport.droppedFrames, 0)
        XCTAssertNil(takeReport.logPath, "nothing was lost, so the summary points at no log")
        let log = try String(contentsOfFile: take + ".log", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(log.count, 2, "the heading and the summary, no loss: \(log)")
        XCTAssertTrue(log.last?.hasPrefix("summary: \(total) frames in the file, 0 dropped in 0 gap(s), 0 xrun(s); loudness ") ?? false,
                      "\(log)")
        let rendered = try readSoundFile(output), recorded = try readSoundFile(take)
        XCTAssertEqual(recorded.frames, total)
        XCTAssertEqual(recorded.channels, 2)
        XCTAssertEqual(recorded.rate, 48000)
        XCTAssertEqual(recorded.samples.count, rendered.samples.count)
        let firstDifference = recorded.samples.indices.first { recorded.samples[$0] != rendered.samples[$0] }
        XCTAssertNil(firstDifference, "recorded and rendered differ at sample \(firstDifference ?? -1)")
        XCTAssertEqual(Array(recorded.samples.prefix(frames * 2)), signal, "the float take is bit-exact with the source")
        XCTAssertTrue(recorded.samples.dropFirst(frames * 2).allSatisfy { $0 == 0 }, "then the silent tail")
    }

    func testA24BitTakeHoldsTheSamplesTo24Bits() throws {
        let frames = 48_000
        let signal = knownSignal(frames: frames)
        let input = folder + "/in.wav", output = folder + "/out.wav", take = folder + "/take24.wav"
        try writeFloatWAV(signal, channels: 2, to: input)
        let (report, takeReport) = try record(input: input, output: output, take: take, format: .wav24, block: 1024)
        XCTAssertEqual(takeReport.frames, Int(report.outputFrames))
        let recorded = try readSoundFile(take)
        XCTAssertEqual(recorded.frames, Int(report.outputFrames))
        let worst = zip(recorded.samples, signal).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThanOrEqual(worst, 1.0 / 8_388_608 + 1e-9, "24-bit quantization only")
        // The bytes say 24-bit PCM in a RIFF WAVE (RF64 auto-downgraded).
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: take)).prefix(64))
        XCTAssertEqual(String(decoding: bytes[0..<4], as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: bytes[8..<12], as: UTF8.self), "WAVE")
    }

    func testEveryFormatWritesAFileLibsndfileReadsBack() throws {
        let frames = 24_000
        let signal = knownSignal(frames: frames)
        let input = folder + "/in.wav"
        try writeFloatWAV(signal, channels: 2, to: input)
        for format in RecordingFormat.allCases {
            let take = folder + "/take-\(format.rawValue).\(format.fileExtension)"
            let (driven, report) = try record(input: input, output: folder + "/out-\(format.rawValue).wav", take: take, format: format, block: 512)
            XCTAssertNil(report.error, "\(format)")
            var recorded = try readSoundFile(take)
            XCTAssertEqual(recorded.frames, Int(driven.outputFrames), "\(format)")
            recorded.samples = Array(recorded.samples.prefix(frames * 2))
            XCTAssertEqual(recorded.channels, 2, "\(format)")
            let tolerance: Float = format == .ogg ? 0.2 : format == .wav16 ? 1.0 / 32768 + 1e-6 : 1.0 / 8_388_608 + 1e-9
            if format != .ogg {
                let worst = zip(recorded.samples, signal).map { abs($0 - $1) }.max() ?? 1
                XCTAssertLessThanOrEqual(worst, tolerance, "\(format)")
            } else {
                // Lossy: the level is kept (RMS within 1 dB).
                let rms = { (x: [Float]) in sqrt(x.reduce(0) { $0 + $1 * $1 } / Float(x.count)) }
                XCTAssertEqual(20 * log10(rms(recorded.samples) / rms(signal)), 0, accuracy: 1)
            }
        }
    }

    /// The writer waits (a slow disk) until the render has finished: the ring
    /// overflows; every dropped frame is counted, placed, logged, and replaced
    /// by silence, and everything else is exact.
    func testASlowedWriterOverflowsTheRingAndEveryDropIsCountedAndLogged() throws {
        let frames = 48_000 * 3
        let signal = knownSignal(frames: frames)
        let input = folder + "/in.wav", output = folder + "/out.wav", take = folder + "/slow.wav"
        try writeFloatWAV(signal, channels: 2, to: input)
        let gate = DispatchSemaphore(value: 0)
        var options = Recorder.Options()
        options.calls = .slowDisk(gate: gate)
        // The smallest ring: 4096 frames.
        let (report, takeReport) = try record(input: input, output: output, take: take, format: .wavFloat, block: 256,
                                              options: options, ringSeconds: 0.01, afterRun: { gate.signal() })
        let total = Int(report.outputFrames)
        XCTAssertGreaterThan(total, frames, "the audio went on to the end")
        XCTAssertNil(takeReport.error)
        XCTAssertGreaterThan(takeReport.droppedFrames, 0)
        XCTAssertGreaterThanOrEqual(takeReport.droppedFrames, total - 4096 - 4096, "at most a ring and a chunk got through")
        XCTAssertEqual(takeReport.gaps.reduce(0) { $0 + $1.count }, takeReport.droppedFrames, "every dropped frame is in a gap")
        XCTAssertEqual(takeReport.frames, total, "the take keeps its length: silence where frames were dropped")
        let recorded = try readSoundFile(take)
        XCTAssertEqual(recorded.frames, total)
        var inGap = [Bool](repeating: false, count: total)
        for gap in takeReport.gaps { for i in gap.start..<(gap.start + gap.count) { inGap[i] = true } }
        var wrong = 0
        for i in 0..<total {
            for c in 0..<2 {
                let expected: Float = inGap[i] || i >= frames ? 0 : signal[i * 2 + c]
                if recorded.samples[i * 2 + c] != expected { wrong += 1 }
            }
        }
        XCTAssertEqual(wrong, 0, "frames outside the gaps are exact, gaps are silent")
        // The sidecar log lists each gap at its frame.
        let logPath = try XCTUnwrap(takeReport.logPath)
        XCTAssertEqual(logPath, take + ".log")
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        for gap in takeReport.gaps {
            XCTAssertTrue(log.contains("dropped \(gap.count) frames") && log.contains("(frame \(gap.start))"), log)
        }
        XCTAssertTrue(takeReport.summary.contains("DROPPED \(takeReport.droppedFrames) frames"), takeReport.summary)
    }

    /// A disk that fills after one second: the take stops with the reason, the
    /// render goes on to the end, and the file is valid with exactly what was written.
    func testAFullDiskStopsTheTakeNotTheAudio() throws {
        let frames = 48_000 * 3
        let signal = knownSignal(frames: frames)
        let input = folder + "/in.wav", output = folder + "/out.wav", take = folder + "/full.wav"
        try writeFloatWAV(signal, channels: 2, to: input)
        var options = Recorder.Options()
        options.calls = .fullDisk(afterFrames: 48_000 + 100)
        let (report, takeReport) = try record(input: input, output: output, take: take, format: .wav24, block: 512, options: options)
        XCTAssertGreaterThan(report.outputFrames, Int64(frames), "the audio went on to the end (and its tail)")
        XCTAssertEqual(try readSoundFile(output).frames, Int(report.outputFrames))
        let error = try XCTUnwrap(takeReport.error)
        XCTAssertTrue(error.description.contains("No space left on device"), error.description)
        XCTAssertTrue(error.description.contains(take), error.description)
        XCTAssertEqual(takeReport.frames, 48_100)
        let recorded = try readSoundFile(take)
        XCTAssertEqual(recorded.frames, 48_100, "the header matches the data written")
        let worst = zip(recorded.samples, signal.prefix(48_100 * 2)).map { abs($0 - $1) }.max() ?? 1
        XCTAssertLessThanOrEqual(worst, 1.0 / 8_388_608 + 1e-9)
        let log = try String(contentsOfFile: try XCTUnwrap(takeReport.logPath), encoding: .utf8)
        XCTAssertTrue(log.contains("recording stopped at 1.002 s (frame 48100)"), log)
    }
}
