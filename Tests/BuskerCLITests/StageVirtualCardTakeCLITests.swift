import AudioFiles
import Foundation
import MIDI
import RenderTestSupport
import XCTest

/// The stage on the virtual sound card (ALSA PCMs of type jack on JACK's
/// dummy driver), recorded as one take: `busker live --input … --output …
/// --instrument piano --song S.mid --record T.wav --stems`, a voice on the
/// capture (the ALSA `file` plugin's `infile`), a backing song, and notes
/// and a drum hit written as raw MIDI bytes into a FIFO (`--midi-in`).
final class StageVirtualCardTakeCLITests: XCTestCase {
    private let rate = 48_000
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    func testTheTakeHoldsTheMixEveryStemAlignedAndEveryNotePlayed() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: smallFont), "TimGM6mb is not installed (apt-get install timgm6mb-soundfont)")
        let card = try VirtualSoundCardFixture(name: "busker-stagetake")
        defer { try? card.stop() }
        let folder = card.directory.path
        let fifo = folder + "/keys.fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        // The voice: 330 Hz at 0.25 for the first 2 s, then silence, FLOAT_LE stereo (the card's format).
        let voice = card.directory.appendingPathComponent("voice.raw")
        var samples = [Float](repeating: 0, count: rate * 40 * 2)
        for n in 0..<(rate * 2) {
            let x = Float(0.25 * sin(2 * Double.pi * 330 * Double(n) / Double(rate)))
            samples[2 * n] = x
            samples[2 * n + 1] = x
        }
        try samples.withUnsafeBytes { try Data($0).write(to: voice) }
        try (try card.asoundrc() + """

            pcm.busker_voice {
                type file
                slave.pcm "busker_in"
                file "/dev/null"
                infile "\(voice.path)"
                format "raw"
            }
            """).write(to: card.asoundrcURL, atomically: true, encoding: .utf8)
        // The song: C6 from 0.2 s to 1.5 s, ending at 2 s (it does not loop): the keys play after it, alone.
        var song = GMTestSong()
        song.note(0.2, channel: 0, 84, length: 1.3)
        let songPath = folder + "/song.mid"
        try song.write(to: songPath, endSeconds: 2)

        let take = folder + "/T.wav"
        let (process, out, err) = try launchBusker(["live", "--input", "busker_voice", "--output", "busker_out", "--period", "256",
                                                    "--no-tui", "--instrument", "piano", "--soundfont", smallFont, "--song", songPath,
                                                    "--midi", "none", "--midi-in", fifo, "--record", take, "--stems"], on: card)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running", timeout: 20), "the stage did not start: \(out.text) \(err.text)")
        guard process.isRunning else { return XCTFail("the stage ended early: \(err.text)") }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        usleep(3_500_000)                                   // the song and its tail are over
        writer.write(Data([0x99, 38, 110]))                // a snare on channel 10: the kit, alone
        usleep(500_000)
        writer.write(Data([0x89, 38, 0]))
        // The keyboard's reverb and chorus knobs at 0 (FluidSynth starts CC 91 at 40): the keys dry.
        writer.write(Data([0xB0, 91, 0, 0xB0, 93, 0]))
        usleep(200_000)
        writer.write(Data([0x90, 69, 100]))                // A4, alone
        usleep(1_000_000)
        writer.write(Data([0x80, 69, 0]))
        writer.write(Data([0x90, 60, 90, 0x90, 64, 90, 0x90, 67, 90]))  // a C major chord
        usleep(600_000)
        writer.write(Data([0x80, 60, 0, 0x80, 64, 0, 0x80, 67, 0]))
        usleep(1_000_000)
        try writer.close()
        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd() && err.waitForEnd(), "output not closed")
        XCTAssertEqual(process.terminationStatus, 0, err.text)

        // One take: the mix, a stem per strip and the MIDI take, every file of one length.
        let names = ["T", "T-mic", "T-strip1", "T-keys", "T-drums", "T-song"]
        var files: [String: [Float]] = [:]
        var lengths: [String: Int64] = [:]
        for name in names {
            let reader = try SoundFileReader(path: "\(folder)/\(name).wav")
            XCTAssertEqual(reader.sampleRate, rate, name)
            lengths[name] = reader.frameCount
            let all = try reader.readAll()
            // The left channel (the strip's stem is mono).
            files[name] = stride(from: 0, to: all.count, by: reader.channelCount).map { all[$0] }
            XCTAssertTrue(out.text.contains("recorded \(folder)/\(name).wav: "), "\(name): \(out.text)")
        }
        let master = try XCTUnwrap(lengths["T"])
        print("stage take on the virtual card: \(master) frames in every file: \(lengths)")
        XCTAssertGreaterThan(master, Int64(rate * 6), "the take holds the whole run")
        for name in names { XCTAssertEqual(lengths[name], master, "\(name) starts and stops with the mix") }
        let mix = try XCTUnwrap(files["T"]), keys = try XCTUnwrap(files["T-keys"])
        let songStem = try XCTUnwrap(files["T-song"]), drums = try XCTUnwrap(files["T-drums"])
        let dry = try XCTUnwrap(files["T-mic"]), strip = try XCTUnwrap(files["T-strip1"])

        func peak(_ x: [Float], _ range: Range<Int>) -> Float { x[range.clamped(to: 0..<x.count)].map(abs).max() ?? 0 }
        // Each stem holds its part: the voice in the first 2 s, the song's C6, the snare.
        XCTAssertGreaterThan(peak(dry, 0..<rate), 0.2, "the dry mic holds the voice")
        XCTAssertGreaterThan(peak(strip, 0..<rate), 0.05, "the strip holds the voice")
        let c6 = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: songStem[(rate / 2)..<rate], among: stride(from: 1000.0, through: 1100, by: 2),
                                                               sampleRate: Double(rate)))
        XCTAssertEqual(c6, 1046.5, accuracy: 10.5, "the song stem holds C6 within 1 %")
        // Sample-aligned: a stem against the mix, where its part plays alone, peaks at lag 0.
        func alignment(_ stem: [Float], _ range: Range<Int>) -> (lag: Int, correlation: Double) {
            var best = (lag: Int.min, correlation: -Double.infinity)
            for lag in -256...256 {
                var dot = 0.0, mixEnergy = 0.0, stemEnergy = 0.0
                for i in range {
                    let m = Double(mix[i + lag]), k = Double(stem[i])
                    dot += m * k
                    mixEnergy += m * m
                    stemEnergy += k * k
                }
                let correlation = dot / (mixEnergy * stemEnergy).squareRoot()
                if correlation > best.correlation { best = (lag, correlation) }
            }
            return best
        }
        // The snare, alone: the kit has no sends, so the mix there is the drums through the master.
        let hit = try XCTUnwrap((rate * 2..<drums.count).first { drums[$0] != 0 }, "the drums stem holds the snare")
        let snare = hit..<(hit + rate / 4)
        XCTAssertLessThan(peak(songStem, snare) + peak(dry, snare) + peak(keys, snare), 1e-4, "the snare plays alone")
        let drumsAligned = alignment(drums, snare)
        print(String(format: "drums stem against the mix: peak %.4f at lag %d frames", drumsAligned.correlation, drumsAligned.lag))
        XCTAssertEqual(drumsAligned.lag, 0, "the drums stem lines up with the mix")
        XCTAssertGreaterThan(drumsAligned.correlation, 0.99, "the mix there is the drums")

        // The keys' first note, dry, where they play alone (the snare's tail is over).
        let onset = try XCTUnwrap((hit..<keys.count).first { keys[$0] != 0 }, "the keys stem holds A4")
        let alone = onset..<(onset + rate * 8 / 10)
        XCTAssertLessThan(peak(songStem, alone) + peak(dry, alone) + peak(drums, alone), 1e-4, "the keys play alone")
        let a4 = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: keys[alone], among: stride(from: 400.0, through: 480, by: 2),
                                                               sampleRate: Double(rate)))
        XCTAssertEqual(a4, 440, accuracy: 4.4, "A4 within 1 %")
        let keysAligned = alignment(keys, alone)
        print(String(format: "keys stem against the mix: peak %.4f at lag %d frames", keysAligned.correlation, keysAligned.lag))
        XCTAssertEqual(keysAligned.lag, 0, "the keys stem lines up with the mix")
        XCTAssertGreaterThan(keysAligned.correlation, 0.99, "the mix there is the dry keys")

        // The MIDI take: every note sent, on its channel; A4's sound starts (the keys stem's first
        // sample that is not silence, in time with the mix) on its note-on's block of the sampler.
        let file = try StandardMIDIFile(contentsOfFile: folder + "/T.mid", mode: .strict)
        var noteOns: [(channel: UInt8, note: UInt8, seconds: Double)] = []
        for event in file.timedEvents(ofTrack: 0) {
            if case let .message(.noteOn(channel, note, velocity)) = event.kind, velocity > 0 { noteOns.append((channel, note, event.seconds)) }
        }
        XCTAssertEqual(noteOns.map { "\($0.channel + 1):\($0.note)" }, ["10:38", "1:69", "1:60", "1:64", "1:67"], "\(noteOns)")
        guard noteOns.count == 5 else { return }
        let first = noteOns[1]
        let noteOn = Int((first.seconds * Double(rate)).rounded())
        // The piano's sample has a lead of near-silence of its own: measured on the same note
        // rendered offline (`busker render`, a note at 1 s), it is what any rendering shows.
        var one = GMTestSong()
        one.note(1, channel: 0, 69, length: 1)
        try one.write(to: folder + "/one.mid", endSeconds: 2)
        let rendered = try runBusker(["render", folder + "/one.mid", "-o", folder + "/one.wav", "--soundfont", smallFont, "--no-drums"])
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let render = try SoundFileReader(path: folder + "/one.wav").readAll()
        let lead = try XCTUnwrap(stride(from: 0, to: render.count, by: 2).first { render[$0] != 0 }, "the render sounds") / 2 - rate
        print("A4: note-on at frame \(noteOn) of the MIDI take, sound from frame \(onset) of the keys stem and the mix; "
              + "the sample's own lead \(lead) frames (busker render)")
        XCTAssertGreaterThanOrEqual(onset - noteOn - lead, 0, "the sound starts after its note-on, never before")
        // FluidSynth starts a voice at the next of its 64-frame blocks.
        XCTAssertLessThan(onset - noteOn - lead, 64, "and within the sampler's block of it")
    }
}
