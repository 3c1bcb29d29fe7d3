import Foundation
import RenderTestSupport
import XCTest

/// `busker render` against `fluidsynth -F` on the same file and SoundFont,
/// and the song's own reverb and chorus sends: files the tests write
/// themselves, rendered by both programs, measured in tenth-second windows.
final class RenderAgainstFluidSynthTests: XCTestCase {
    private var work: URL!
    private let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    private let fluidsynth = "/usr/bin/fluidsynth"

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: fluidsynth), "needs the fluidsynth program")
        work = try makeWorkFolder("busker-vs-fluidsynth")
    }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func renderBusker(_ song: String, _ name: String, font: String, _ extra: [String] = []) throws -> (StereoRender, BuskerRun) {
        let out = path(name)
        let run = try runBusker(["render", song, "-o", out, "--soundfont", font, "--format", "f32", "--no-progress"] + extra)
        XCTAssertEqual(run.status, 0, run.stderr)
        return (try StereoRender(path: out), run)
    }

    private func renderFluidSynth(_ song: String, _ name: String, font: String) throws -> StereoRender {
        let out = path(name)
        let run = try runProgram(fluidsynth, ["-ni", "-q", "-F", out, "-O", "float", "-r", "48000", font, song])
        XCTAssertEqual(run.status, 0, run.stderr)
        return try StereoRender(path: out)
    }

    // MARK: Every GM drum sounds

    /// Every General MIDI percussion note, 35 to 81, half a second apart.
    private func everyPercussionNote() throws -> String {
        var song = GMTestSong()
        song.program(0, channel: 9, 0)
        for (index, note) in (35...81).enumerated() {
            song.note(0.5 + Double(index) * 0.5, channel: 9, UInt8(note), velocity: 100, length: 0.25)
        }
        let file = path("percussion.mid")
        try song.write(to: file, endSeconds: 0.5 + 47 * 0.5 + 1)
        return file
    }

    /// The must-show of "no silent drum": with the default `--drums both`,
    /// Busker's render sounds (tenth-second windows above −50 dBFS) in at
    /// least 95 % as many windows as `fluidsynth -F`'s, and in every note's
    /// half second where FluidSynth's sounds. With `--drums kit` the kit's
    /// twelve pads alone fall far short: the measure sees a silent drum.
    func testEveryGMPercussionNoteSoundsAsInFluidSynth() throws {
        let song = try everyPercussionNote()
        let reference = try renderFluidSynth(song, "fluidsynth.wav", font: fluidR3)
        let (both, run) = try renderBusker(song, "both.wav", font: fluidR3)
        let (kitOnly, _) = try renderBusker(song, "kit.wav", font: fluidR3, ["--drums", "kit"])
        let threshold = -50.0
        func sounding(_ render: StereoRender) -> Int { render.tenthSecondLevels.filter { $0 > threshold }.count }
        let reference_ = sounding(reference), both_ = sounding(both), kit_ = sounding(kitOnly)
        print("tenth-second windows above \(threshold) dBFS: fluidsynth \(reference_), busker (both) \(both_), busker --drums kit \(kit_)")
        XCTAssertGreaterThanOrEqual(Double(both_), 0.95 * Double(reference_))
        XCTAssertLessThan(Double(kit_), 0.95 * Double(reference_), "the kit alone leaves notes silent")
        var silent: [Int] = []
        for (index, note) in (35...81).enumerated() {
            let slot = 0.5 + Double(index) * 0.5
            if reference.levelDB(slot...slot + 0.5) > threshold && both.levelDB(slot...slot + 0.5) <= threshold { silent.append(note) }
        }
        XCTAssertEqual(silent, [], "notes FluidSynth sounds and Busker does not")
        XCTAssertTrue(run.stdout.contains("SoundFont's percussion"), run.stdout)
    }

    // MARK: The song's sends

    /// Two piano notes, channel 1's at 0.5 s and channel 2's at 4.5 s, each
    /// channel sending `sends.0` and `sends.1` on `controller` (91 or 93, the other at 0).
    private func sendSong(_ name: String, controller: UInt8, sends: (UInt8, UInt8)) throws -> String {
        var song = GMTestSong()
        for channel: UInt8 in 0...1 {
            song.program(0, channel: channel, channel == 0 ? 0 : 0)
            song.control(0, channel: channel, 91, 0)
            song.control(0, channel: channel, 93, 0)
            song.control(0, channel: channel, controller, channel == 0 ? sends.0 : sends.1)
        }
        song.note(0.5, channel: 0, 60, velocity: 100, length: 1)
        song.note(4.5, channel: 1, 60, velocity: 100, length: 1)
        let file = path(name)
        try song.write(to: file, endSeconds: 8.5)
        return file
    }

    /// CC 91 and CC 93 per channel: the wet signal is the render with one
    /// channel sending 127 minus the render with every send at 0 (the dry
    /// path is the same, the effects add). Each channel's wet energy, in
    /// its own four seconds, is measured with the channel at 127 and at 0.
    func testCC91AndCC93FeedEachChannelsReverbAndChorus() throws {
        for (controller, effect) in [(UInt8(91), "reverb"), (UInt8(93), "chorus")] {
            let (dry, _) = try renderBusker(try sendSong("dry-\(controller).mid", controller: controller, sends: (0, 0)), "dry-\(controller).wav", font: smallFont)
            let (first, _) = try renderBusker(try sendSong("first-\(controller).mid", controller: controller, sends: (127, 0)), "first-\(controller).wav", font: smallFont)
            let (second, _) = try renderBusker(try sendSong("second-\(controller).mid", controller: controller, sends: (0, 127)), "second-\(controller).wav", font: smallFont)
            let wetFirst = first.subtracting(dry), wetSecond = second.subtracting(dry)
            let channel1 = 0.5...4.4, channel2 = 4.5...8.4
            let atFull1 = wetFirst.levelDB(channel1), atZero1 = wetSecond.levelDB(channel1)
            let atFull2 = wetSecond.levelDB(channel2), atZero2 = wetFirst.levelDB(channel2)
            let dry1 = dry.levelDB(channel1), dry2 = dry.levelDB(channel2)
            print("CC \(controller) (\(effect)) wet energy, dBFS: channel 1 at 127 \(atFull1), at 0 \(atZero1); "
                  + "channel 2 at 127 \(atFull2), at 0 \(atZero2); dry \(dry1), \(dry2)")
            // At 127 the effect is plainly audible: within 20 dB of the channel's dry level.
            XCTAssertGreaterThan(atFull1, dry1 - 20, "CC \(controller) 127 on channel 1")
            XCTAssertGreaterThan(atFull2, dry2 - 20, "CC \(controller) 127 on channel 2")
            // At 0 the channel adds nothing: at least 40 dB below its wet at 127 (what is left is the
            // other channel's tail reaching into its window, or nothing).
            XCTAssertLessThan(atZero1, atFull1 - 40, "CC \(controller) 0 on channel 1")
            XCTAssertLessThan(atZero2, atFull2 - 40, "CC \(controller) 0 on channel 2")
        }
    }

    // MARK: A GM song against fluidsynth

    /// A General MIDI song the test writes (piano chords, bass, strings with
    /// CC 91 at 100, a flute with CC 93 at 90, drums: kick, cowbell, snare,
    /// conga), rendered by `busker render --drums soundfont` (every sound
    /// from the SoundFont, as in fluidsynth; the kit's own samples are
    /// measured in the percussion test) and by `fluidsynth -F`, FluidR3_GM
    /// both: the same notes sound. Tolerances,
    /// over tenth-second windows: every onset (a 6 dB rise) of one render has
    /// a rise of at least 3 dB in the other within a window (100 ms: the
    /// window, far above FluidSynth's 1.3 ms event grid); the envelopes, the
    /// gain offset taken out, differ by at most 3 dB in the median window and
    /// 6 dB in the 90th percentile. The source of difference is by design:
    /// the sends go into Busker's reverb and chorus, not FluidSynth's (other
    /// rooms, other tails), and Busker's output limiter. A missing note
    /// falls 10 dB and more below (its window holds only the previous notes'
    /// tails) and fails the onset match.
    func testAGMSongSoundsTheSameNotesAsFluidSynth() throws {
        var song = GMTestSong()
        song.program(0, channel: 0, 0)
        song.program(0, channel: 1, 33)
        song.program(0, channel: 2, 48)
        song.control(0, channel: 2, 91, 100)
        song.program(0, channel: 3, 73)
        song.control(0, channel: 3, 93, 90)
        song.program(0, channel: 9, 0)
        let chords: [[UInt8]] = [[60, 64, 67], [57, 60, 64], [53, 57, 60], [55, 59, 62]]
        for bar in 0..<4 {
            let t = 0.5 + Double(bar) * 2
            for note in chords[bar] { song.note(t, channel: 0, note, velocity: 90, length: 0.9) }
            song.note(t, channel: 1, chords[bar][0] - 24, velocity: 100, length: 0.4)
            song.note(t + 1, channel: 1, chords[bar][0] - 24, velocity: 100, length: 0.4)
            if bar % 2 == 1 { song.note(t, channel: 2, chords[bar][1], velocity: 80, length: 1.6) }
            if bar >= 2 { song.note(t + 0.5, channel: 3, chords[bar][2] + 12, velocity: 90, length: 0.4) }
            song.note(t, channel: 9, 36, velocity: 110, length: 0.1)
            song.note(t + 0.5, channel: 9, 56, velocity: 100, length: 0.1)
            song.note(t + 1, channel: 9, 38, velocity: 100, length: 0.1)
            song.note(t + 1.5, channel: 9, 63, velocity: 100, length: 0.1)
        }
        let file = path("song.mid")
        try song.write(to: file, endSeconds: 9.5)
        let reference = try renderFluidSynth(file, "fluidsynth.wav", font: fluidR3)
        let (busker, _) = try renderBusker(file, "busker.wav", font: fluidR3, ["--drums", "soundfont"])
        let r = reference.tenthSecondLevels, b = busker.tenthSecondLevels
        let count = min(r.count, b.count)
        // The windows where fluidsynth sounds within 40 dB of its loudest; Busker's gain differs on
        // purpose (its gain 0.3 and render volume 0.8 against fluidsynth's 0.2), so the offset
        // between the two, their median difference there, is taken out first.
        let rPeak = r.max() ?? 0
        let loud = (0..<count).filter { r[$0] > rPeak - 40 }
        let offsets = loud.map { b[$0] - r[$0] }.sorted()
        let offset = offsets[offsets.count / 2]
        let differences = loud.map { abs(b[$0] - r[$0] - offset) }.sorted()
        let median = differences[differences.count / 2], p90 = differences[differences.count * 9 / 10]
        // An onset: a window at least 6 dB above the one before, within 40 dB of the loudest.
        // Matched when the other render rises by at least 3 dB within one window of it.
        func onsets(_ levels: [Double]) -> [Int] {
            let peak = levels.max() ?? 0
            return (1..<count).filter { levels[$0] > peak - 40 && levels[$0] - levels[$0 - 1] >= 6 }
        }
        func rises(_ levels: [Double], near window: Int) -> Bool {
            (max(1, window - 1)...min(count - 1, window + 1)).contains { levels[$0] - levels[$0 - 1] >= 3 }
        }
        let rOnsets = onsets(r), bOnsets = onsets(b)
        let unmatched = rOnsets.filter { !rises(b, near: $0) }
        let extra = bOnsets.filter { !rises(r, near: $0) }
        print("fluidsynth: " + r.map { String(Int($0.rounded())) }.joined(separator: " "))
        print("busker:     " + b.map { String(Int($0.rounded())) }.joined(separator: " "))
        print("busker − fluidsynth: \(offset) dB; envelope difference over \(differences.count) windows: median \(median) dB, 90th percentile \(p90) dB, "
              + "largest \(differences.last ?? 0) dB; onsets fluidsynth \(rOnsets), busker \(bOnsets)")
        XCTAssertEqual(unmatched, [], "fluidsynth's onsets (tenth-second windows) busker does not have")
        XCTAssertEqual(extra, [], "busker's onsets fluidsynth does not have")
        XCTAssertLessThanOrEqual(median, 3)
        XCTAssertLessThanOrEqual(p90, 6)
    }
}

// MARK: True peak at full volume

extension RenderAgainstFluidSynthTests {
    /// Every channel at full volume and expression, velocity 127: chords on
    /// fifteen GM instruments and the drums, rendered with `--volume 1`, as
    /// loud as a song can ask. `busker analyze` (libebur128's true-peak meter)
    /// reads the render's true peak at most −1.0 dBTP: the output limiter
    /// holds true peaks, not only samples.
    func testAFullVolumeRenderStaysUnderMinusOneDBTP() throws {
        var song = GMTestSong()
        let programs: [UInt8] = [0, 4, 16, 19, 24, 29, 30, 33, 40, 48, 56, 61, 65, 73, 80]
        for (index, program) in programs.enumerated() {
            let channel = UInt8(index < 9 ? index : index + 1)  // channel 10 is the drums'
            song.program(0, channel: channel, program)
            song.control(0, channel: channel, 7, 127)
            song.control(0, channel: channel, 11, 127)
            for beat in 0..<8 {
                for note: UInt8 in [36, 48, 55, 60, 64, 67, 72, 79] {
                    song.note(0.1 + Double(beat) * 0.5, channel: channel, note &+ UInt8(index % 3), velocity: 127, length: 0.45)
                }
            }
        }
        song.control(0, channel: 9, 7, 127)
        for beat in 0..<16 {
            for drum: UInt8 in [35, 38, 42, 49] { song.note(0.1 + Double(beat) * 0.25, channel: 9, drum, velocity: 127, length: 0.1) }
        }
        let file = path("full.mid")
        try song.write(to: file, endSeconds: 5)
        let (_, run) = try renderBusker(file, "full.wav", font: fluidR3, ["--volume", "1"])
        let analysis = try runBusker(["analyze", path("full.wav")])
        XCTAssertEqual(analysis.status, 0, analysis.stderr)
        print(run.stdout + analysis.stdout)
        let words = analysis.stdout.split(separator: " ")
        let index = try XCTUnwrap(words.firstIndex { $0.hasPrefix("dBTP") }, analysis.stdout)
        let truePeak = try XCTUnwrap(Double(words[index - 1]), analysis.stdout)
        XCTAssertLessThanOrEqual(truePeak, -1.0, analysis.stdout)
        XCTAssertGreaterThan(truePeak, -3.0, "the song is loud enough to reach the limiter: \(analysis.stdout)")
    }
}
