import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker analyze`, end to end: the EBU reference and a sine with a peak
/// between its samples, generated here and written as files, read as EBU
/// R 128 says; a missing or unreadable file is one line and exit 1.
final class AnalyzeCommandTests: XCTestCase {
    private var work = ""

    override func setUpWithError() throws { work = try makeWorkFolder("busker-analyze").path }

    override func tearDownWithError() throws { removeWorkFolder(atPath: work) }

    /// A stereo sine, `amplitude` peak, written as a WAV of `format`.
    private func writeSine(_ name: String, frequency: Double, amplitude: Double, seconds: Double, phase: Double = 0,
                           format: SampleFormat) throws -> String {
        let path = work + "/" + name
        let frames = Int(seconds * 48000)
        var samples = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let x = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / 48000 + phase))
            samples[2 * i] = x
            samples[2 * i + 1] = x
        }
        let writer = try SoundFileWriter(path: path, sampleRate: 48000, channelCount: 2, sampleFormat: format)
        try writer.write(interleaved: samples)
        try writer.close()
        return path
    }

    /// The number before `unit` in `line` ("-23.0 LUFS" → −23).
    private func figure(before unit: String, in line: String) throws -> Double {
        let words = line.replacingOccurrences(of: ",", with: "").split(separator: " ")
        let index = try XCTUnwrap(words.firstIndex { $0 == unit }, "\(unit) in \(line)")
        return try XCTUnwrap(Double(words[index - 1]), line)
    }

    /// EBU Tech 3341 test 1 (a stereo 1 kHz sine at −23 dBFS, 20 s, float WAV)
    /// reads −23.0 ± 0.1 LUFS; a full-scale 4 kHz sine starting at 15° (its
    /// highest sample at 75°, −0.30 dBFS; 24-bit WAV) reads a true peak of
    /// 0.0 ± 0.1 dBTP. One line per file, in the order given.
    func testAnalyzeReadsTheReferenceSignals() throws {
        let reference = try writeSine("reference.wav", frequency: 1000, amplitude: pow(10, -23.0 / 20), seconds: 20, format: .f32)
        let peaky = try writeSine("peaky.wav", frequency: 4000, amplitude: 1, seconds: 2, phase: Double.pi / 12, format: .s24)
        let r = try runBusker(["analyze", reference, peaky])
        XCTAssertEqual(r.status, 0, r.stderr)
        print(r.stdout)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, r.stdout)
        XCTAssertTrue(lines[0].hasPrefix("busker analyze: \(reference): 20.0 s at 48000 Hz, 2 ch; "), lines[0])
        XCTAssertEqual(try figure(before: "LUFS", in: lines[0]), -23, accuracy: 0.1)
        XCTAssertEqual(try figure(before: "LU", in: lines[0]), 0, accuracy: 0.1, "a steady sine has no loudness range")
        XCTAssertTrue(lines[1].hasPrefix("busker analyze: \(peaky): 2.0 s at 48000 Hz, 2 ch; "), lines[1])
        XCTAssertEqual(try figure(before: "dBTP", in: lines[1]), 0, accuracy: 0.1)
        XCTAssertEqual(try figure(before: "dBFS", in: lines[1]), -0.3, accuracy: 0.05, "the samples' own peak")
    }

    func testABadOrMissingFileIsOneLineAndExit1() throws {
        assertOneLineError(try runBusker(["analyze", work + "/missing.wav"]), status: 1, mentioning: "missing.wav")
        let text = work + "/notes.txt"
        try Data("not a sound file\n".utf8).write(to: URL(fileURLWithPath: text))
        assertOneLineError(try runBusker(["analyze", text]), status: 1, mentioning: "notes.txt")
        assertOneLineError(try runBusker(["analyze", work]), status: 1, mentioning: "is a directory")
        assertOneLineError(try runBusker(["analyze"]), status: 2, mentioning: "busker analyze FILE")
        let help = try runBusker(["analyze", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("usage: busker analyze FILE"), help.stdout)
    }
}
