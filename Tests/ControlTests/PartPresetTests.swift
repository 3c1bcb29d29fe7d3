import Chains
import CommandLineInterface
import Control
import XCTest

/// A stage's parts in presets and on the restart line: `[part NAME]`
/// sections read back to exactly the settings saved, a bad value is refused
/// in one line naming its line, and the parts changed since a preset are
/// printed as `--part NAME:…`, which read back to the same settings.
final class PartPresetTests: XCTestCase {
    /// Every part away from its defaults, with values that are not whole numbers.
    static func stageSettings() -> LiveSettings {
        var settings = LivePresetTests.unusualPreset().settings
        settings.parts["keys"] = PartSettings(levelDB: -6.5, pan: -0.3, mute: false, solo: true, reverbSendPercent: 22.5)
        settings.parts["drums"] = PartSettings(levelDB: 3, pan: 0.25, mute: true, solo: false, reverbSendPercent: 0)
        settings.parts["song"] = PartSettings(levelDB: -60, pan: 1, mute: false, solo: false, reverbSendPercent: 100)
        return settings
    }

    private func scan(_ arguments: [String]) throws -> ArgumentScanner {
        try ArgumentScanner(arguments, valued: LiveSettings.valuedOptions, flags: LiveSettings.flagOptions)
    }

    func testEveryPartIsSavedAndReadsBackExactly() throws {
        let preset = LivePreset(settings: Self.stageSettings())
        let text = preset.text
        for line in ["[part keys]", "level = -6.5", "pan = -0.3", "solo = on", "reverb = 22.5",
                     "[part drums]", "mute = on", "pan = 0.25", "[part song]", "level = -60", "reverb = 100"] {
            XCTAssertTrue(text.split(separator: "\n").contains(Substring(line)), "missing line '\(line)' in:\n\(text)")
        }
        // Parts in the stage's order, after the strips.
        let order = ["[strip 2]", "[part keys]", "[part drums]", "[part song]"].map { try? XCTUnwrap(text.range(of: $0)).lowerBound }
        XCTAssertEqual(order.compactMap { $0 }, order.compactMap { $0 }.sorted(), text)
        let read = try LivePreset(text: text)
        XCTAssertEqual(read, preset)
        XCTAssertEqual(read.settings.parts["keys"]?.levelDB.bitPattern, Float(-6.5).bitPattern)
        XCTAssertEqual(read.text, text, "a second save writes the same bytes")
    }

    func testAPartWrittenByHandLoadsAndMissingKeysKeepTheirDefaults() throws {
        let preset = try LivePreset(text: "[Part Keys]\nlevel = +2\n\n[part song]\n")
        XCTAssertEqual(preset.settings.parts, ["keys": PartSettings(levelDB: 2), "song": PartSettings()])
        XCTAssertEqual(try LivePreset(text: "[bus]\n").settings.parts, [:], "no [part] section: every part at its defaults")
    }

    func testABadPartValueIsRefusedInOneLineNamingItsLine() {
        let cases: [(text: String, line: Int, message: String)] = [
            ("[part keys]\nlevel = 20", 2, "level = 20 is outside −60…12 dB"),
            ("[part drums]\npan = -2", 2, "pan = -2 is outside −1…1"),
            ("[part song]\nreverb = 101", 2, "reverb = 101 is outside 0…100 %"),
            ("[part keys]\nlevel = nan", 2, "level = nan is not a number"),
            ("[part keys]\nsolo = maybe", 2, "solo = maybe must be on or off"),
            ("[part keys]\ngain = 3", 2, "unknown key 'gain' in [part keys] (keys: level, pan, mute, solo, reverb)"),
            ("[bus]\n[part bass]", 2, "[part bass]: the parts are keys, drums, song"),
            ("[part keys]\n\n[part keys]", 3, "[part keys] appears twice (first on line 1)"),
            ("[part keys]\nmute = on\nmute = off", 3, "mute is given twice in this section (first on line 2)"),
            ("[part]", 1, "unknown section [part] (sections: [bus], [strip N], [part NAME] or [midi])"),
        ]
        for (text, line, message) in cases {
            XCTAssertThrowsError(try LivePreset(text: text), text) { error in
                guard let error = error as? PresetLineError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.line, line, "\(text): \(error.message)")
                XCTAssertEqual(error.message, message)
                XCTAssertFalse(error.message.contains("\n"), "one line")
            }
        }
    }

    func testPartOptionsOverAPresetChangeOnlyThePartsTheyName() throws {
        let base = Self.stageSettings()
        let settings = try LiveSettings(arguments: scan(["--part", "keys:level=-3,solo=off", "--part", "drums:mute=off"]), over: base)
        var expected = base
        expected.parts["keys"]?.levelDB = -3
        expected.parts["keys"]?.solo = false
        expected.parts["drums"]?.mute = false
        XCTAssertEqual(settings, expected)
    }

    func testTheRestartLineSaysTheChangedPartsAsPartOptions() throws {
        let base = Self.stageSettings()
        var changed = base
        changed.parts["keys"]?.levelDB = -3.25
        changed.parts["song"]?.mute = true
        let arguments = try XCTUnwrap(changed.argumentsChanged(from: base))
        XCTAssertEqual(arguments, ["--part", "keys:level=-3.25", "--part", "song:mute=on"])
        XCTAssertEqual(try LiveSettings(arguments: scan(arguments), over: base), changed)
        XCTAssertEqual(LiveRestartCommand.settingsArguments(changed, presetName: "gig", saved: base),
                       ["--preset", "gig", "--part", "keys:level=-3.25", "--part", "song:mute=on"])
        // Without a preset: every part not at its defaults, and they read back.
        var stage = LiveSettings()
        stage.parts = ["keys": PartSettings(), "drums": PartSettings(levelDB: -12, pan: -0.5, reverbSendPercent: 35)]
        let words = stage.commandLineArguments()
        XCTAssertEqual(words, ["--part", "drums:level=-12,pan=-0.5,reverb=35"], "a part at its defaults is not said")
        XCTAssertEqual(try LiveSettings(commandLine: words).parts, ["drums": stage.parts["drums"]!])
        // A part at its defaults named by the session but not by the preset is no change.
        var unnamed = base
        unnamed.parts["keys"] = nil
        var named = unnamed
        named.parts["keys"] = PartSettings()
        XCTAssertEqual(named.argumentsChanged(from: unnamed), [])
    }

    func testPartIsASettingNotADeviceOption() throws {
        let args = try ArgumentScanner(["--part", "keys:level=-6", "--instrument", "piano"],
                                       valued: LiveSettings.valuedOptions.union(["instrument"]), flags: LiveSettings.flagOptions)
        XCTAssertEqual(LiveRestartCommand.deviceArguments(args), ["--instrument", "piano"])
        XCTAssertEqual(try LiveSettings(arguments: args).parts, ["keys": PartSettings(levelDB: -6)])
    }

    func testBadPartOptionsAreOneLineUsageErrors() {
        let cases: [([String], String)] = [
            (["--part", "bass:level=1"], "--part bass: the parts are keys, drums and song"),
            (["--part", "keys"], "--part keys: expected NAME:KEY=VALUE, as in keys:level=-6"),
            (["--part", "keys:level=loud"], "--part keys: level needs a number, not 'loud'"),
            (["--part", "keys:mute=maybe"], "--part keys: mute is on or off, not 'maybe'"),
            (["--part", "keys:gain=1"], "--part keys: no key 'gain' (level, pan, mute, solo, reverb)"),
            (["--part", "keys:level=20"], "--part keys level 20 dB is out of range -60…12 dB"),
        ]
        for (arguments, message) in cases {
            XCTAssertThrowsError(try LiveSettings(commandLine: arguments), "\(arguments)") { error in
                XCTAssertEqual((error as? CommandLineError)?.exitCode, 2, "a usage error: \(error)")
                XCTAssertTrue("\(error)".hasPrefix(message), "'\(error)' should start '\(message)'")
            }
        }
    }
}
