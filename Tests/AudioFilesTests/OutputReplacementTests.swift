import AudioFiles
import Foundation
import XCTest

/// An output the user named is written beside it and renamed over it only
/// when complete (`OutputReplacement`); a WAV is RF64 past 4 GiB and plain
/// RIFF below (`SoundFileWriter`).
final class OutputReplacementTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-replace-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func testCommitReplacesTheFileAndDiscardLeavesItAsItWas() throws {
        let target = folder + "/song.wav"
        try Data("old take".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o640)
        let kept = try OutputReplacement(target: target)
        XCTAssertTrue(kept.replacesExistingFile)
        XCTAssertTrue(kept.writesTemporary)
        XCTAssertEqual((kept.writePath as NSString).deletingLastPathComponent, folder, "the temporary is in the same folder")
        try Data("half a new one".utf8).write(to: URL(fileURLWithPath: kept.writePath))
        kept.discard()
        XCTAssertEqual(try bytes(target), Data("old take".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["song.wav"])
        XCTAssertEqual(kept.keptNote, "\(target) was left as it was")

        let replaced = try OutputReplacement(target: target)
        try Data("the new one".utf8).write(to: URL(fileURLWithPath: replaced.writePath))
        try replaced.commit()
        XCTAssertEqual(try bytes(target), Data("the new one".utf8))
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int), 0o640,
                       "the new file has the old one's permissions")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["song.wav"])
    }

    func testANewFileIsCreatedOnlyByTheCommit() throws {
        let target = folder + "/new.wav"
        let replacement = try OutputReplacement(target: target)
        XCTAssertFalse(replacement.replacesExistingFile)
        XCTAssertEqual(replacement.keptNote, "\(target) was not written")
        try Data("new".utf8).write(to: URL(fileURLWithPath: replacement.writePath))
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))
        try replacement.commit()
        XCTAssertEqual(try bytes(target), Data("new".utf8))
    }

    func testASymbolicLinkKeepsPointingAtTheReplacedFile() throws {
        let real = folder + "/real.wav", link = folder + "/link.wav"
        try Data("old".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let replacement = try OutputReplacement(target: link)
        try Data("new".utf8).write(to: URL(fileURLWithPath: replacement.writePath))
        try replacement.commit()
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), real)
        XCTAssertEqual(try bytes(real), Data("new".utf8))
    }

    func testADeviceIsWrittenDirectlyAndAFolderOrAReadOnlyFileIsRefused() throws {
        let device = try OutputReplacement(target: "/dev/null")
        XCTAssertFalse(device.writesTemporary, "/dev/null cannot be renamed over")
        XCTAssertEqual(device.writePath, "/dev/null")
        device.discard()
        XCTAssertTrue(FileManager.default.fileExists(atPath: "/dev/null"))

        XCTAssertThrowsError(try OutputReplacement(target: folder)) { error in
            XCTAssertEqual("\(error)", "cannot open '\(folder)': is a directory")
        }
        let readOnly = folder + "/locked.wav"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: readOnly))
        chmod(readOnly, 0o444)
        if getuid() != 0 {
            // root may write any file, so the refusal is the file mode's only for other users.
            XCTAssertThrowsError(try OutputReplacement(target: readOnly)) { error in
                XCTAssertEqual("\(error)", "cannot open '\(readOnly)': Permission denied")
            }
        }
    }

    // MARK: RF64

    /// A short WAV closes as plain RIFF (libsndfile's RF64 auto-downgrade),
    /// readable with its frames intact.
    func testAShortWAVIsPlainRIFF() throws {
        let path = folder + "/short.wav"
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, channelCount: 2, sampleFormat: .s16)
        let samples = (0..<9600).map { Float($0 % 100) / 200 }
        try writer.write(interleaved: samples)
        try writer.close()
        let data = try bytes(path)
        XCTAssertEqual(String(decoding: data.prefix(4), as: UTF8.self), "RIFF")
        XCTAssertEqual(String(decoding: data[8..<12], as: UTF8.self), "WAVE")
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.frameCount, 4800)
        XCTAssertEqual(reader.channelCount, 2)
        let riffSize = data[4..<8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        XCTAssertEqual(riffSize, data.count - 8, "the RIFF size matches the file")
    }

    /// A WAV past 4 GiB is RF64 and reads to its end. Writes 4.1 GB, so it
    /// runs only with BUSKER_LONG_TESTS=1.
    func testAWAVPastFourGiBIsRF64() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["BUSKER_LONG_TESTS"] == "1",
                          "writes 4.1 GB: set BUSKER_LONG_TESTS=1 to run it")
        let path = folder + "/long.wav"
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, channelCount: 1, sampleFormat: .s16)
        let chunk = [Float](repeating: 0.25, count: 1 << 20)
        let frames = (Int64(1) << 31) + (Int64(1) << 20)   // 4 GiB + 2 MiB of 16-bit mono
        for _ in 0..<(frames >> 20) { try writer.write(interleaved: chunk) }
        try writer.close()
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 4) ?? Data()
        XCTAssertEqual(String(decoding: head, as: UTF8.self), "RF64")
        XCTAssertEqual(try SoundFileReader(path: path).frameCount, frames)
    }
}
