#if canImport(Glibc)
import Glibc
#endif
import CFluidSynth
import InstrumentTestSupport
import Instruments
import MIDI
import XCTest

/// A preset cut from a SoundFont into a font of its own plays exactly as
/// it does in the whole font, and the cut font is a SoundFont FluidSynth
/// reads from disk like any other.
final class SoundFontSubsetTests: XCTestCase {
    /// Renders one second of `notes` (channel, note) after `programs`
    /// (channel, program) on a synth playing every channel.
    private func render(_ presets: SoundFontPresets, programs: [(UInt8, UInt8)], notes: [(UInt8, UInt8)]) throws -> [Float] {
        let synth = try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: presets.path), sampleRate: 48_000,
                                     channels: .all, presets: presets)
        let changes = programs.map { MIDIMessage.programChange(channel: $0.0, program: $0.1) }
        synth.preload(presetsSelectedBy: changes)
        changes.forEach(synth.apply)
        for (channel, note) in notes { synth.apply(.noteOn(channel: channel, note: note, velocity: 100)) }
        var left = [Float](repeating: 0, count: 48_000), right = left
        left.withUnsafeMutableBufferPointer { l in
            right.withUnsafeMutableBufferPointer { r in
                synth.render(left: l.baseAddress!, right: r.baseAddress!, frameCount: 48_000)
            }
        }
        return left + right
    }

    /// Piano, strings (stereo sample pairs), flute, bass and the drum kit:
    /// every sample of a second of them equal, cut preset by preset or read
    /// from the whole font.
    func testPresetsCutOneByOnePlayTheSameSamplesAsTheWholeFont() throws {
        let font = SamplerTestRig.fluidR3
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "FluidR3_GM.sf2 is not installed (fluid-soundfont-gm)")
        let cut = try SoundFontPresets(path: font)
        let whole = try SoundFontPresets(path: font, readingWholeFont: true)
        XCTAssertTrue(cut.loadsPresetsAlone)
        XCTAssertFalse(whole.loadsPresetsAlone)
        XCTAssertEqual(cut.presets, whole.presets, "the same presets listed, by bank and program, with their names")
        let programs: [(UInt8, UInt8)] = [(0, 0), (1, 48), (2, 73), (3, 33)]
        let notes: [(UInt8, UInt8)] = [(0, 60), (0, 64), (1, 55), (2, 72), (3, 36), (9, 36), (9, 38), (9, 42)]
        let a = try render(cut, programs: programs, notes: notes)
        let b = try render(whole, programs: programs, notes: notes)
        XCTAssertEqual(cut.residentPresets, whole.residentPresets)
        XCTAssertEqual(cut.residentPresets.count, 5, "four programs and the drum kit")
        XCTAssertGreaterThan(a.map(abs).max() ?? 0, 0.01, "it sounds")
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(zip(a, b).filter { $0 != $1 }.count, 0, "samples that differ")
    }

    /// The cut tables after the original's header, INFO and sample data make
    /// a file FluidSynth loads from disk like any other: one preset,
    /// its name, and only the instruments and samples it plays.
    func testACutPresetIsASoundFontOfItsOwn() throws {
        let font = SamplerTestRig.smallFont
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb.sf2 is not installed (timgm6mb-soundfont)")
        let tables = try SoundFontPresetTables(path: font)
        let piano = try XCTUnwrap(tables.presetHeaders.first { $0.bank == 0 && $0.program == 0 })
        let list = tables.subsetList(presetRecord: piano.record)
        let original = try Data(contentsOf: URL(fileURLWithPath: font))
        var file = Data(original.prefix(tables.listOffset)) + Data(list)
        let size = UInt32(file.count - 8)
        file.replaceSubrange(4..<8, with: [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)])
        let path = NSTemporaryDirectory() + "busker-subset-\(getpid()).sf2"
        try file.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        XCTAssertLessThan(list.count, (tables.listEnd - tables.listOffset) / 10, "a tenth of the tables at most")

        let subset = try SoundFontPresetTables(path: path)
        XCTAssertEqual(subset.presetHeaders.map(\.name), [piano.name])
        let settings = try XCTUnwrap(new_fluid_settings())
        defer { delete_fluid_settings(settings) }
        _ = fluid_settings_setint(settings, "synth.verbose", 0)
        let synth = try XCTUnwrap(new_fluid_synth(settings))
        defer { delete_fluid_synth(synth) }
        let id = fluid_synth_sfload(synth, path, 0)
        XCTAssertNotEqual(id, FLUID_FAILED)
        let loaded = try XCTUnwrap(fluid_synth_get_sfont_by_id(synth, id))
        var names: [String] = []
        fluid_sfont_iteration_start(loaded)
        while let preset = fluid_sfont_iteration_next(loaded) { names.append(String(cString: fluid_preset_get_name(preset))) }
        XCTAssertEqual(names, [piano.name])
    }

    /// Of two presets at one bank and program, the cut path chooses the one
    /// FluidSynth chooses in the whole font (the later in the file).
    func testTwoPresetsAtOneBankAndProgramResolveAsInTheWholeFont() throws {
        let font = SamplerTestRig.smallFont
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb.sf2 is not installed (timgm6mb-soundfont)")
        let tables = try SoundFontPresetTables(path: font)
        let xylophone = try XCTUnwrap(tables.presetHeaders.first { $0.bank == 0 && $0.program == 13 })
        let piano = try XCTUnwrap(tables.presetHeaders.first { $0.bank == 0 && $0.program == 0 })
        var file = try Data(contentsOf: URL(fileURLWithPath: font))
        // The xylophone's header renumbered to the piano's bank and program.
        let phdr = try XCTUnwrap(file.range(of: Data("phdr".utf8), in: tables.listOffset..<file.count)).lowerBound + 8
        file[phdr + xylophone.record * 38 + 20] = 0
        file[phdr + xylophone.record * 38 + 21] = 0
        let path = NSTemporaryDirectory() + "busker-subset-twice-\(getpid()).sf2"
        try file.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let cut = try SoundFontPresets(path: path)
        let whole = try SoundFontPresets(path: path, readingWholeFont: true)
        XCTAssertTrue(cut.loadsPresetsAlone)
        let expected = xylophone.record > piano.record ? xylophone.name : piano.name
        XCTAssertEqual(whole.index(bank: 0, program: 0).map { whole.presets[$0].name }, expected)
        XCTAssertEqual(cut.index(bank: 0, program: 0).map { cut.presets[$0].name }, expected)
        XCTAssertEqual(cut.presets, whole.presets)
    }

    /// A font whose tables cut but which FluidSynth refuses (a SoundFont 1
    /// version number) is refused at load, in FluidSynth's words, as a font
    /// read whole is, not played as silence.
    func testAFontFluidSynthRefusesIsRefusedAtLoad() throws {
        let font = SamplerTestRig.smallFont
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb.sf2 is not installed (timgm6mb-soundfont)")
        var file = try Data(contentsOf: URL(fileURLWithPath: font))
        let ifil = try XCTUnwrap(file.range(of: Data("ifil".utf8))).lowerBound + 8
        file[ifil] = 1
        file[ifil + 1] = 0
        let path = NSTemporaryDirectory() + "busker-subset-sf1-\(getpid()).sf2"
        try file.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        XCTAssertNoThrow(try SoundFontPresetTables(path: path), "the tables themselves are fine")
        XCTAssertThrowsError(try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: path), sampleRate: 48_000)) { error in
            guard case let SamplerError.soundFontLoadFailed(failedPath, message) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(failedPath, path)
            XCTAssertTrue(message?.contains("version") == true, "FluidSynth's words: \(message ?? "none")")
        }
    }

    /// Tables whose indices point outside them are not cut (the whole font
    /// is then left to FluidSynth, which has its own rules for damage).
    func testTablesThatPointOutsideThemselvesAreNotCut() throws {
        let font = SamplerTestRig.smallFont
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb.sf2 is not installed (timgm6mb-soundfont)")
        let tables = try SoundFontPresetTables(path: font)
        var file = try Data(contentsOf: URL(fileURLWithPath: font))
        // The first preset's first bag, pointed past the bag table.
        let phdr = try XCTUnwrap(file.range(of: Data("phdr".utf8), in: tables.listOffset..<file.count)).lowerBound + 8
        file[phdr + 24] = 0xFF
        file[phdr + 25] = 0xFF
        let path = NSTemporaryDirectory() + "busker-subset-bad-\(getpid()).sf2"
        try file.write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        XCTAssertThrowsError(try SoundFontPresetTables(path: path)) { error in
            XCTAssertTrue((error as? SoundFontPresetTables.Unsupported)?.reason.contains("phdr record 0") == true, "\(error)")
        }
    }
}

/// Damaged preset tables never trap the cutter: 300 copies of a font with
/// bytes of its preset tables overwritten at random either read and cut
/// every preset into tables of the right shape, or are refused with a reason.
final class SoundFontSubsetDamageTests: XCTestCase {
    func testDamagedTablesAreCutOrRefusedNeverTrapped() throws {
        let font = SamplerTestRig.smallFont
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb.sf2 is not installed (timgm6mb-soundfont)")
        let original = try Data(contentsOf: URL(fileURLWithPath: font))
        let tables = try SoundFontPresetTables(path: font)
        let listBody = (tables.listOffset + 12)..<tables.listEnd
        let path = NSTemporaryDirectory() + "busker-subset-damage-\(getpid()).sf2"
        defer { unlink(path) }
        var seed: UInt64 = 16
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        var (cut, refused) = (0, 0)
        for _ in 0..<300 {
            var file = original
            for _ in 0..<(1 + next() % 8) {
                file[listBody.lowerBound + next() % listBody.count] = UInt8(truncatingIfNeeded: next())
            }
            try file.write(to: URL(fileURLWithPath: path))
            do {
                let damaged = try SoundFontPresetTables(path: path)
                for header in damaged.presetHeaders {
                    let list = damaged.subsetList(presetRecord: header.record)
                    // LIST, size, pdta, then nine tables: a multiple of their record sizes each.
                    XCTAssertEqual(Array(list[0..<4]), Array("LIST".utf8))
                    XCTAssertEqual(list.count % 2, 0)
                }
                cut += 1
            } catch {
                XCTAssertFalse(error.reason.isEmpty)
                refused += 1
            }
        }
        print("damaged preset tables: \(cut) cut, \(refused) refused")
        XCTAssertEqual(cut + refused, 300)
        XCTAssertGreaterThan(refused, 0, "some damage is found")
        XCTAssertGreaterThan(cut, 0, "damage to names and values leaves tables that cut")
    }
}
