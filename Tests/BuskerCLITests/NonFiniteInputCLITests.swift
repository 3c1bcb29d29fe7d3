import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker live --input file:` over a float file holding one NaN and one
/// infinity, or one absurd sample: each is a fault of one block. The block
/// that held it is silenced, the sound is back one block later as loud as
/// without the fault, the run says what it silenced, and it exits 0.
final class NonFiniteInputCLITests: XCTestCase {
    private var work: URL!
    private let rate = 48_000
    private let block = 256

    override func setUpWithError() throws { work = try makeWorkFolder("busker-nonfinite-cli") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// Two seconds of a 330 Hz tone at −12 dBFS, mono float, with `faults` put in at their frames.
    private func tone(_ name: String, faults: [Int: Float]) throws -> String {
        var samples = (0..<(2 * rate)).map { 0.25 * Float(sin(2 * Double.pi * 330 * Double($0) / Double(rate))) }
        for (frame, value) in faults { samples[frame] = value }
        let p = path(name)
        let writer = try SoundFileWriter(path: p, sampleRate: rate, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: samples)
        try writer.close()
        return p
    }

    private func render(_ input: String, _ output: String) throws -> BuskerRun {
        try runBusker(["live", "--input", "file:" + input, "--output", "file:" + path(output), "--format", "f32", "--period", String(block)])
    }

    /// RMS of the left channel over frames `range`, dBFS.
    private func levelDB(_ render: StereoRender, _ range: Range<Int>) -> Double {
        let x = render.left[range]
        return 10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count)) + 1e-30)
    }

    func testANaNAndAnInfinityEachSilenceOneBlockAndTheSoundComesBack() throws {
        let nanFrame = 48_100, infFrame = 72_000
        let clean = try render(tone("clean.wav", faults: [:]), "clean-out.wav")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(clean.stdout.contains("silenced"), clean.stdout)
        let r = try render(tone("faults.wav", faults: [nanFrame: .nan, infFrame: .infinity]), "faults-out.wav")
        XCTAssertEqual(r.status, 0, r.stderr)
        // The first silenced block starts where the block holding the NaN does.
        let first = String(format: "%.3f", Double(nanFrame / block * block) / Double(rate))
        XCTAssertTrue(r.stdout.contains("busker live: 2 blocks with non-finite or absurd samples silenced (from input), the first at \(first) s; the sound went on after each"),
                      r.stdout)

        let expected = try StereoRender(path: path("clean-out.wav"))
        let got = try StereoRender(path: path("faults-out.wav"))
        XCTAssertEqual(got.frameCount, expected.frameCount)
        XCTAssertTrue(got.left.allSatisfy(\.isFinite) && got.right.allSatisfy(\.isFinite))
        for (fault, next) in [(nanFrame, infFrame), (infFrame, got.frameCount)] {
            // The output is aligned with the input: the silenced block is the one holding the
            // fault; only the reverb's tail of what came before still sounds there.
            let start = fault / block * block
            XCTAssertLessThan(levelDB(got, start + 32..<start + block - 32), levelDB(expected, start + 32..<start + block - 32) - 10,
                              "the block holding the fault at \(fault) was not silenced")
            // One block later the sound is back: every block up to the next fault as loud as
            // without the fault, within 3 dB (less than half the power lost to the gap).
            for b in stride(from: start + 2 * block, to: next / block * block - block, by: block) {
                let difference = levelDB(got, b..<b + block) - levelDB(expected, b..<b + block)
                XCTAssertLessThan(abs(difference), 3, "block at frame \(b), after the fault at \(fault): \(difference) dB")
            }
        }
    }

    /// One sample of 1e30 once left the howl guard cutting 10 dB to the end:
    /// the rest of the file is as loud as without it.
    func testAnAbsurdSampleLeavesNoLastingCut() throws {
        XCTAssertEqual(try render(tone("clean.wav", faults: [:]), "clean-out.wav").status, 0)
        let r = try render(tone("absurd.wav", faults: [24_000: 1e30]), "absurd-out.wav")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("1 block with non-finite or absurd samples silenced (from input)"), r.stdout)
        let expected = try StereoRender(path: path("clean-out.wav"))
        let got = try StereoRender(path: path("absurd-out.wav"))
        let late = rate..<(2 * rate - block)
        XCTAssertEqual(levelDB(got, late), levelDB(expected, late), accuracy: 0.5)
    }
}
