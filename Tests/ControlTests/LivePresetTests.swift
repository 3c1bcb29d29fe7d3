import Chains
import Control
import DSP
import XCTest

/// The preset text: what a save writes reads back to exactly the same
/// settings, a file written by hand loads, and each kind of mistake is an
/// error naming its line.
final class LivePresetTests: XCTestCase {
    /// Two strips, every value away from its default, values that are not
    /// whole numbers (0.35, −0.3, 1.5) and a MIDI section.
    static func unusualPreset() -> LivePreset {
        var settings = LiveSettings()
        settings.volume = 0.35
        settings.room = .hall
        settings.howlGuard = false
        var voice = StripSettings(channels: [1])
        voice.gainDB = 1.5
        voice.highPassHz = 120
        voice.noiseGate = true
        voice.gateThresholdDB = -42.5
        voice.compressor = true
        voice.compressorMakeupDB = -3
        voice.voiceProcessing = true
        voice.bassDB = -4
        voice.trebleDB = 2.25
        voice.boostDB = 7
        voice.reverbSendPercent = 33.3
        voice.pan = -0.3
        var guitar = StripSettings(channels: [2, 3])
        guitar.pan = 0.7
        guitar.mute = true
        guitar.bassDB = 12
        guitar.trebleDB = -12
        settings.strips = [voice, guitar]
        return LivePreset(settings: settings, midi: [PresetEntry("cc64", "mic"), PresetEntry("note36 ch10", "mute 2")])
    }

    func testWrittenTextReadsBackToTheSameSettingsExactly() throws {
        let preset = Self.unusualPreset()
        let read = try LivePreset(text: preset.text)
        XCTAssertEqual(read, preset)
        // Float equality is exact; the bit patterns say so without doubt.
        for (a, b) in zip(read.settings.strips, preset.settings.strips) {
            XCTAssertEqual(a.trebleDB.bitPattern, b.trebleDB.bitPattern)
            XCTAssertEqual(a.reverbSendPercent.bitPattern, b.reverbSendPercent.bitPattern)
            XCTAssertEqual(a.pan.bitPattern, b.pan.bitPattern)
        }
        XCTAssertEqual(read.text, preset.text, "a second save writes the same bytes")
        let lines = preset.text.split(separator: "\n", omittingEmptySubsequences: false)
        let ccLine = try XCTUnwrap(lines.firstIndex(of: "cc64 = mic")) + 1
        XCTAssertEqual(read.midi?.map(\.line), [ccLine, ccLine + 1], "the MIDI lines keep their line numbers for the mapping's errors")
    }

    func testTheTextNamesEveryKeyAsTheCommandLineDoes() {
        let text = Self.unusualPreset().text
        for line in ["volume = 0.35", "room = hall", "howl-guard = off", "[strip 2]", "inputs = 2+3", "gain = 1.5",
                     "pan = -0.3", "mute = on", "high-pass = 120", "gate = on", "gate-threshold = -42.5", "compressor = on",
                     "makeup = -3", "voice-processing = on", "bass = -4", "treble = 2.25", "boost = 7", "reverb = 33.3",
                     "cc64 = mic", "note36 ch10 = mute 2"] {
            XCTAssertTrue(text.split(separator: "\n").contains(Substring(line)), "missing line '\(line)' in:\n\(text)")
        }
    }

    func testAHandWrittenPresetLoadsAndMissingKeysKeepTheirDefaults() throws {
        let text = """
        # my gig at the market\r
          [Bus]
        volume = .5     # not too loud
        room=small

        [strip 2]
        inputs = 2
        pan = +1
        [STRIP 1]
        inputs = 1 + 2
        bass = 3
        Treble = -2
        """
        let preset = try LivePreset(text: text)
        var expected = LiveSettings()
        expected.volume = 0.5
        expected.room = .small
        var one = StripSettings(channels: [1, 2])
        one.bassDB = 3
        one.trebleDB = -2
        var two = StripSettings(channels: [2])
        two.pan = 1
        expected.strips = [one, two]
        XCTAssertEqual(preset.settings, expected)
        XCTAssertNil(preset.midi, "no [midi] section: the mapping keeps its defaults")
        XCTAssertEqual(try LivePreset(text: "# nothing but a comment\n").settings, LiveSettings(), "an empty preset is the defaults")
        XCTAssertEqual(try LivePreset(text: "[midi]\n").midi, [], "an empty [midi] binds nothing")
    }

    func testEachMistakeIsAnErrorNamingItsLine() {
        let cases: [(text: String, line: Int, message: String)] = [
            ("[bus]\nvolume = 0.5\n\n[strip 1]\nbass = 3\n\n# too much\nbass = 40", 8, "bass is given twice in this section (first on line 5)"),
            ("[strip 1]\nbass = 40", 2, "bass = 40 is outside −12…12 dB"),
            ("[bus]\nvolume = 1.5", 2, "volume = 1.5 is outside 0…1"),
            ("[strip 1]\ngain = loud", 2, "gain = loud is not a number"),
            ("[strip 1]\ngain = nan", 2, "gain = nan is not a number"),
            ("[strip 1]\ngate = maybe", 2, "gate = maybe must be on or off"),
            ("[strip 1]\npan = 1.5", 2, "pan = 1.5 is outside −1…1"),
            ("[strip 1]\nhigh-pass = 10", 2, "high-pass = 10 is outside 20…500 Hz"),
            ("[bus]\nroom = cave", 2, "room = cave must be one of small, medium, large, hall"),
            ("[strip 1]\ninputs = 0", 2, "inputs = 0 must be capture channels 1…64, as in 1 or 1+2"),
            ("[strip 1]\ninputs = 1+1", 2, "inputs = 1+1 names channel 1 twice"),
            ("[strip 1]\nloudness = 3", 2, "unknown key 'loudness' in [strip 1]"),
            ("[bus]\nbass = 3", 2, "unknown key 'bass' in [bus] (keys: volume, room, howl-guard)"),
            ("[bus]\n[strip 1]\n[bus]", 3, "[bus] appears twice (first on line 1)"),
            ("[strip 1]\n\n[strip 1]", 3, "[strip 1] appears twice (first on line 1)"),
            ("[strips]", 1, "unknown section [strips]"),
            ("[strip 0]", 1, "strips are numbered 1…16"),
            ("[bus", 1, "[bus needs a closing ]"),
            ("volume = 0.5", 1, "volume = 0.5 comes before any section"),
            ("[bus]\nvolume 0.5", 2, "'volume 0.5' is not key = value"),
            ("[bus]\n= 0.5", 2, "has no key before ="),
            ("[strip 1]\n[strip 3]\nbass = 1", 2, "[strip 3] but no [strip 2]"),
        ]
        for (text, line, message) in cases {
            XCTAssertThrowsError(try LivePreset(text: text), text) { error in
                guard let error = error as? PresetLineError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.line, line, "\(text): \(error.message)")
                XCTAssertTrue(error.message.contains(message), "'\(error.message)' should say '\(message)'")
                XCTAssertFalse(error.message.contains("\n"), "one line")
            }
        }
    }
}
