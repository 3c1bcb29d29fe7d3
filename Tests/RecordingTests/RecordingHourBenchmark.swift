import CAllocationCounter
import Engine
import Foundation
import Recording
import RenderTestSupport
import XCTest

/// The hour benchmark (Tools/bench-record): an hour of 48 kHz stereo through
/// the tap and the writer into a 24-bit WAV, as fast as the disk takes it
/// (the tap's offline mode: the render thread waits for the writer instead
/// of dropping). It counts the render thread's allocations and samples the
/// process's resident memory from start to end. Skipped unless
/// BUSKER_BENCH_RECORD_SECONDS is set (the seconds of audio to record).
final class RecordingHourBenchmark: XCTestCase {
    func testAnHourOfRecording() throws {
        guard let text = ProcessInfo.processInfo.environment["BUSKER_BENCH_RECORD_SECONDS"], let seconds = Double(text), seconds > 0 else {
            throw XCTSkip("set BUSKER_BENCH_RECORD_SECONDS (Tools/bench-record) to run the recording benchmark")
        }
        let folder = ProcessInfo.processInfo.environment["BUSKER_BENCH_DIR"] ?? FileManager.default.temporaryDirectory.path
        let path = folder + "/busker-bench-record-\(getpid()).wav"
        defer { unlink(path) }
        let frames = 256
        let blocks = Int(seconds * 48000) / frames
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000, waitsForWriter: true)
        let engine = RenderEngine()
        engine.install(try passThroughPlan(tap: tap, inputChannels: 2, spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: frames)))
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav24, sampleRate: 48000)
        var rss: [Int] = []
        var lastSample = Date.distantPast
        let start = Date()
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: blocks, frames: frames, inputChannels: 2, outputChannels: 2, warmUpBlocks: 16, control: { _ in
            if Date().timeIntervalSince(lastSample) >= 0.5 {
                lastSample = Date()
                rss.append(Self.residentKiB())
            }
            usleep(2000)
        })
        rss.append(Self.residentKiB())
        let report = recorder.stop()
        let wall = Date().timeIntervalSince(start)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let audio = Double(report.frames) / 48000
        print(String(format: "bench-record: %.0f s of 48 kHz stereo (24-bit WAV, %.2f GB) in %.1f s = %.0f× real time", audio, Double(size) / 1e9, wall, audio / wall))
        print("bench-record: render thread (audio-render): \(counts)")
        print("bench-record: resident memory: start \(rss.first! / 1024) MB, end \(rss.last! / 1024) MB, max \(rss.max()! / 1024) MB (\(rss.count) samples)")
        print("bench-record: dropped frames \(report.droppedFrames), file frames \(report.frames), error \(report.error.map { "\($0)" } ?? "none")")
        XCTAssertNil(report.error)
        XCTAssertEqual(report.droppedFrames, 0)
        XCTAssertGreaterThanOrEqual(report.frames, blocks * frames)
        if busker_allocation_counting_supported() != 0 {
            XCTAssertEqual(counts.allocations, 0, "\(counts)")
            XCTAssertEqual(counts.frees, 0, "\(counts)")
        }
        // Flat: the writer's memory does not grow with the take (a few MB of slack for the allocator
        // and libebur128's loudness gating blocks, about 2 MB an hour).
        XCTAssertLessThan(rss.last! - rss.first!, 16 * 1024, "resident memory grew: \(rss.first!) → \(rss.last!) KiB")
        engine.releaseAll()
    }

    /// VmRSS of this process, in KiB.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        }
        return 0
    }
}
