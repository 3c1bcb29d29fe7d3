import Foundation
import Instruments
import RenderTestSupport
import XCTest

/// Finding the SoundFont without configuration, and every way a SoundFont or
/// an instrument choice can be wrong: each gives one line naming the file
/// (or value), and nothing crashes.
final class SoundFontLoadingTests: XCTestCase {
    static let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    private var directory: URL!

    override func setUpWithError() throws { directory = try makeWorkFolder("busker-soundfont") }

    override func tearDownWithError() throws { removeWorkFolder(directory) }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    private func load(_ path: String, instrument: SamplerInstrument = .piano) throws -> SamplerSynth {
        try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: path, instrument: instrument), sampleRate: 48_000)
    }

    /// The error `body` throws, as the one line Busker prints.
    private func message(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    private func assertOneLine(_ text: String?, naming path: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let text else { return XCTFail("no error", file: file, line: line) }
        XCTAssertFalse(text.contains("\n"), text, file: file, line: line)
        XCTAssertTrue(text.contains(path), "\(text) does not name \(path)", file: file, line: line)
    }

    // MARK: Locating

    func testLocatorOrderIsOptionThenEnvironmentThenStandardPaths() throws {
        let a = try file("a.sf2", [1]), b = try file("b.sf2", [2]), c = try file("c.sf2", [3])
        let missing = directory.appendingPathComponent("missing.sf2").path
        let locator = SoundFontLocator(environment: ["BUSKER_SOUNDFONT": b], standardPaths: [missing, c])
        XCTAssertEqual(try locator.locate(explicitPath: a), .init(path: a, origin: .commandLine))
        XCTAssertEqual(try locator.locate(), .init(path: b, origin: .environment))
        XCTAssertEqual(try SoundFontLocator(environment: [:], standardPaths: [missing, c]).locate(),
                       .init(path: c, origin: .standardPath), "a missing standard path is skipped")
        XCTAssertEqual(try SoundFontLocator(environment: ["BUSKER_SOUNDFONT": ""], standardPaths: [c]).locate().path, c)
    }

    func testAnExplicitPathThatIsMissingIsAnErrorNotAFallback() throws {
        let c = try file("c.sf2", [3])
        let missing = directory.appendingPathComponent("typo.sf2").path
        let fromOption = message { try SoundFontLocator(environment: [:], standardPaths: [c]).locate(explicitPath: missing) }
        assertOneLine(fromOption, naming: missing)
        XCTAssertTrue(fromOption?.contains("--soundfont") == true, fromOption ?? "")
        let fromEnvironment = message { try SoundFontLocator(environment: ["BUSKER_SOUNDFONT": missing], standardPaths: [c]).locate() }
        assertOneLine(fromEnvironment, naming: missing)
        XCTAssertTrue(fromEnvironment?.contains("$BUSKER_SOUNDFONT") == true, fromEnvironment ?? "")
    }

    func testNoSoundFontAnywhereSaysWhatToInstall() {
        let missing = directory.appendingPathComponent("nothing.sf2").path
        let text = message { try SoundFontLocator(environment: [:], standardPaths: [missing]).locate() }
        XCTAssertNotNil(text)
        XCTAssertFalse(text?.contains("\n") ?? true)
        XCTAssertTrue(text?.contains("apt-get install fluid-soundfont-gm") == true, text ?? "")
    }

    func testTheDefaultsFindTheInstalledFont() throws {
        let found = try SoundFontLocator(environment: [:]).locate()
        XCTAssertEqual(found.origin, .standardPath)
        XCTAssertEqual(found.path, "/usr/share/sounds/sf2/default-GM.sf2")
    }

    // MARK: Bad SoundFonts

    func testRandomBytesAreNotASoundFont() throws {
        var generator = SystemRandomNumberGenerator()
        let path = try file("noise.sf2", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let text = message { try self.load(path) }
        assertOneLine(text, naming: path)
        XCTAssertTrue(text?.contains("not a SoundFont") == true, text ?? "")
    }

    func testOtherRIFFFilesAndTinyFilesAreNotSoundFonts() throws {
        let wave = try file("sound.sf2", Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WAVE".utf8))
        let text = message { try self.load(wave) }
        assertOneLine(text, naming: wave)
        XCTAssertTrue(text?.contains("'WAVE'") == true, text ?? "")
        let empty = try file("empty.sf2", [])
        assertOneLine(message { try self.load(empty) }, naming: empty)
        assertOneLine(message { try self.load(self.directory.path) }, naming: directory.path)
    }

    func testATruncatedRealFontIsRejectedBeforeFluidSynthReadsIt() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.smallFont))
        let path = try file("truncated.sf2", Array(whole.prefix(whole.count / 2)))
        let text = message { try self.load(path) }
        assertOneLine(text, naming: path)
        XCTAssertTrue(text?.contains("truncated") == true, text ?? "")
        XCTAssertTrue(text?.contains("\(whole.count) bytes") == true, text ?? "")
    }

    /// A header that promises a SoundFont, then garbage: FluidSynth itself
    /// refuses it, and its own message ends up in the error, not on stderr.
    func testGarbageAfterAValidHeaderIsReportedWithFluidSynthsReason() throws {
        var generator = SystemRandomNumberGenerator()
        let body = (0..<8188).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let size = UInt32(4 + body.count)
        let header = Array("RIFF".utf8) + withUnsafeBytes(of: size.littleEndian, Array.init) + Array("sfbk".utf8)
        let path = try file("garbage.sf2", header + body)
        let text = message { try self.load(path) }
        assertOneLine(text, naming: path)
        XCTAssertTrue(text?.contains("FluidSynth could not load it") == true, text ?? "")
        XCTAssertTrue(text?.contains("(") == true, "FluidSynth's reason is kept: \(text ?? "")")
    }

    /// A real font cut to a whole, consistent RIFF file whose sample data is
    /// missing: the header check passes, FluidSynth's parser must refuse it.
    func testARealFontWithItsRIFFSizePatchedToTheCutIsRefusedByFluidSynth() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.smallFont)).prefix(100_000))
        let size = UInt32(bytes.count - 8)
        for i in 0..<4 { bytes[4 + i] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(i))) }
        let path = try file("cut.sf2", bytes)
        let text = message { try self.load(path) }
        assertOneLine(text, naming: path)
        XCTAssertTrue(text?.contains("FluidSynth could not load it") == true, text ?? "")
    }

    func testAMissingFileIsNamed() {
        let missing = directory.appendingPathComponent("gone.sf2").path
        let text = message { try self.load(missing) }
        assertOneLine(text, naming: missing)
        XCTAssertTrue(text?.contains("no such file") == true, text ?? "")
    }

    // MARK: Instruments

    func testInstrumentSelectionFromTheCommandLine() throws {
        XCTAssertEqual(try SamplerInstrument.resolve(), .piano)
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "piano"), .piano)
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "xylophone"), .xylophone)
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "Acoustic Guitar (nylon)").program, 24)
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "13"), .xylophone)
        XCTAssertEqual(try SamplerInstrument.resolve(program: 40, bank: 8), SamplerInstrument(bank: 8, program: 40))
        XCTAssertEqual(try SamplerInstrument.resolve(instrument: "violin", program: 40).program, 40, "agreeing is fine")

        let unknown = message { try SamplerInstrument.resolve(instrument: "theremin") }
        XCTAssertEqual(unknown?.contains("unknown instrument 'theremin'"), true, unknown ?? "")
        XCTAssertFalse(unknown?.contains("\n") ?? true)
        XCTAssertNotNil(message { try SamplerInstrument.resolve(instrument: "piano", program: 13) })
        XCTAssertEqual(message { try SamplerInstrument.resolve(program: 128) }, "--program 128 is out of range (0-127)")
        XCTAssertEqual(message { try SamplerInstrument.resolve(bank: -1) }, "--bank -1 is out of range (0-16383)")
    }

    func testAPresetTheFontDoesNotHaveIsNamed() throws {
        let text = message { try self.load(Self.smallFont, instrument: SamplerInstrument(bank: 77, program: 3)) }
        assertOneLine(text, naming: Self.smallFont)
        XCTAssertTrue(text?.contains("bank 77, program 3") == true, text ?? "")
    }

    func testAGoodFontLoadsWithTheChosenPreset() throws {
        let piano = try load(Self.smallFont)
        XCTAssertFalse(piano.presetName.isEmpty)
        let xylophone = try load(Self.smallFont, instrument: .xylophone)
        XCTAssertNotEqual(piano.presetName, xylophone.presetName)
        XCTAssertEqual(xylophone.configuration.instrument, .xylophone)
    }
}
