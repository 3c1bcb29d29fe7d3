import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// Runs the built `busker` executable as a user would, and checks exit codes,
/// messages and the bytes of the files it writes.
final class BuskerCLITests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-cli") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func busker(_ arguments: String...) throws -> BuskerRun { try runBusker(arguments) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func writeSine(_ name: String, frequency: Double, amplitude: Float, seconds: Double, rate: Int, channels: Int = 1) throws -> String {
        let p = path(name)
        let frames = Int(seconds * Double(rate))
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / Double(rate)))
            for c in 0..<channels { samples[i * channels + c] = v }
        }
        let writer = try SoundFileWriter(path: p, sampleRate: rate, channelCount: channels, sampleFormat: .f32)
        try samples.withUnsafeBufferPointer { (b) throws(AudioFileError) in try writer.write(b.baseAddress!, frames: frames) }
        try writer.close()
        return p
    }

    private func level(_ x: ArraySlice<Float>, frequency: Double, rate: Double) -> Double {
        var re = 0.0, im = 0.0
        for (n, v) in x.enumerated() {
            let phase = 2 * Double.pi * frequency * Double(n) / rate
            re += Double(v) * cos(phase)
            im -= Double(v) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(x.count)
    }

    func testMonoInStereoOutAtTheDefaultQuietVolume() throws {
        let input = try writeSine("in.wav", frequency: 1000, amplitude: 0.1, seconds: 1, rate: 48000)
        let r = try busker("live", "--input", "file:" + input, "--output", "file:" + path("out.wav"), "--format", "f32")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("audio-render"), r.stdout)
        let out = try SoundFileReader(path: path("out.wav"))
        XCTAssertEqual(out.channelCount, 2)
        XCTAssertEqual(out.sampleRate, 48000)
        let all = try out.readAll()
        XCTAssertGreaterThanOrEqual(all.count / 2, 48000)
        let left = stride(from: 0, to: 96000, by: 2).map { all[$0] }
        let right = stride(from: 1, to: 96000, by: 2).map { all[$0] }
        // 1 kHz passes the flat chain at unity; the master volume starts at 0.3.
        for channel in [left, right] {
            let gainDB = 20 * log10(level(channel[12000..<36000], frequency: 1000, rate: 48000) / 0.1)
            XCTAssertEqual(gainDB, 20 * log10(0.3), accuracy: 0.1)
        }
    }

    func testNothingLeavesAboveMinusOneDBFSAtFullBoost() throws {
        let input = try writeSine("loud.wav", frequency: 200, amplitude: 0.99, seconds: 1, rate: 48000)
        let r = try busker("live", "--input", "file:" + input, "--output", "file:" + path("out.wav"),
                           "--boost", "24", "--bass", "12", "--volume", "1", "--reverb", "100", "--room", "hall", "--format", "f32")
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = try SoundFileReader(path: path("out.wav")).readAll()
        let peak = all.map { abs($0) }.max() ?? 0
        XCTAssertLessThanOrEqual(peak, powf(10, -1 / 20) + 1e-6)
        XCTAssertGreaterThan(peak, 0.5)
    }

    func testOtherSampleRatesAreConverted() throws {
        let input = try writeSine("in44.wav", frequency: 1000, amplitude: 0.2, seconds: 1, rate: 44100, channels: 2)
        let r = try busker("live", "--input", "file:" + input, "--output", "file:" + path("out.flac"), "--volume", "1")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("resampled from 44100 Hz"), r.stdout)
        let out = try SoundFileReader(path: path("out.flac"))
        XCTAssertEqual(out.sampleRate, 48000)
        let all = try out.readAll()
        let left = stride(from: 0, to: all.count, by: 2).map { all[$0] }
        XCTAssertEqual(20 * log10(level(left[12000..<36000], frequency: 1000, rate: 48000) / 0.2), 0, accuracy: 0.1)
    }

    func testMissingInputFile() throws {
        let r = try busker("live", "--input", "file:" + path("absent.wav"), "--output", "file:" + path("out.wav"))
        assertOneLineError(r, status: 1, mentioning: "No such file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
    }

    func testNonAudioInputFile() throws {
        try Data(repeating: 0x41, count: 5000).write(to: URL(fileURLWithPath: path("text.wav")))
        let r = try busker("live", "--input", "file:" + path("text.wav"), "--output", "file:" + path("out.wav"))
        assertOneLineError(r, status: 1, mentioning: "text.wav")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
    }

    func testTruncatedWav() throws {
        let whole = try writeSine("whole.wav", frequency: 440, amplitude: 0.5, seconds: 2, rate: 48000)
        let data = try Data(contentsOf: URL(fileURLWithPath: whole))
        try data.prefix(data.count / 3).write(to: URL(fileURLWithPath: path("cut.wav")))
        let r = try busker("live", "--input", "file:" + path("cut.wav"), "--output", "file:" + path("out.wav"))
        assertOneLineError(r, status: 1, mentioning: "truncated")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
    }

    /// A write that fails midway (a file-size limit, as a full disk would) is
    /// one line and exit status 1, not a signal, and leaves no partial file.
    func testAFileSizeLimitIsAOneLineErrorAndLeavesNoFile() throws {
        let voice = try writeSine("long.wav", frequency: 440, amplitude: 0.3, seconds: 4, rate: 48000)
        // bash's ulimit -f counts 1024-byte blocks: 64 KiB, under a third of a second of the 24-bit stereo output.
        let r = try runProgram("/bin/bash", ["-c", "ulimit -f 64; exec \"$0\" \"$@\"", buskerPath,
                                             "live", "--input", "file:" + voice, "--output", "file:" + path("out.wav")])
        assertOneLineError(r, status: 1, mentioning: "writing '\(path("out.wav"))' failed: File too large")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
    }

    func testOutOfRangeAndUnknownValuesAreUsageErrors() throws {
        let input = try writeSine("in.wav", frequency: 440, amplitude: 0.5, seconds: 0.1, rate: 48000)
        let base = ["live", "--input", "file:" + input, "--output", "file:" + path("out.wav")]
        let cases: [([String], String)] = [
            (["--bass", "99"], "bass"),
            (["--treble", "-13"], "treble"),
            (["--boost", "25"], "boost"),
            (["--reverb", "101"], "reverb"),
            (["--volume", "1.5"], "volume"),
            (["--volume", "loud"], "volume"),
            (["--room", "cave"], "room"),
            (["--period", "0"], "period"),
            (["--format", "mp3"], "format"),
            (["--frobnicate"], "frobnicate"),
        ]
        for (extra, word) in cases {
            let process = try runBusker(base + extra)
            assertOneLineError(process, status: 2, mentioning: word)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out.wav")))
        assertOneLineError(try busker("dance"), status: 2, mentioning: "dance")
        assertOneLineError(try busker("live", "--input", "file:" + input), status: 2, mentioning: "file:")
        assertOneLineError(try busker("live", "--device", "hw:0", "--input", "hw:1"), status: 2, mentioning: "--device")
    }

    func testUnknownDeviceIsARuntimeErrorNamingIt() throws {
        let r = try busker("live", "--device", "no_such_pcm_here", "--no-tui")
        assertOneLineError(r, status: 1, mentioning: "no_such_pcm_here")
    }

    func testDevicesListsPCMNames() throws {
        let r = try busker("devices")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("null"), r.stdout)
    }

    func testHelpAtEveryLevel() throws {
        for args in [["--help"], ["help"], ["live", "--help"], ["bench", "--help"], ["devices", "--help"], ["help", "live"],
                     ["play", "--help"], ["render", "--help"], ["help", "play"]] {
            let r = try runBusker(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("usage: busker"), "\(args)")
        }
    }

    /// Every command's help is finished text: no Swift interpolation left
    /// unexpanded (a `\(` in a help string that was escaped by mistake prints
    /// literally), and the recording formats are named where they are offered.
    func testNoHelpPrintsAPlaceholder() throws {
        for command in ["live", "play", "render", "record", "repair", "devices", "bench"] {
            let r = try runBusker([command, "--help"])
            XCTAssertEqual(r.status, 0, "\(command): \(r.stderr)")
            XCTAssertFalse(r.stdout.contains("\\("), "busker \(command) --help prints a placeholder:\n\(r.stdout)")
        }
        for command in ["record", "live", "play"] {
            XCTAssertTrue(try runBusker([command, "--help"]).stdout.contains("wav24, wav16, float, flac, ogg"), command)
        }
    }
}
