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
        let (card, fifo, tap) = try toneCard(name: "busker-midictl")
        defer { try? card.stop() }
        // The howl guard would rightly notch a steady sine; it is not what this test is about.
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--no-howl-guard", "--midi", "none", "--midi-in", fifo],
                                                   on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("busker live ended early: \(err.text)") }

        usleep(1_500_000)
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        pressFootswitchTwice(writer)
        try writer.close()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        let text = out.text
        XCTAssertTrue(text.contains("MIDI: CC 64 → mic off"), text)
        XCTAssertTrue(text.contains("MIDI: CC 64 → mic on"), text)
        XCTAssertEqual(text.components(separatedBy: "CC 64 → mic").count - 1, 2, "the release did nothing: \(text)")

        let (envelope, onset, silence) = try playedEnvelope(tap)
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

    /// A footswitch (CC 64) pressed (the mic off), released 0.7 s later
    /// (nothing), pressed again 0.8 s after that (the mic on), then 1.5 s more.
    private func pressFootswitchTwice(_ midi: FileHandle) {
        midi.write(Data([0xB0, 64, 127]))
        usleep(700_000)
        midi.write(Data([0xB0, 64, 0]))
        usleep(800_000)
        midi.write(Data([0xB0, 64, 127]))
        usleep(1_500_000)
    }

    /// The virtual card with its capture fed a 440 Hz tone at 0.5 for 30 s
    /// (the "mic", through the ALSA `file` plugin as `busker_mic`), what is
    /// played kept in `tap` (`busker_tap`), and a FIFO for raw MIDI.
    private func toneCard(name: String) throws -> (card: VirtualSoundCardFixture, fifo: String, tap: String) {
        let card = try VirtualSoundCardFixture(name: name)
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
        return (card, fifo, tap)
    }

    /// What was played (stereo FLOAT_LE in `tap`) as an envelope of 1 ms
    /// steps (the peak over 3 ms, more than one 440 Hz period), where sound
    /// first came, and the longest silent stretch (below −100 dBFS) after it.
    private func playedEnvelope(_ tap: String) throws -> (envelope: [Float], onset: Int, silence: Range<Int>) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tap))
        let left: [Float] = bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count / 8 * 8, by: 8).map { raw.loadUnaligned(fromByteOffset: $0, as: Float.self) }
        }
        let step = rate / 1000
        let blockPeaks = stride(from: 0, to: left.count - step, by: step).map { start in
            left[start..<(start + step)].reduce(Float(0)) { max($0, abs($1)) }
        }
        let envelope = blockPeaks.indices.dropLast(2).map { max(blockPeaks[$0], blockPeaks[$0 + 1], blockPeaks[$0 + 2]) }
        let onset = try XCTUnwrap(envelope.firstIndex { $0 > 1e-3 }, "the tone was played")
        var best = 0..<0, runStart: Int?
        for (i, e) in envelope.enumerated() where i > onset {
            if e < 1e-5 {
                if runStart == nil { runStart = i }
            } else if let s = runStart {
                if i - s > best.count { best = s..<i }
                runStart = nil
            }
        }
        return (envelope, onset, best)
    }

    /// On a stage the keyboard's sustain pedal (CC 64 on `--midi-in`) plays
    /// the piano and never touches the mic; a footswitch on the source given
    /// for the live controls (`--control-midi-in`) turns the mic off and on.
    /// The pedal is pressed and released first: no mic line, no silence;
    /// then the footswitch: two mic lines and one silence of about the 1.5 s
    /// it was off (1000–2000 ms, as in the footswitch test without a stage).
    func testOnAStageTheKeyboardsPedalSustainsAndOnlyTheControlSourceTogglesTheMic() throws {
        let (card, keys, tap) = try toneCard(name: "busker-stagectl")
        defer { try? card.stop() }
        let control = card.directory.appendingPathComponent("control.fifo").path
        XCTAssertEqual(mkfifo(control, 0o600), 0)
        let (process, out, err) = try launchBusker(["live", "--no-tui", "--input", "busker_mic", "--output", "busker_tap",
                                                    "--period", "256", "--no-howl-guard", "--instrument", "piano",
                                                    "--midi", "none", "--midi-in", keys, "--control-midi-in", control],
                                                   on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker live did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("busker live ended early: \(err.text)") }
        usleep(1_000_000)
        let keyboard = try XCTUnwrap(FileHandle(forWritingAtPath: keys))
        keyboard.write(Data([0xB0, 64, 127]))  // the pedal down: the piano's sustain
        usleep(600_000)
        keyboard.write(Data([0xB0, 64, 0]))
        usleep(600_000)
        let footswitch = try XCTUnwrap(FileHandle(forWritingAtPath: control))
        pressFootswitchTwice(footswitch)
        try keyboard.close()
        try footswitch.close()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertEqual(out.text.components(separatedBy: "CC 64 → mic").count - 1, 2, "only the footswitch's presses: \(out.text)")
        let (_, onset, silence) = try playedEnvelope(tap)
        XCTAssertTrue((1000...2000).contains(silence.count), "silence of \(silence.count) ms")
        // The pedal came about 1 s after the start and the footswitch 1.2 s later: no silence before that.
        XCTAssertGreaterThan(silence.lowerBound - onset, 1500, "the mic went off at the pedal")
    }
}
