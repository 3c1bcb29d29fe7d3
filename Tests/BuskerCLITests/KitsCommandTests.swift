import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker kits` and `--kit` with Hydrogen kits, end to end.
final class KitsCommandTests: XCTestCase {
    private var work: URL!
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    private let hydrogenKits = "/usr/share/hydrogen/data/drumkits"

    override func setUpWithError() throws {
        guard FileManager.default.fileExists(atPath: "\(hydrogenKits)/VariBreaks/drumkit.xml") else {
            throw XCTSkip("no Hydrogen kits: apt install hydrogen-drumkits (Tools/debian-packages-dev.txt)")
        }
        work = try makeWorkFolder("busker-kits")
    }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    func testKitsListsBuskersAndHydrogensKitsWithTheirPads() throws {
        let r = try runBusker(["kits"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("Busker kits:\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Hydrogen system kits (\(hydrogenKits)):\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\n  Millo_MultiLayered3: 13 pads\n    36+35 Kick · 37 Stick · "), r.stdout)
        for kit in try FileManager.default.contentsOfDirectory(atPath: hydrogenKits) {
            XCTAssertTrue(r.stdout.contains("\n  \(kit): "), kit)
        }
        XCTAssertFalse(r.stdout.split(separator: "\n").contains { $0.count > 100 }, "lines fit 100 columns")

        let one = try runBusker(["kits", "varibreaks"])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("notes: the kit's order, 36 + position (Hydrogen's)"), one.stdout)
        XCTAssertTrue(one.stdout.contains("  47      VariBreaks Hat 1 Op (1 layer, mute group 0)\n"), one.stdout)
        let help = try runBusker(["kits", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("usage: busker kits"))
        assertOneLineError(try runBusker(["kits", "No Such Kit"]), status: 1, mentioning: "busker kits lists them")
        assertOneLineError(try runBusker(["kits", "a", "b"]), status: 2, mentioning: "'b'")
    }

    /// A format-0 file at 120 BPM (960 ticks a second) playing `notes` on channel 10, half a second apart.
    private func writeDrums(_ notes: [UInt8]) throws -> String {
        var track: [UInt8] = []
        for (index, note) in notes.enumerated() {
            track += (index == 0 ? [0x00] : [0x83, 0x60]) + [0x99, note, 120]  // 480 ticks = 0x83 0x60
        }
        track += [0x83, 0x60, 0xFF, 0x2F, 0x00]
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        try Data(bytes).write(to: URL(fileURLWithPath: path("drums.mid")))
        return path("drums.mid")
    }

    private func readLeft(_ file: String) throws -> [Float] {
        let reader = try SoundFileReader(path: file)
        let all = try reader.readAll()
        return stride(from: 0, to: all.count, by: reader.channelCount).map { all[$0] }
    }

    /// `--kit NAME` and `--kit FOLDER` render with the Hydrogen kit: each hit
    /// sounds in its half second; a kit with a sample gone renders the rest
    /// and warns in one line; an unknown name is a one-line error.
    func testRenderPlaysAHydrogenKitByNameOrFolder() throws {
        let song = try writeDrums([36, 38, 42, 46])
        for kit in ["The Black Pearl 1.0", "\(hydrogenKits)/Millo_MultiLayered3"] {
            let out = path("out.wav")
            let r = try runBusker(["render", song, "-o", out, "--soundfont", smallFont, "--kit", kit, "--no-progress"])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stderr, "", "no warnings")
            let left = try readLeft(out)
            for hit in 0..<4 {
                let window = left[(hit * 24_000)..<min(left.count, hit * 24_000 + 24_000)]
                XCTAssertGreaterThan(window.map(abs).max() ?? 0, 0.01, "\(kit): hit \(hit) sounds")
            }
        }

        // A copy of VariBreaks without its kick sample.
        let copy = work.appendingPathComponent("Broken Breaks")
        try FileManager.default.copyItem(atPath: "\(hydrogenKits)/VariBreaks", toPath: copy.path)
        let kickFile = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: copy.path).first { $0.contains("Kick 1") })
        try FileManager.default.removeItem(at: copy.appendingPathComponent(kickFile))
        let r = try runBusker(["render", song, "-o", path("broken.wav"), "--soundfont", smallFont, "--kit", copy.path, "--no-progress"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let warnings = r.stderr.split(separator: "\n")
        XCTAssertEqual(warnings.count, 1, r.stderr)
        XCTAssertTrue(warnings.first?.contains(kickFile) == true && warnings.first?.hasSuffix("pad skipped") == true, r.stderr)

        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--kit", "No Such Kit"]),
                           status: 2, mentioning: "busker kits")
    }
}
