import AudioFiles
import AudioFileTestSupport
import Engine
import Foundation
import XCTest

final class AudioFilesTests: XCTestCase {
    func testWriteThenReadRoundTripIsExactInFloat() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("x.wav").path
        let samples: [Float] = (0..<3000).map { Float(sin(Double($0) * 0.01)) * 0.7 }
        try writeFile(path, samples, rate: 44100, channels: 2)
        let reader = try SoundFileReader(path: path)
        XCTAssertEqual(reader.sampleRate, 44100)
        XCTAssertEqual(reader.channelCount, 2)
        XCTAssertEqual(reader.frameCount, 1500)
        XCTAssertEqual(try reader.readAll(), samples)
    }

    func testTruncatedWavIsRefusedWithItsFrameCounts() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("full.wav").path
        try writeFile(path, [Float](repeating: 0.25, count: 48000), rate: 48000, channels: 1, format: .s16)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = dir.appendingPathComponent("cut.wav").path
        // The samples start after the "data" chunk's id and size (the header holds a JUNK chunk
        // too: room for RF64's ds64, which a WAV under 4 GiB does not need).
        let dataStart = try XCTUnwrap(data.range(of: Data("data".utf8))).upperBound + 4
        try data.prefix(dataStart + 20000).write(to: URL(fileURLWithPath: cut))
        XCTAssertThrowsError(try SoundFileReader(path: cut)) { error in
            guard case let AudioFileError.truncated(_, declared, present) = error else {
                return XCTFail("expected truncated, got \(error)")
            }
            XCTAssertEqual(declared, 48000)
            XCTAssertEqual(present, 10000)
        }
    }

    /// A reader made from a descriptor reads the file that was opened, not
    /// what the path names later (a kit sample swapped for a FIFO after its
    /// check), and owns the descriptor: closed with the reader, and at once
    /// when the file is refused.
    func testAReaderFromADescriptorReadsTheFileOpenedAndClosesIt() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("kick.wav").path
        let samples: [Float] = (0..<960).map { Float(sin(Double($0) * 0.05)) * 0.5 }
        try writeFile(path, samples, rate: 48000, channels: 1)
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        // The path now names a FIFO: opening it by name would block with no writer.
        XCTAssertEqual(unlink(path), 0)
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        var reader: SoundFileReader? = try SoundFileReader(descriptor: descriptor, path: path)
        XCTAssertEqual(reader?.frameCount, 960)
        XCTAssertEqual(try reader?.readAll(), samples)
        XCTAssertEqual(reader?.path, path)
        XCTAssertNotEqual(fcntl(descriptor, F_GETFD), -1, "open while the reader lives")
        reader = nil
        XCTAssertEqual(fcntl(descriptor, F_GETFD), -1, "closed with the reader")

        let junk = dir.appendingPathComponent("junk.wav").path
        try Data("this is not audio at all, just words".utf8).write(to: URL(fileURLWithPath: junk))
        let junkDescriptor = open(junk, O_RDONLY | O_CLOEXEC)
        XCTAssertThrowsError(try SoundFileReader(descriptor: junkDescriptor, path: junk)) { error in
            guard case let AudioFileError.cannotOpen(named, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(named, junk)
        }
        XCTAssertEqual(fcntl(junkDescriptor, F_GETFD), -1, "closed when refused")
    }

    func testMissingAndNonAudioFilesGiveOneLineErrors() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertThrowsError(try SoundFileReader(path: dir.appendingPathComponent("nope.wav").path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("No such file"), text)
            XCTAssertFalse(text.contains("\n"))
        }
        let junk = dir.appendingPathComponent("junk.wav").path
        try Data("this is not audio at all, just words".utf8).write(to: URL(fileURLWithPath: junk))
        XCTAssertThrowsError(try SoundFileReader(path: junk)) { error in
            guard case AudioFileError.cannotOpen = error else { return XCTFail("\(error)") }
            XCTAssertFalse("\(error)".contains("\n"))
        }
    }

    func testResamplerKeepsFrequencyAndLevel() throws {
        // 1 kHz at 44.1 kHz → 48 kHz: the tone stays at 1 kHz and its level within 0.1 dB.
        let input: [Float] = (0..<44100).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44100)) }
        let resampler = try Resampler(fromRate: 44100, toRate: 48000, channelCount: 1)
        var output: [Float] = []
        try input.withUnsafeBufferPointer { p throws(AudioFileError) in
            try resampler.process(p.baseAddress!, frames: input.count, endOfInput: true) { q, n in
                output.append(contentsOf: UnsafeBufferPointer(start: q, count: n))
            }
        }
        XCTAssertEqual(Double(output.count), 48000, accuracy: 2)
        let middle = output[12000..<36000]
        let level = amplitude(of: 1000, in: middle, rate: 48000)
        XCTAssertEqual(20 * log10(level / 0.5), 0, accuracy: 0.1)
        // Nothing at the old-rate image: energy at 1.1 kHz is far below the tone.
        XCTAssertLessThan(amplitude(of: 1100, in: middle, rate: 48000), 1e-3)
    }
}
