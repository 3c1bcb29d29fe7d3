import AudioFiles
import CSndFile
import Engine
import Foundation
import Recording
import XCTest

/// The file is playable while the take is running (the header is kept current),
/// and `WAVRepair` fixes files cut short.
final class CrashSafetyTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("crash") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// Frames libsndfile sees in `path` right now.
    private func framesOnDisk(_ path: String) -> Int {
        var info = SF_INFO()
        guard let h = sf_open(path, Int32(SFM_READ), &info) else { return -1 }
        sf_close(h)
        return Int(info.frames)
    }

    func testTheHeaderIsCurrentWhileTheTakeRuns() throws {
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000)
        let engine = RenderEngine()
        let spec = ProcessSpec(sampleRate: 48000, maximumBlockSize: 480)
        engine.install(try passThroughPlan(tap: tap, inputChannels: 2, spec: spec))
        let path = folder + "/live.wav"
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav24, sampleRate: 48000)
        defer { recorder.stop() }
        let input = AudioBuffer(channelCount: 2, capacity: 480), output = AudioBuffer(channelCount: 2, capacity: 480)
        for i in 0..<480 { input[0][i] = 0.5; input[1][i] = -0.5 }
        // One second of audio, rendered on this thread (the tap's one producer).
        for _ in 0..<100 { engine.render(input: input.block(frames: 480), output: output.block(frames: 480)) }
        // Without stopping the take, the file on disk comes to say 48000 frames.
        let deadline = Date().addingTimeInterval(10)
        while framesOnDisk(path) < 48000 && Date() < deadline { usleep(20_000) }
        XCTAssertEqual(framesOnDisk(path), 48000, "libsndfile reads the whole second while recording goes on")
        XCTAssertEqual(recorder.status.state, .recording)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/soxi") {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/soxi")
            p.arguments = ["-s", path]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), "48000", "sox reads it too")
        }
        engine.releaseAll()
    }

    /// A take's file with its sizes zeroed (as a crash before the first
    /// header update leaves it) and half a frame more: repair restores
    /// every whole frame, bit for bit.
    func testRepairRestoresTheLengthFromTheFileSize() throws {
        for (channels, frames, format) in [(2, 1000, SampleFormat.s24), (1, 1001, .s24), (2, 777, .f32), (1, 333, .s16)] {
            let path = folder + "/cut-\(channels)-\(frames)-\(format).wav"
            let signal = knownSignal(frames: frames, channels: channels)
            let writer = try SoundFileWriter(path: path, sampleRate: 44100, channelCount: channels, sampleFormat: format)
            try writer.write(interleaved: signal)
            try writer.close()
            let original = try readSoundFile(path)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            // Zero the RIFF and data sizes, as in a header never updated.
            for i in 4..<8 { bytes[i] = 0 }
            let dataAt = try XCTUnwrap(findChunk("data", in: bytes))
            for i in (dataAt + 4)..<(dataAt + 8) { bytes[i] = 0 }
            // Drop any pad byte, then append half a frame (a write cut mid-frame).
            let blockAlign = channels * (format == .s16 ? 2 : format == .s24 ? 3 : 4)
            bytes = Array(bytes.prefix(dataAt + 8 + frames * blockAlign))
            bytes += [UInt8](repeating: 0x55, count: blockAlign - 1)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(framesOnDisk(path), 0, "cut short: the header says no frames")
            let result = try WAVRepair.repair(path: path)
            XCTAssertEqual(result.framesBefore, 0)
            XCTAssertEqual(result.framesAfter, frames, "\(channels) ch \(format)")
            // What was cut is what the file lost; after odd data the first extra byte stays, as the pad byte.
            let dataBytes0 = frames * blockAlign
            XCTAssertEqual(result.bytesCut, blockAlign - 1 - (dataBytes0 & 1), "\(channels) ch \(format): a pad byte is not cut")
            XCTAssertEqual(result.bytesCut, bytes.count - (dataAt + 8 + dataBytes0 + (dataBytes0 & 1)))
            let repaired = try readSoundFile(path)
            XCTAssertEqual(repaired.frames, frames)
            XCTAssertEqual(repaired.samples, original.samples, "\(channels) ch \(format): bit for bit")
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let dataBytes = frames * blockAlign
            XCTAssertEqual(size, dataAt + 8 + dataBytes + (dataBytes & 1), "odd data gets its pad byte")
            let repairedBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(le32(repairedBytes, 4), UInt32(size - 8))
            XCTAssertEqual(le32(repairedBytes, dataAt + 4), UInt32(dataBytes))
        }
    }

    /// A complete WAV with metadata after its audio (a LIST chunk, an odd-sized
    /// id3 chunk, as taggers write): its header is right, so repair leaves
    /// every byte as it was rather than count the metadata as audio.
    func testRepairLeavesACompleteWAVWithChunksAfterTheDataAlone() throws {
        for (channels, frames) in [(2, 1000), (1, 1001)] {
            let path = folder + "/tagged-\(channels)-\(frames).wav"
            let writer = try SoundFileWriter(path: path, sampleRate: 48000, channelCount: channels, sampleFormat: .s24)
            try writer.write(interleaved: knownSignal(frames: frames, channels: channels))
            try writer.close()
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let dataAt = try XCTUnwrap(findChunk("data", in: bytes))
            let dataBytes = frames * channels * 3
            bytes = Array(bytes.prefix(dataAt + 8 + dataBytes + (dataBytes & 1)))
            let info = Array("INFOINAM".utf8) + [0x06, 0, 0, 0] + Array("Busk!".utf8) + [0]
            bytes += Array("LIST".utf8) + le32Bytes(UInt32(info.count)) + info
            bytes += Array("id3 ".utf8) + le32Bytes(7) + [0x49, 0x44, 0x33, 4, 0, 0, 0] + [0]
            let riffSize = UInt32(bytes.count - 8)
            for i in 0..<4 { bytes[4 + i] = UInt8((riffSize >> (8 * UInt32(i))) & 0xFF) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(framesOnDisk(path), frames)

            let result = try WAVRepair.repair(path: path)
            XCTAssertTrue(result.wasLeftAlone)
            XCTAssertEqual(result.framesBefore, frames)
            XCTAssertEqual(result.framesAfter, frames, "the metadata is not audio")
            XCTAssertEqual(result.bytesCut, 0)
            XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), bytes, "every byte as it was")
        }
    }

    private func le32Bytes(_ x: UInt32) -> [UInt8] { (0..<4).map { UInt8((x >> (8 * UInt32($0))) & 0xFF) } }

    /// A recorder's RF64 take (a RIFF with the JUNK chunk kept for ds64) whose
    /// data passes 4 GiB (a sparse file): repair turns it into RF64 with the right ds64.
    func testRepairPromotesATakePast4GiBToRF64() throws {
        let path = folder + "/long.wav"
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000)
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav24, sampleRate: 48000)
        recorder.stop(audioHasStopped: true)
        let head = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssertEqual(String(decoding: head[0..<4], as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: head[12..<16], as: UTF8.self), "JUNK", "room kept for ds64")
        let dataAt = try XCTUnwrap(findChunk("data", in: head))
        let frames = 800_000_000  // 4.8 GB of 24-bit stereo
        guard truncate(path, off_t(dataAt + 8 + frames * 6)) == 0 else { throw XCTSkip("no sparse files here") }
        defer { unlink(path) }
        let result = try WAVRepair.repair(path: path)
        XCTAssertTrue(result.isRF64)
        XCTAssertEqual(result.framesAfter, frames)
        let fixed = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 64) ?? Data()
        let b = [UInt8](fixed)
        XCTAssertEqual(String(decoding: b[0..<4], as: UTF8.self), "RF64")
        XCTAssertEqual(String(decoding: b[12..<16], as: UTF8.self), "ds64")
        XCTAssertEqual(le64(b, 28), UInt64(frames * 6), "ds64 data size")
        XCTAssertEqual(le64(b, 36), UInt64(frames), "ds64 sample count")
        XCTAssertEqual(framesOnDisk(path), frames, "libsndfile reads it as RF64")
    }

    func testRepairRefusesWhatIsNotAWAV() throws {
        let path = folder + "/song.mid"
        try Data("MThd not a wav at all".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try WAVRepair.repair(path: path)) { error in
            XCTAssertEqual("\(error)", "cannot repair '\(path)': not a WAV file (no RIFF/RF64 WAVE header)")
        }
        XCTAssertThrowsError(try WAVRepair.repair(path: folder + "/missing.wav")) { error in
            XCTAssertTrue("\(error)".lowercased().contains("no such file"), "\(error)")
        }
    }

    private func findChunk(_ id: String, in bytes: [UInt8]) -> Int? {
        var offset = 12
        while offset + 8 <= bytes.count {
            if String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self) == id { return offset }
            let size = Int(le32(bytes, offset + 4))
            offset += 8 + size + (size & 1)
        }
        return nil
    }
    private func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
    private func le64(_ b: [UInt8], _ i: Int) -> UInt64 { UInt64(le32(b, i)) | UInt64(le32(b, i + 4)) << 32 }
}
