import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker live --inputs … --strip …` on files, as a user runs it: the
/// issue's two-channel file with the voice on the left only, and the one-line
/// errors for strips that cannot be.
final class LiveStripsCLITests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-strips-cli") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// One second of deterministic noise on channel 1, silence on channel 2.
    private func leftOnlyVoice() throws -> String {
        var seed: UInt32 = 99
        let frames = 48_000
        var samples = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            samples[2 * i] = 0.2 * Float(Int32(bitPattern: seed)) / Float(Int32.max)
        }
        let p = path("left-only.wav")
        let writer = try SoundFileWriter(path: p, sampleRate: 48000, channelCount: 2, sampleFormat: .f32)
        try writer.write(interleaved: samples)
        try writer.close()
        return p
    }

    private func rmsDB(_ x: [Float]) -> Double {
        10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count)) + 1e-30)
    }

    /// `busker live --help` says how to choose the mic's channel, with the three
    /// forms `--inputs` takes, under a heading a user scanning for "mic" finds.
    func testHelpSaysHowToChooseTheMicsChannel() throws {
        let r = try runBusker(["live", "--help"])
        XCTAssertEqual(r.status, 0)
        let heading = try XCTUnwrap(r.stdout.range(of: "which input is the mic"), r.stdout)
        // The section under the heading, to the next blank line.
        let section = r.stdout[heading.upperBound...].components(separatedBy: "\n\n")[0]
        for form in ["--inputs LIST", "1,2 = a vocal mic and an instrument", "1+2 = both in one strip", "default 1: the voice on input 1"] {
            XCTAssertTrue(section.contains(form), "live --help lacks '\(form)' under its heading:\n\(section)")
        }
    }

    /// The measurement (left 0.0172 RMS, right 0.0033 before strips):
    /// now left and right within 0.5 dB.
    func testAVoiceOnTheLeftChannelOfATwoChannelFileComesOutOfBothSides() throws {
        let r = try runBusker(["live", "--input", "file:" + leftOnlyVoice(), "--output", "file:" + path("out.wav"), "--format", "f32"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = try SoundFileReader(path: path("out.wav")).readAll()
        let left = stride(from: 0, to: all.count, by: 2).map { all[$0] }, right = stride(from: 1, to: all.count, by: 2).map { all[$0] }
        XCTAssertGreaterThan(rmsDB(left), -40)
        XCTAssertEqual(rmsDB(left), rmsDB(right), accuracy: 0.5)
    }

    /// `-c 1` writes a mono file: the bus down-mixed, each sample the mean of
    /// the stereo run's left and right (within Float rounding: the master
    /// averages before its volume, the stereo run after). `-c 3` and `-c` on a
    /// device are one-line usage errors.
    func testDashC1WritesTheBusDownMixedToMono() throws {
        let input = try leftOnlyVoice()
        let base = ["live", "--input", "file:" + input, "--format", "f32", "--inputs", "1,2", "--strip", "1:pan=-0.6"]
        XCTAssertEqual(try runBusker(base + ["--output", "file:" + path("stereo.wav")]).status, 0)
        let r = try runBusker(base + ["--output", "file:" + path("mono.wav"), "-c", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let mono = try SoundFileReader(path: path("mono.wav")), stereo = try SoundFileReader(path: path("stereo.wav"))
        XCTAssertEqual(mono.channelCount, 1)
        let m = try mono.readAll(), s = try stereo.readAll()
        XCTAssertEqual(m.count * 2, s.count)
        var error: Float = 0
        for i in m.indices {
            let mean: Float = 0.5 * (s[2 * i] + s[2 * i + 1])
            error = max(error, abs(m[i] - mean))
        }
        XCTAssertGreaterThan(rmsDB(m), -40, "the voice is there")
        XCTAssertLessThan(error, 1e-6)
        assertOneLineError(try runBusker(base + ["--output", "file:" + path("three.wav"), "-c", "3"]), status: 2, mentioning: "--channels")
        assertOneLineError(try runBusker(["live", "-D", "null", "-c", "1", "--no-tui"]), status: 2, mentioning: "--channels is for file: outputs")
    }

    func testBadStripsAreOneLineUsageErrorsAndWriteNothing() throws {
        let base = ["live", "--input", "file:" + (try leftOnlyVoice()), "--output", "file:" + path("out.wav")]
        let cases: [([String], String)] = [
            (["--inputs", "1,,2"], "--inputs takes capture channels"),
            (["--inputs", "0"], "channel 0"),
            (["--inputs", "1,3"], "strip 2 reads channel 3, but the input has 2 channels"),
            (["--inputs", "1+2+3"], "reads channel 3"),
            (["--strip", "2:gain=1"], "--strip 2: there is 1 strip"),
            (["--strip", "1:volume=1"], "not key=value"),
            (["--strip", "1:gate=maybe"], "gate takes on or off"),
            (["--inputs", "1,2", "--strip", "2:pan=3"], "--strip 2: pan 3 is out of range"),
            (["--pan", "9"], "--pan 9 is out of range"),
            (["--gain", "-30"], "--gain -30 dB is out of range"),
        ]
        for (extra, text) in cases {
            assertOneLineError(try runBusker(base + extra), status: 2, mentioning: text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")), "\(extra) left a file")
        }
    }
}
