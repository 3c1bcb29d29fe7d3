import Chains
import CommandLineInterface
import Control
import Foundation
import MIDI
import RenderTestSupport
import XCTest

/// The MIDI mapping in a preset: what learn mode bound is saved in the
/// `[midi]` section and comes back the same on the next start; a file
/// without `[midi]` gives the defaults; a bad line names the file and line.
final class MIDIControlPresetTests: XCTestCase {
    private var folder: URL!
    private var store: PresetStore!

    override func setUpWithError() throws {
        folder = try makeWorkFolder("busker-midipreset")
        store = try PresetStore(environment: ["XDG_CONFIG_HOME": folder.path, "HOME": folder.path])
    }

    override func tearDownWithError() throws { removeWorkFolder(folder) }

    func testALearnedMappingSurvivesASaveAndALoad() throws {
        var map = MIDIControlMap.defaults
        var learn = MIDILearn()
        learn.start()
        learn.choose(.mute(strip: 2))
        XCTAssertEqual(learn.receive(.noteOn(channel: 9, note: 36, velocity: 100), map: &map), .bound(.note(36), .mute(strip: 2)))
        learn.start()
        learn.choose(.mic)
        XCTAssertEqual(learn.receive(.controlChange(channel: 0, controller: 67, value: 127), map: &map), .bound(.cc(67), .mic))
        var settings = LiveSettings()
        settings.strips = [StripSettings(channels: [1]), StripSettings(channels: [2])]
        _ = try store.save(LivePreset(settings: settings, midi: map.presetEntries), as: "gig")

        let text = try String(contentsOfFile: store.path(of: "gig"), encoding: .utf8)
        XCTAssertTrue(text.contains("[midi]\ncc7 = volume\ncc64 = mic\ncc67 = mic\ncc91 = reverb 1\nnote36 = mute 2\n"), text)
        // The next start: the same mapping, and it works.
        let loaded = try store.load("gig")
        let again = try MIDIControlMap(preset: loaded.midi)
        XCTAssertEqual(again, map)
        var responder = MIDIControlResponder(map: again)
        var live = loaded.settings
        XCTAssertEqual(responder.respond(to: .noteOn(channel: 9, note: 36, velocity: 80), settings: &live), .changed(.mute(strip: 2), source: .note(36)))
        XCTAssertEqual(live.strips.map(\.mute), [false, true])
        XCTAssertEqual(responder.respond(to: .controlChange(channel: 0, controller: 67, value: 127), settings: &live), .toggleMic(source: .cc(67)))
    }

    func testNoMIDISectionMeansTheDefaultsAndAnEmptyOneNothing() throws {
        XCTAssertEqual(try MIDIControlMap(preset: nil), .defaults)
        XCTAssertEqual(try MIDIControlMap(preset: []), .empty)
        let path = store.path(of: "bare")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[bus]\nvolume = 0.4\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try MIDIControlMap(preset: try store.load("bare").midi), .defaults)
        try "[bus]\nvolume = 0.4\n\n[midi]\n# nothing bound: my feet are busy\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try MIDIControlMap(preset: try store.load("bare").midi), .empty)
    }

    func testTheRestartLineNamesThePresetAndALearnedBindingIsNamedAsNotSaved() throws {
        let path = store.path(of: "hand")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[midi]\nCC64 = Mic\ncc7 =  VOLUME\n".write(toFile: path, atomically: true, encoding: .utf8)
        let preset = try store.load("hand")
        var map = try MIDIControlMap(preset: preset.midi)
        let invocation = LiveRestartCommand.Invocation(deviceArguments: [])
        XCTAssertEqual(LiveRestartCommand.line(settings: preset.settings, presetName: "hand", presets: store, invocation: invocation),
                       "busker live --preset hand")
        // Spelled differently by hand, the same bindings: nothing unsaved.
        XCTAssertEqual(LiveRestartCommand.unsavedMappingLines(current: map.presetEntries, presetName: "hand", presets: store), [])
        // A binding learned since: the preset still starts the sound, and the binding is named at quit.
        map.bind(.cc(16), to: .mute(strip: 1))
        XCTAssertEqual(LiveRestartCommand.line(settings: preset.settings, presetName: "hand", presets: store, invocation: invocation),
                       "busker live --preset hand")
        XCTAssertEqual(LiveRestartCommand.unsavedMappingLines(current: map.presetEntries, presetName: "hand", presets: store),
                       ["learned CC 16 → strip 1 mute: not saved; w saves it"])
        // Without a preset, the defaults are what a restart gets: only the learned binding is named.
        var learned = MIDIControlMap.defaults
        learned.bind(.cc(20), to: .gain(strip: 1))
        XCTAssertEqual(LiveRestartCommand.unsavedMappingLines(current: learned.presetEntries, presetName: nil, presets: store),
                       ["learned CC 20 → strip 1 gain: not saved; w saves it"])
    }

    func testTheRestartLineIsThePresetAndOnlyWhatChangedSince() throws {
        let path = store.path(of: "gig")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[bus]\nvolume = 0.4\nroom = hall\n\n[strip 1]\ninputs = 1\nbass = 3\n\n[strip 2]\ninputs = 2\npan = 0.6\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let saved = try store.load("gig").settings
        var settings = saved
        settings.volume = 0.2
        settings.strips[1].mute = true
        let invocation = LiveRestartCommand.Invocation(program: "/opt/busker/bin/busker",
                                                       environment: ["ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:/root/my card"],
                                                       deviceArguments: ["--input", "busker_in", "--osc", "9000"])
        XCTAssertEqual(LiveRestartCommand.line(settings: settings, presetName: "gig", presets: store, invocation: invocation),
                       "ALSA_CONFIG_PATH='/usr/share/alsa/alsa.conf:/root/my card' /opt/busker/bin/busker live --input busker_in "
                       + "--osc 9000 --preset gig --strip 2:mute=on --volume 0.2")
        // The same change on every strip is one option; the result reads back as the same settings.
        settings.strips[0].trebleDB = -2
        settings.strips[1].trebleDB = -2
        let changed = try XCTUnwrap(settings.argumentsChanged(from: saved))
        XCTAssertEqual(changed, ["--treble", "-2", "--strip", "2:mute=on", "--volume", "0.2"])
        // The howl guard off in the preset cannot be turned on by an option: every setting is spelled out.
        var noGuard = saved
        noGuard.howlGuard = false
        XCTAssertNil(saved.argumentsChanged(from: noGuard))
        XCTAssertEqual(LiveRestartCommand.settingsArguments(saved, presetName: "gig", saved: noGuard), saved.commandLineArguments())
    }

    func testTheProgramIsNamedByThePathThatWasRun() {
        XCTAssertEqual(LiveRestartCommand.program(argumentZero: "busker", directory: "/home/me"), "busker")
        XCTAssertEqual(LiveRestartCommand.program(argumentZero: ".build/release/busker", directory: "/home/me/Busker"),
                       "/home/me/Busker/.build/release/busker")
        XCTAssertEqual(LiveRestartCommand.program(argumentZero: "../b/./busker", directory: "/home/me/x"), "/home/me/b/busker")
        // Started by Tools/live on a card of its own: the script, with what busker was given beyond its devices.
        let launched = LiveRestartCommand.Invocation(program: "/b/busker", environment: ["ALSA_CONFIG_PATH=/tmp/x"],
                                                     deviceArguments: ["--input", "busker_in", "--output", "busker_out", "--osc", "9000"],
                                                     launcher: "/src/Busker/Tools/live")
        XCTAssertEqual(LiveRestartCommand.line(settings: LiveSettings(), presetName: nil, presets: nil, invocation: launched),
                       "/src/Busker/Tools/live --osc 9000")
        XCTAssertEqual(LiveRestartCommand.environmentWords(["ALSA_CONFIG_PATH": "/a:/b", "HOME": "/root", "JACK_DEFAULT_SERVER": "card"]),
                       ["ALSA_CONFIG_PATH=/a:/b", "JACK_DEFAULT_SERVER=card"])
    }

    func testABadMIDILineNamesTheFileAndTheLine() throws {
        let path = store.path(of: "typo")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[bus]\nvolume = 0.4\n\n[midi]\ncc64 = mic\nCC200 = volume\n".write(toFile: path, atomically: true, encoding: .utf8)
        let preset = try store.load("typo")
        XCTAssertThrowsError(try MIDIControlMap(preset: preset.midi)) { error in
            guard let lineError = error as? PresetLineError else { return XCTFail("\(error)") }
            XCTAssertEqual(lineError.line, 6)
            let shown = store.error(in: "typo", lineError).description
            XCTAssertTrue(shown.hasSuffix("typo.preset line 6: 'CC200 = volume': 'cc200': CC numbers go from 0 to 127"), shown)
            XCTAssertFalse(shown.contains("\n"))
        }
    }
}
