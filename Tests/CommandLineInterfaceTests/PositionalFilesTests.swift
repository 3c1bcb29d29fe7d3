import CommandLineInterface
import Foundation
import RenderTestSupport
import XCTest

/// `busker play` and `busker render` tell a song from a SoundFont by content.
final class PositionalFilesTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-positional") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = work.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func testContentDecidesNotTheName() throws {
        // Named the wrong way round on purpose.
        let font = try file("song.mid", Array("RIFF".utf8) + [0x10, 0, 0, 0] + Array("sfbkLIST".utf8))
        let song = try file("font.sf2", Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0])
        XCTAssertEqual(try PositionalFiles([font, song], soundFontOption: nil), PositionalFiles(song: song, soundFont: font))
        XCTAssertEqual(try PositionalFiles([song, font], soundFontOption: nil), PositionalFiles(song: song, soundFont: font))
        let rmid = try file("wrapped.rmi", Array("RIFF".utf8) + [4, 0, 0, 0] + Array("RMIDdata".utf8))
        XCTAssertEqual(PositionalFiles.kind(of: rmid), .song)
    }

    func testUnreadableOrUnknownGoesByExtension() throws {
        XCTAssertEqual(PositionalFiles.kind(of: work.appendingPathComponent("missing.sf2").path), .soundFont)
        XCTAssertEqual(PositionalFiles.kind(of: work.appendingPathComponent("missing.mid").path), .song)
        XCTAssertEqual(PositionalFiles.kind(of: try file("text.sf3", Array("hello".utf8))), .soundFont)
        XCTAssertEqual(PositionalFiles.kind(of: try file("empty", [])), .song)
    }

    func testTwoOfAKindIsAUsageError() throws {
        let a = try file("a.mid", Array("MThd".utf8)), b = try file("b.mid", Array("MThd".utf8))
        XCTAssertThrowsError(try PositionalFiles([a, b], soundFontOption: nil)) { error in
            XCTAssertEqual((error as? CommandLineError)?.exitCode, 2)
            XCTAssertEqual("\(error)", "one song at a time: '\(a)' and '\(b)' are both MIDI files")
        }
        let font = try file("f.sf2", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("sfbk".utf8))
        XCTAssertThrowsError(try PositionalFiles([font], soundFontOption: "/other.sf2")) { error in
            XCTAssertEqual((error as? CommandLineError)?.exitCode, 2)
        }
    }
}
