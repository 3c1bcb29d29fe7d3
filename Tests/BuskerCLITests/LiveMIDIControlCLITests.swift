import Foundation
import RenderTestSupport
import XCTest

/// `busker live` end to end with MIDI control: a footswitch's raw MIDI bytes
/// (CC 64) written into a FIFO (`--midi-in`) turn the mic off and on, and the
/// speaker's signal shows it — the level ramps down over the mixer's 20 ms to
/// silence and comes back the same way. On the virtual sound card, with the
/// ALSA `file` plugin feeding a tone into the capture (`infile`) and keeping a
/// copy of everything played.
final class LiveMIDIControlCLITests: XCTestCase {
    private let rate = 48_000

    func testAFootswitchPressTurnsTheMicOffAndOnWithTheMixersRamp() throws {
        let card = try VirtualSoundCardFixture(name: "busker-midictl")
        defer { try? card.stop() }
        let fifo = card.directory.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // The "mic": 440 Hz at 0.5 on both capture channels for 30 s, FLOAT_LE stereo (the card's format).
        let tone = card.directory.appendingPathComponent("tone.raw")
        var samples = [Float](repeating: 0, count: rate * 30 * 2)
        for n in 0..<(rate * 30) {
            let x = Float(0.5 * sin(2 * Double.pi * 440 * Double(n) / Double(rate)))
            samples[2 * n] = x
            samples[2 * n + 1] = x
        }
        try samples.withUnsafeBytes { try Data($0).write(to: tone) }
        let tap = card.directory.appendingPathComponent("played.raw").path
        let config = try card.asoundrc() + """

            pcm.busker_mic {
                type file
                slave.pcm "busker_in"
                file "/dev/null"
                infile "\(tone.path)"
                format "raw"
            }
            pcm.busker_tap {
                type file
                slave.pcm "busker_out"
                file "\(tap)"
                format "raw"
            }
            """
        try config.write(to: card.asoundrcURL, atomically: true, encoding: .utf8)

        // The howl guard would rightly notch a steady sine; it is not what this test is about.
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--no-howl-guard", "--midi", "none", "--midi-in", fifo],
                                                   on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("busker live ended early: \(err.text)") }

        usleep(1_500_000)
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        writer.write(Data([0xB0, 64, 127]))  // press: mic off
        usleep(700_000)
        writer.write(Data([0xB0, 64, 0]))    // release: nothing
        usleep(800_000)
        writer.write(Data([0xB0, 64, 127]))  // press: mic on
        usleep(1_500_000)
        try writer.close()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        let text = out.text
        XCTAssertTrue(text.contains("MIDI: CC 64 → mic off"), text)
        XCTAssertTrue(text.contains("MIDI: CC 64 → mic on"), text)
        XCTAssertEqual(text.components(separatedBy: "CC 64 → mic").count - 1, 2, "the release did nothing: \(text)")

        // What was played: stereo FLOAT_LE frames.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tap))
        let left: [Float] = bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count / 8 * 8, by: 8).map { raw.loadUnaligned(fromByteOffset: $0, as: Float.self) }
        }
        // The envelope, 1 ms a step: the peak over 3 ms (more than one 440 Hz period) from each step.
        let step = rate / 1000
        let blockPeaks = stride(from: 0, to: left.count - step, by: step).map { start in
            left[start..<(start + step)].reduce(Float(0)) { max($0, abs($1)) }
        }
        let envelope = blockPeaks.indices.dropLast(2).map { max(blockPeaks[$0], blockPeaks[$0 + 1], blockPeaks[$0 + 2]) }
        let onset = try XCTUnwrap(envelope.firstIndex { $0 > 1e-3 }, "the tone was played")
        // The longest silent stretch (below −100 dBFS) is the mic off.
        var best = 0..<0, runStart: Int?
        for (i, e) in envelope.enumerated() where i > onset {
            if e < 1e-5 {
                if runStart == nil { runStart = i }
            } else if let s = runStart {
                if i - s > best.count { best = s..<i }
                runStart = nil
            }
        }
        let silence = best
        print("mic off for \(silence.count) ms (the footswitch was up for about 1500 ms); output \(envelope.count) ms")
        XCTAssertTrue((1000...2000).contains(silence.count), "silence of \(silence.count) ms")
        guard silence.lowerBound - 100 > onset + 300 else { return XCTFail("no sound before the silence at \(silence) (onset \(onset) ms)") }
        let before = envelope[(onset + 300)..<(silence.lowerBound - 100)].sorted()
        let level = before[before.count / 2]
        XCTAssertGreaterThan(level, 0.01)
        // Falling: from 90 % to 10 % of the level. A linear 20 ms ramp spends 16 ms there.
        let fall90 = try XCTUnwrap((onset..<silence.lowerBound).last { envelope[$0] >= 0.9 * level })
        let fall10 = try XCTUnwrap((fall90..<silence.lowerBound).first { envelope[$0] <= 0.1 * level })
        let rise10 = try XCTUnwrap((silence.upperBound..<envelope.count).first { envelope[$0] >= 0.1 * level })
        let rise90 = try XCTUnwrap((rise10..<envelope.count).first { envelope[$0] >= 0.9 * level })
        print("ramp down 90→10 %: \(fall10 - fall90) ms, up 10→90 %: \(rise90 - rise10) ms (a linear 20 ms ramp: 16 ms)")
        XCTAssertTrue((12...20).contains(fall10 - fall90), "fall took \(fall10 - fall90) ms")
        XCTAssertTrue((12...20).contains(rise90 - rise10), "rise took \(rise90 - rise10) ms")
        // Back at the same level after the ramp.
        guard rise90 + 50 < envelope.count else { return XCTFail("the output ends \(envelope.count - rise90) ms after the rise") }
        let after = envelope[(rise90 + 50)..<min(envelope.count, rise90 + 550)].sorted()
        let levelAfter = after[after.count / 2]
        XCTAssertEqual(20 * log10(Double(levelAfter / level)), 0, accuracy: 0.5, "the level came back")
    }
}
