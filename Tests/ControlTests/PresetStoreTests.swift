import Chains
import Control
import Foundation
import RenderTestSupport
import XCTest

/// The preset folder: where it is, names, saving atomically, loading, and
/// the one-line errors for files that are missing or not presets.
final class PresetStoreTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-presets") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private var store: PresetStore {
        get throws { try PresetStore(environment: ["XDG_CONFIG_HOME": work.path + "/config", "HOME": work.path + "/home"]) }
    }

    func testTheFolderIsXDGConfigHomeElseDotConfigInHome() throws {
        XCTAssertEqual(try store.folder, work.path + "/config/busker")
        XCTAssertEqual(try PresetStore(environment: ["HOME": "/home/ann"]).folder, "/home/ann/.config/busker")
        XCTAssertEqual(try PresetStore(environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": ""]).folder,
                       "/home/ann/.config/busker", "an empty XDG_CONFIG_HOME is unset")
        XCTAssertEqual(try PresetStore(environment: ["HOME": "/home/ann", "XDG_CONFIG_HOME": "rel/conf"]).folder,
                       "/home/ann/.config/busker", "a relative XDG_CONFIG_HOME is ignored, as the spec says")
        XCTAssertThrowsError(try PresetStore(environment: [:]))
        let inHome = try PresetStore(environment: ["HOME": "/home/ann"])
        XCTAssertEqual(inHome.shown(inHome.path(of: "gig")), "~/.config/busker/gig.preset")
    }

    func testSaveCreatesTheFolderAndLoadGivesBackExactlyWhatWasSaved() throws {
        let store = try store
        let preset = LivePresetTests.unusualPreset()
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.folder))
        let shown = try store.save(preset, as: "gig")
        XCTAssertEqual(shown, work.path + "/config/busker/gig.preset")
        XCTAssertEqual(try store.load("gig"), preset)
        XCTAssertEqual(try String(contentsOfFile: store.path(of: "gig"), encoding: .utf8), preset.text)
        XCTAssertEqual(store.names(), ["gig"], "no temporary file is left behind")
        // Saving again replaces the file.
        var quieter = preset
        quieter.settings.volume = 0.1
        try store.save(quieter, as: "gig")
        XCTAssertEqual(try store.load("gig").settings.volume, 0.1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.folder), ["gig.preset"])
    }

    func testAFailedSaveLeavesTheOldFileByteForByte() throws {
        let store = try store
        try store.save(LivePresetTests.unusualPreset(), as: "gig")
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path(of: "gig")))
        // The temporary file's name taken by a folder: the save cannot even start writing.
        let blocker = store.folder + "/.gig.preset.\(getpid()).tmp"
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        XCTAssertThrowsError(try store.save(LivePreset(settings: LiveSettings()), as: "gig")) { error in
            XCTAssertTrue("\(error)".hasPrefix(store.path(of: "gig") + ": not saved: "), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.path(of: "gig"))), before)
        try FileManager.default.removeItem(atPath: blocker)
        // The rename refused (a folder where the file goes): nothing else changes, no temporary file stays.
        try FileManager.default.createDirectory(atPath: store.path(of: "band") + "/x", withIntermediateDirectories: true)
        XCTAssertThrowsError(try store.save(LivePreset(settings: LiveSettings()), as: "band"))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: store.folder)), ["gig.preset", "band.preset"])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store.path(of: "gig"))), before)
    }

    func testNamesMustNameAFileInTheFolder() throws {
        let store = try store
        for bad in ["", "a/b", "../gig", ".hidden", "tab\there"] {
            XCTAssertThrowsError(try store.save(LivePreset(settings: LiveSettings()), as: bad), bad)
            XCTAssertThrowsError(try store.load(bad), bad)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.folder), "a refused name writes nothing")
        try store.save(LivePreset(settings: LiveSettings()), as: "Market Square, Sat")
        XCTAssertEqual(store.names(), ["Market Square, Sat"])
    }

    func testMissingUnreadableAndCorruptFilesAreOneLineErrorsNamingTheFile() throws {
        let store = try store
        XCTAssertThrowsError(try store.load("gig")) { error in
            XCTAssertEqual("\(error)", store.path(of: "gig") + ": no such preset (saved presets: none)")
        }
        try FileManager.default.createDirectory(atPath: store.folder, withIntermediateDirectories: true)
        try Data([0x5B, 0x62, 0x75, 0x73, 0x5D, 0x0A, 0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: store.path(of: "binary")))
        XCTAssertThrowsError(try store.load("binary")) { error in
            XCTAssertEqual("\(error)", store.path(of: "binary") + ": is not text (UTF-8): not a preset")
        }
        try FileManager.default.createDirectory(atPath: store.path(of: "folder"), withIntermediateDirectories: true)
        XCTAssertThrowsError(try store.load("folder")) { error in
            XCTAssertEqual("\(error)", store.path(of: "folder") + ": cannot be read: Is a directory")
        }
        try "[bus]\nvolume = 0.3\n\n[strip 1]\nbass = 40\n".write(toFile: store.path(of: "loud"), atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try store.load("loud")) { error in
            XCTAssertEqual("\(error)", store.path(of: "loud") + " line 5: bass = 40 is outside −12…12 dB")
        }
    }
}
