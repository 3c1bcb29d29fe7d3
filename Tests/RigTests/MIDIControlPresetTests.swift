import Foundation
import MIDI
import Rig
import XCTest

/// The MIDI mapping in a preset: what learn mode bound is saved in the
/// `[midi]` section and comes back the same on the next start; a file
/// without `[midi]` gives the defaults; a bad line names the file and line.
final class MIDIControlPresetTests: XCTestCase {
    private var folder: URL!
    private var store: PresetStore!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-midipreset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try PresetStore(environment: ["XDG_CONFIG_HOME": folder.path, "HOME": folder.path])
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

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

    func testTheRestartLineNamesAHandWrittenPresetWhoseMappingIsUnchanged() throws {
        let path = store.path(of: "hand")
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "[midi]\nCC64 = Mic\ncc7 =  VOLUME\n".write(toFile: path, atomically: true, encoding: .utf8)
        let preset = try store.load("hand")
        var map = try MIDIControlMap(preset: preset.midi)
        let line = LiveRestartCommand.line(settings: preset.settings, midi: map.presetEntries, presetName: "hand",
                                           presets: store, deviceArguments: [])
        XCTAssertEqual(line, "busker live --preset hand")
        // A binding learned since: the preset no longer holds this session.
        map.bind(.cc(20), to: .gain(strip: 1))
        let changed = LiveRestartCommand.line(settings: preset.settings, midi: map.presetEntries, presetName: "hand",
                                              presets: store, deviceArguments: [])
        XCTAssertFalse(changed.contains("--preset"), changed)
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
