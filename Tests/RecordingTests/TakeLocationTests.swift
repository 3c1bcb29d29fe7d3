import Foundation
import Recording
import XCTest

final class TakeLocationTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("where") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    func testTheDefaultFolderFollowsXDGThenMusic() {
        XCTAssertEqual(TakeLocation.defaultFolder(environment: ["HOME": "/home/ann", "XDG_MUSIC_DIR": "/srv/music"]), "/srv/music/Busker")
        XCTAssertEqual(TakeLocation.defaultFolder(environment: ["HOME": "/nonexistent-home"]), "/nonexistent-home/Music/Busker")
    }

    func testAnAutomaticNameIsDatedAndNeverOverwrites() throws {
        let env = ["HOME": folder, "XDG_MUSIC_DIR": folder + "/music"]
        var parts = DateComponents()
        (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) = (2026, 12, 1, 10, 30, 12)
        let date = try XCTUnwrap(Calendar.current.date(from: parts))
        let first = try TakeLocation.resolve(explicit: nil, format: .wav24, force: false, date: date, environment: env)
        XCTAssertEqual(first, folder + "/music/Busker/busker-2026-12-01-103012.wav")
        XCTAssertTrue(FileManager.default.createFile(atPath: first, contents: Data("keep".utf8)))
        let second = try TakeLocation.resolve(explicit: nil, format: .wav24, force: false, date: date, environment: env)
        XCTAssertEqual(second, folder + "/music/Busker/busker-2026-12-01-103012-2.wav")
        XCTAssertEqual(try String(contentsOfFile: first, encoding: .utf8), "keep")
        // A folder given explicitly gets a dated name inside it.
        let inFolder = try TakeLocation.resolve(explicit: folder, format: .flac, force: false, date: date, environment: env)
        XCTAssertEqual(inFolder, folder + "/busker-2026-12-01-103012.flac")
    }

    func testAnExplicitExistingFileNeedsForce() throws {
        let path = folder + "/take.wav"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("keep".utf8)))
        XCTAssertThrowsError(try TakeLocation.resolve(explicit: path, format: .wav24, force: false)) { error in
            XCTAssertEqual(error as? RecordingError, .exists(path: path))
            XCTAssertTrue("\(error)".contains("--force"))
        }
        XCTAssertEqual(try TakeLocation.resolve(explicit: path, format: .wav24, force: true), path)
        // The recorder itself refuses too (O_EXCL): no race between the check and the open.
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000)
        XCTAssertThrowsError(try Recorder.start(tap: tap, path: path, format: .wav24, sampleRate: 48000)) { error in
            XCTAssertEqual(error as? RecordingError, .exists(path: path))
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep")
    }

    func testMissingAndUnwritableFoldersAreRefused() throws {
        XCTAssertThrowsError(try TakeLocation.resolve(explicit: folder + "/no/such/take.wav", format: .wav24, force: false)) { error in
            XCTAssertEqual("\(error)", "cannot record into '\(folder)/no/such': no such folder")
        }
        // Root ignores permission bits, so as root use /sys (read-only); otherwise a folder without write permission.
        var unwritable = folder + "/locked"
        if getuid() == 0 {
            unwritable = "/sys"
        } else {
            try FileManager.default.createDirectory(atPath: unwritable, withIntermediateDirectories: true)
            chmod(unwritable, 0o500)
        }
        XCTAssertThrowsError(try TakeLocation.resolve(explicit: unwritable + "/take.wav", format: .wav24, force: false)) { error in
            XCTAssertTrue("\(error)".hasPrefix("cannot record into '\(unwritable)': "), "\(error)")
        }
        chmod(folder + "/locked", 0o700)
    }

    /// An automatic name is free for the take and its MIDI file both; an
    /// explicit one whose .mid exists needs force; the song being played is
    /// refused even with force.
    func testTakeNamesAvoidTheMIDIFileAndTheSong() throws {
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        let name = TakeLocation.datedName(at: date)
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/\(name).mid", contents: Data("old".utf8)))
        let auto = try TakeLocation.resolve(explicit: folder, format: .wav24, force: false, date: date, companions: [".mid"])
        XCTAssertEqual(auto, folder + "/\(name)-2.wav", "the pair \(name).wav/.mid is not free")

        let song = folder + "/song.mid"
        XCTAssertTrue(FileManager.default.createFile(atPath: song, contents: Data("song".utf8)))
        XCTAssertThrowsError(try TakeLocation.resolve(explicit: folder + "/song.wav", format: .wav24, force: false, companions: [".mid"])) {
            XCTAssertEqual($0 as? RecordingError, .exists(path: song))
        }
        XCTAssertThrowsError(try TakeLocation.resolve(explicit: folder + "/song.wav", format: .wav24, force: true, companions: [".mid"],
                                                      protecting: [folder + "/./song.mid"])) {
            XCTAssertEqual($0 as? RecordingError, .isSource(path: song))
        }
        XCTAssertEqual(try TakeLocation.resolve(explicit: folder + "/song.wav", format: .wav24, force: true, companions: [".mid"]),
                       folder + "/song.wav", "another .mid than the song: force overwrites it")
        XCTAssertEqual(try String(contentsOfFile: song, encoding: .utf8), "song")
    }
}
