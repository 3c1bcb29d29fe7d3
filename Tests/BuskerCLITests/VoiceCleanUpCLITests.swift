import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker live` on files with the voice clean-up flags: the same flags as on
/// devices, the output still aligned with the input, bad values one-line errors.
final class VoiceCleanUpCLITests: XCTestCase {
    private var work: URL!
    private let voice = "/usr/share/sounds/alsa/Front_Center.wav"

    override func setUpWithError() throws { work = try makeWorkFolder("busker-cleanup") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func left(_ file: String) throws -> [Float] {
        let reader = try SoundFileReader(path: file)
        let all = try reader.readAll()
        return stride(from: 0, to: all.count, by: reader.channelCount).map { all[$0] }
    }

    /// Every clean-up stage on: the file driver removes the chain's latency
    /// (voice processing's 10.7 ms and the limiter's 1 ms), so the voice comes out
    /// where it went in (the cross-correlation peaks at lag 0).
    func testEverythingOnKeepsTheOutputAligned() throws {
        let out = path("clean.wav")
        let r = try runBusker(["live", "--input", "file:" + voice, "--output", "file:" + out, "--format", "f32",
                               "--voice-processing", "--gate", "--gate-threshold", "-45", "--compressor", "--makeup", "8"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "nothing on stderr")
        let input = try left(voice), output = try left(out)
        var best = -Double.infinity, bestLag = Int.min
        for lag in -1500...1500 {
            var dot = 0.0
            for i in 2000..<(input.count - 2000) { dot += Double(input[i] * output[i + lag]) }
            if dot > best { best = dot; bestLag = lag }
        }
        XCTAssertEqual(bestLag, 0)
    }

    /// The compressor's make-up raises a steady tone below the knee by exactly its amount.
    func testMakeupGainRaisesTheLevel() throws {
        // A 1 kHz tone at −46 dBFS RMS: under the compressor's knee, over the gate's −50 dB threshold.
        let input = path("tone.wav")
        let frames = 48_000
        let amplitude = Float(pow(10, -46.0 / 20) * 2.0.squareRoot())
        let samples = (0..<frames).map { amplitude * Float(sin(2 * Double.pi * 1000 * Double($0) / 48_000)) }
        let writer = try SoundFileWriter(path: input, sampleRate: 48_000, channelCount: 1, sampleFormat: .f32)
        try samples.withUnsafeBufferPointer { (b) throws(AudioFileError) in try writer.write(b.baseAddress!, frames: frames) }
        try writer.close()
        func rmsDB(_ extra: [String]) throws -> Double {
            let out = path("out-\(extra.count).wav")
            let r = try runBusker(["live", "--input", "file:" + input, "--output", "file:" + out, "--format", "f32"] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let x = try left(out)[24_000..<44_000]
            return 10 * log10(x.reduce(0.0) { $0 + Double($1 * $1) } / Double(x.count))
        }
        let plain = try rmsDB([])
        XCTAssertEqual(try rmsDB(["--gate", "--compressor", "--makeup", "7.5"]) - plain, 7.5, accuracy: 0.01)
    }

    func testBadCleanUpValuesAreUsageErrors() throws {
        let base = ["live", "--input", "file:" + voice, "--output", "file:" + path("out.wav")]
        let cases: [([String], String)] = [
            (["--gate", "--gate-threshold", "-81"], "gate-threshold"),
            (["--gate", "--gate-threshold", "loud"], "gate-threshold"),
            (["--gate-threshold", "-40"], "--gate"),
            (["--compressor", "--makeup", "25"], "makeup"),
            (["--makeup", "6"], "--compressor"),
        ]
        for (extra, word) in cases {
            assertOneLineError(try runBusker(base + extra), status: 2, mentioning: word)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
    }
}
