import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// A NaN sent live by another JACK client (jack-play playing a float WAV that
/// holds one) into `busker live --driver jack --record`: the block is
/// silenced, the tone is back at once, the screen's notice and the take's log
/// say so, and Busker ends with exit status 0 when asked to stop.
final class NonFiniteJACKCLITests: XCTestCase {
    func testANaNFromAJACKClientSilencesOneBlockAndTheTakeSaysSo() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jack-play"), "needs jack-play (jack-tools)")
        let card = try VirtualSoundCardFixture(name: "busker-nan-jack")
        defer { try? card.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-nan-jack-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Three seconds of 330 Hz at −12 dBFS with one NaN at 1.5 s, float.
        let rate = 48_000
        var tone = (0..<(3 * rate)).map { 0.25 * Float(sin(2 * Double.pi * 330 * Double($0) / Double(rate))) }
        tone[rate * 3 / 2] = .nan
        let tonePath = folder.appendingPathComponent("nan-tone.wav").path
        let writer = try SoundFileWriter(path: tonePath, sampleRate: rate, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: tone)
        try writer.close()

        let takePath = folder.appendingPathComponent("take.wav").path
        let environment = jackClientEnvironment(server: card.serverName)
        // No howl guard: a steady tone is what it rightly takes for a howl, and its notch
        // would move the level the dip is measured against.
        let (busker, out, err) = try launchBusker(["live", "--driver", "jack", "--no-tui", "--reverb", "0", "--volume", "1", "--no-howl-guard",
                                                   "--record=\(takePath)"], environment: environment)
        defer { if busker.isRunning { busker.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        let player = try launchProgram("/usr/bin/jack-play", ["-u", "-n", "nan_player", tonePath], environment: environment)
        defer { if player.process.isRunning { player.process.terminate() } }
        XCTAssertTrue(waitUntil({ (try? runProgram("/usr/bin/jack_connect", ["nan_player:out_1", "busker:in_1"], environment: environment).status) == 0 },
                                timeout: 10), "could not connect the player to busker:in_1")
        player.process.waitUntilExit()
        usleep(500_000)
        busker.interrupt()
        busker.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd())
        XCTAssertEqual(busker.terminationStatus, 0, err.text)
        XCTAssertTrue(out.text.contains("with non-finite or absurd samples silenced (from input)"), out.text)
        let log = try String(contentsOfFile: takePath + ".log", encoding: .utf8)
        XCTAssertTrue(log.contains("with non-finite or absurd samples from input silenced near"), log)

        // The take, from the tone's first frame to its last, in 64-frame windows every 16
        // frames: the NaN's block is a dip of 6 dB and more under the tone's usual level (not
        // silence: the strip's filters ring on for a few milliseconds), and the only one; the
        // dip spans at most three blocks (the silenced one, its window's overlaps and the
        // filters' tails), so the sound is back a block after the fault.
        let take = try StereoRender(path: takePath)
        guard let first = take.left.firstIndex(where: { abs($0) > 0.1 }),
              let last = take.left.lastIndex(where: { abs($0) > 0.1 }), last - first > 4800 else { return XCTFail("no tone in the take") }
        func levelDB(_ start: Int) -> Double {
            let x = take.left[start..<start + 64]
            return 10 * log10(x.reduce(0.0) { $0 + Double($1) * Double($1) } / 64 + 1e-30)
        }
        let windows = stride(from: first + 256, to: last - 256, by: 16).map { ($0, levelDB($0)) }
        let usual = windows.map(\.1).sorted()[windows.count / 2]
        let dips = windows.filter { $0.1 < usual - 6 }.map(\.0)
        let xruns = out.text.split(separator: "\n").last { $0.contains("xruns") }.map(String.init) ?? ""
        print("take: tone from frame \(first) to \(last) at \(String(format: "%.1f", usual)) dB; dips at \(dips); \(xruns)")
        XCTAssertFalse(dips.isEmpty, "the NaN's block was silenced")
        if xruns.contains("xruns: 0") || xruns.contains("xruns 0"), let start = dips.first, let end = dips.last {
            XCTAssertLessThanOrEqual(end - start, 192, "one dip, the fault's, and the sound back a block after it: \(dips)")
        }
    }
}
