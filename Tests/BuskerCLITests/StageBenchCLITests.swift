import Foundation
import XCTest

/// `busker bench --stage` builds and plays the whole stage and prints each
/// figure issue 27 asks for, each against its goal. Figures only: no bound on
/// speed (timing belongs in the printed figures), but every figure must have
/// been measured.
final class StageBenchCLITests: XCTestCase {
    func testStagePrintsLoadWorstBlockVoicesVoiceCostAndMemory() throws {
        let r = try runBusker(["bench", "--stage", "--seconds", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        func line(_ start: String) throws -> String {
            try XCTUnwrap(lines.first { $0.hasPrefix(start) }, "no line starting '\(start)' in:\n\(r.stdout)")
        }
        /// The number before `label`: ("12.5 % of one core", "% of one core") → 12.5.
        func figure(before label: String, in text: String) throws -> Double {
            let range = try XCTUnwrap(text.range(of: label), "'\(label)' in '\(text)'")
            let head = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            return try XCTUnwrap(Double(head.split(separator: " ").last ?? ""), "a number before '\(label)' in '\(text)'")
        }
        /// The number after `label`: ("keys mean 17.3", "keys mean ") → 17.3.
        func figure(after label: String, in text: String) throws -> Double {
            let range = try XCTUnwrap(text.range(of: label), "'\(label)' in '\(text)'")
            return try XCTUnwrap(Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." }), "a number after '\(label)' in '\(text)'")
        }
        func assertVerdict(_ text: String) {
            XCTAssertTrue(text.hasSuffix(": met") || text.hasSuffix(": MISSED"), "a goal's verdict ends '\(text)'")
        }

        XCTAssertTrue(try line("64-frame blocks at 48000 Hz").contains("thread audio-render"), r.stdout)
        let load = try line("average DSP load:")
        XCTAssertGreaterThan(try figure(before: "% of one core", in: load), 0)
        XCTAssertGreaterThan(try figure(before: "% of its budget", in: load), 0)
        assertVerdict(load)
        let worst = try line("worst block:")
        let worstPercent = try figure(before: "% of its budget", in: worst)
        let p999 = try figure(before: "%; goal", in: worst)
        XCTAssertGreaterThan(p999, 0)
        XCTAssertGreaterThanOrEqual(worstPercent, p999, "the worst block is at least the 99.9th percentile")
        assertVerdict(worst)
        let voices = try line("sampler voices:")
        // The held chord is 16 keys; the song's 15 melodic channels each sound at once at the top.
        XCTAssertGreaterThanOrEqual(try figure(after: "keys mean ", in: voices), 16, voices)
        XCTAssertGreaterThanOrEqual(try figure(after: "song mean ", in: voices), 1, voices)
        XCTAssertGreaterThan(try figure(after: "kit hits most ", in: voices), 0, voices)
        let cost = try line("cost per sampler voice:")
        XCTAssertNotNil(Double(cost.dropFirst("cost per sampler voice: ".count).prefix { $0.isNumber || $0 == "." || $0 == "-" }),
                        "a measured cost: \(cost)")
        let memory = try line("private memory:")
        let total = try figure(after: "private memory: ", in: memory)
        let anonymous = try figure(after: "RssAnon ", in: memory), file = try figure(after: "RssFile ", in: memory)
        // Each is printed to 0.1 MB: the sum may be 0.1 off its parts.
        XCTAssertEqual(total, anonymous + file, accuracy: 0.11, memory)
        XCTAssertGreaterThan(anonymous, 0)
        assertVerdict(memory)
    }

    func testChainBenchOptionsAreRefusedWithStageAndStageOptionsWithoutIt() throws {
        for (args, name) in [(["--runs", "2"], "--runs"), (["--input", "/nonexistent.wav"], "--input"), (["--no-sox"], "--no-sox")] {
            assertOneLineError(try runBusker(["bench", "--stage"] + args), status: 2, mentioning: name)
        }
        assertOneLineError(try runBusker(["bench", "--soundfont", "/usr/share/sounds/sf2/FluidR3_GM.sf2"]), status: 2, mentioning: "--stage")
        assertOneLineError(try runBusker(["bench", "--howl", "--stage"]), status: 2, mentioning: "--stage")
        assertOneLineError(try runBusker(["bench", "--stage", "--seconds", "1", "--soundfont", "/nonexistent/missing.sf2"]),
                           status: 1, mentioning: "missing.sf2")
    }
}
