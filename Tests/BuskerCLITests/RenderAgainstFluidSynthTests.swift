import Foundation
import XCTest

/// `busker render` against `fluidsynth -F` on the same file and SoundFont:
/// files the tests write themselves, rendered by both programs, measured in
/// tenth-second windows.
final class RenderAgainstFluidSynthTests: XCTestCase {
    private var work: URL!
    private let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    private let fluidsynth = "/usr/bin/fluidsynth"

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: fluidsynth), "needs the fluidsynth program")
        work = FileManager.default.temporaryDirectory.appendingPathComponent("busker-vs-fluidsynth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let work { try? FileManager.default.removeItem(at: work) }
    }

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
}
