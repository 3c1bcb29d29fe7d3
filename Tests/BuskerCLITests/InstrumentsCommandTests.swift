import Foundation
import XCTest

/// `busker instruments [FONT]`, end to end.
final class InstrumentsCommandTests: XCTestCase {
    private let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    func testInstrumentsListsEveryPresetOfTheFont() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: fluidR3), "FluidR3_GM.sf2 is not installed (fluid-soundfont-gm)")
        let r = try runBusker(["instruments", fluidR3])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let header = try XCTUnwrap(lines.first)
        XCTAssertTrue(header.hasPrefix("\(fluidR3): "), String(header))
        let count = try XCTUnwrap(Int(header.split(separator: " ")[1]), String(header))
        XCTAssertEqual(lines[1], "bank  program  name")
        XCTAssertEqual(lines.count, count + 2, "one line per preset")
        XCTAssertEqual(lines[2], "   0        0  Yamaha Grand Piano")
        XCTAssertTrue(lines.contains("   0       13  Xylophone"), r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix(" 128        0  ") }, "the drum kits: \(r.stdout)")
        let banks = lines.dropFirst(2).map { Int($0.prefix(4).trimmingCharacters(in: .whitespaces)) ?? -1 }
        XCTAssertEqual(banks, banks.sorted(), "by bank")

        let help = try runBusker(["instruments", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("usage: busker instruments"))
    }

    func testBadFontsAreOneLineErrors() throws {
        assertOneLineError(try runBusker(["instruments", "/nonexistent/font.sf2"]), status: 1, mentioning: "/nonexistent/font.sf2: no such file")
        let notAFont = FileManager.default.temporaryDirectory.appendingPathComponent("busker-not-a-font-\(UUID().uuidString).sf2")
        try Data("RIFF\u{4}\0\0\0WAVE".utf8).write(to: notAFont)
        defer { try? FileManager.default.removeItem(at: notAFont) }
        assertOneLineError(try runBusker(["instruments", notAFont.path]), status: 1, mentioning: "is not a SoundFont")
        assertOneLineError(try runBusker(["instruments", "a.sf2", "b.sf2"]), status: 2, mentioning: "'b.sf2'")
    }
}
