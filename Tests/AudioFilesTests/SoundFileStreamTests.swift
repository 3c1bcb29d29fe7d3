#if canImport(Glibc)
import Glibc
#endif
import AudioFiles
import AudioFileTestSupport
import CSndFile
import Engine
import Foundation
import XCTest

/// The backing track's stream: what it refuses (one typed error naming the
/// file), what it plays of a file cut short, and how it makes stereo.
final class SoundFileStreamTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try temporaryDirectory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Every kind of bad file: one `AudioFileError`, one line, the file's name in it.
    func testBadFilesAreRefusedWithOneLineNamingTheFile() throws {
        let missing = path("missing.wav")
        let text = path("words.wav")
        try Data("this is not audio, just words in a file".utf8).write(to: URL(fileURLWithPath: text))
        let folder = path("folder.wav")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let fifo = path("fifo.wav")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let nine = path("nine.wav")
        try writeFile(nine, [Float](repeating: 0.1, count: 9 * 100), rate: 48_000, channels: 9)
        let noChannels = path("nochannels.wav")
        try wavHeader(channels: 0, rate: 48_000).write(to: URL(fileURLWithPath: noChannels))
        let noRate = path("norate.wav")
        try wavHeader(channels: 2, rate: 0).write(to: URL(fileURLWithPath: noRate))
        let empty = path("empty.wav")
        try SoundFileWriter(path: empty, sampleRate: 48_000, channelCount: 2).close()
        let cases: [(String, String)] = [
            (missing, "No such file"), (text, "Format not recognised"), (folder, "is a directory"), (fifo, "is a FIFO"),
            (nine, "9 channels; a backing track has 1 to 8"), (noChannels, "Channel count is zero"),
            (noRate, "its header gives no sample rate or no channels"), (empty, "holds no audio"),
        ]
        for (file, words) in cases {
            // A FIFO would block an open for reading until a writer came: the
            // stream must refuse it without opening it (else this test hangs).
            XCTAssertThrowsError(try SoundFileStream(path: file, sampleRate: 48_000)) { error in
                XCTAssertTrue(error is AudioFileError, "\(type(of: error))")
                let line = "\(error)"
                XCTAssertTrue(line.contains(file), "names the file: \(line)")
                XCTAssertTrue(line.contains(words), "says '\(words)': \(line)")
                XCTAssertFalse(line.contains("\n"), line)
                print("refused: \(line)")
            }
        }
    }

    /// A file whose header promises 48,000 frames but holds 10,000: the
    /// stream plays the 10,000 and ends.
    func testAFileCutShortPlaysWhatIsThere() throws {
        let full = path("full.wav")
        let samples = (0..<48_000).map { Float($0 % 1000) / 2000 }
        try writeFile(full, samples, rate: 48_000, channels: 1, format: .s16)
        let data = try Data(contentsOf: URL(fileURLWithPath: full))
        let dataStart = try XCTUnwrap(data.range(of: Data("data".utf8))).upperBound + 4
        let cut = path("cut.wav")
        try data.prefix(dataStart + 20_000).write(to: URL(fileURLWithPath: cut))
        let stream = try SoundFileStream(path: cut, sampleRate: 48_000)
        let played = readToTheEnd(stream)
        XCTAssertEqual(played.count / 2, 10_000)
        XCTAssertEqual(stream.endedGeneration, 0)
        // Mono, played on both sides: left and right are the file's samples.
        for i in stride(from: 0, to: 10_000, by: 997) {
            XCTAssertEqual(played[2 * i], samples[i], accuracy: 1.0 / 32_768)
            XCTAssertEqual(played[2 * i + 1], played[2 * i])
        }
    }

    /// A 4-channel file plays its first two channels; NaN, Inf and absurd
    /// samples are played as 0 and counted.
    func testMoreChannelsPlayTheFirstTwoAndDamageIsSilenced() throws {
        let file = path("quad.wav")
        var samples: [Float] = []
        for i in 0..<1_000 { samples += [0.1, -0.2, 0.3, 0.4].map { $0 * Float(i % 7) } }
        samples[4 * 500] = .nan
        samples[4 * 501 + 1] = .infinity
        samples[4 * 502] = 1e30
        try writeFile(file, samples, rate: 48_000, channels: 4)
        let stream = try SoundFileStream(path: file, sampleRate: 48_000)
        let played = readToTheEnd(stream)
        XCTAssertEqual(played.count, 2_000)
        XCTAssertEqual(played[2 * 3], samples[4 * 3])
        XCTAssertEqual(played[2 * 3 + 1], samples[4 * 3 + 1])
        XCTAssertEqual([played[1_000], played[1_003], played[1_004]], [0, 0, 0])
        XCTAssertEqual(stream.repairedSampleCount, 3)
    }

    /// An MP3 (libsndfile 1.2.0 reads and writes MPEG Layer III through
    /// mpg123 and LAME): 2 s of 1 kHz at 44.1 kHz, streamed at 48 kHz, is
    /// 96,000 frames (one either way: the resampler rounds) of 1 kHz.
    func testAnMP3StreamsAtTheSessionsRate() throws {
        let file = path("tone.mp3")
        var info = SF_INFO()
        info.samplerate = 44_100
        info.channels = 2
        info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        let handle = try XCTUnwrap(sf_open(file, Int32(SFM_WRITE), &info), String(cString: sf_strerror(nil)))
        var tone = [Float](repeating: 0, count: 2 * 88_200)
        for i in 0..<88_200 { tone[2 * i] = Float(0.5 * sin(2 * Double.pi * 1_000 * Double(i) / 44_100)); tone[2 * i + 1] = tone[2 * i] }
        XCTAssertEqual(sf_writef_float(handle, tone, 88_200), 88_200)
        sf_close(handle)
        let stream = try SoundFileStream(path: file, sampleRate: 48_000)
        let played = readToTheEnd(stream)
        XCTAssertEqual(Double(played.count / 2), 96_000, accuracy: 1)
        let left = stride(from: 0, to: played.count, by: 2).map { played[$0] }
        // Whole periods of 1 kHz at 48 kHz in the steady middle: the tone at
        // its level less MP3's loss (a few %), nothing at the 1088 Hz that
        // 44.1 kHz frames played at 48 kHz would sound.
        XCTAssertEqual(amplitude(of: 1_000, in: left[24_000..<72_000], rate: 48_000), 0.5, accuracy: 0.025)
        XCTAssertLessThan(amplitude(of: 1_088.4, in: left[24_000..<72_000], rate: 48_000), 0.01)
    }

    // MARK: Helpers

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// Reads the stream on this thread (its one consumer) until its end.
    private func readToTheEnd(_ stream: SoundFileStream) -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 2 * 512)
        let deadline = Date().addingTimeInterval(10)
        while stream.endedGeneration != 0 && Date() < deadline {
            let got = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, frames: 512) }
            out += buffer[0..<(2 * got)]
            if got == 0 { usleep(1_000) }
        }
        return out
    }

    /// A 16-bit PCM WAV header with the given fields and 400 bytes of data.
    private func wavHeader(channels: UInt16, rate: UInt32) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + 400)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(channels); append(rate)
        append(rate * UInt32(channels) * 2); append(UInt16(channels) * 2); append(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); append(UInt32(400))
        data.append(Data(repeating: 0x10, count: 400))
        return data
    }
}
