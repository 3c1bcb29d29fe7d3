import XCTest

/// `busker bench --nodes` with sox installed compares stage for stage: each of
/// the two lines names a Busker and a sox cost that were measured (not zero),
/// and the chain's sum is at least its parts. Figures only; no bound on speed.
final class ChainBenchStageTests: XCTestCase {
    func testNodesWithSoxPrintStageForStageFigures() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"), "sox is not installed")
        // 10 s of input: sox's bass and treble then cost about 0.03 s of CPU above a plain
        // copy, well over the noise of its start-up, so the difference is never read as 0.
        let r = try runBusker(["bench", "--nodes", "--seconds", "10", "--runs", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("stage for stage") }, r.stdout)

        /// The number after `label` and a space: "busker 15.8" → 15.8.
        func figure(after label: String, in line: String) -> Double? {
            guard let range = line.range(of: label + " ") else { return nil }
            return Double(line[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        for stage in ["bass +6 treble +3:", "reverb 30:"] {
            let line = try XCTUnwrap(lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(stage) }, r.stdout)
            let busker = try XCTUnwrap(figure(after: "busker", in: line), line)
            let sox = try XCTUnwrap(figure(after: "sox", in: line), line)
            XCTAssertGreaterThan(busker, 0, line)
            XCTAssertGreaterThan(sox, 0, line)
        }
        let chain = try XCTUnwrap(lines.first { $0.contains("the whole chain:") }, r.stdout)
        let sum = try XCTUnwrap(figure(after: "sum to", in: chain), chain)
        let voice = try XCTUnwrap(figure(after: "voice processing", in: chain), chain)
        let bus = try XCTUnwrap(figure(after: "the bus", in: chain), chain)
        let budget = try XCTUnwrap(figure(after: "leaves", in: chain), chain)
        // The sum holds the strips' voice processing (both strips': the built input is stereo) and
        // the bus. Each figure is printed rounded to a whole ns: the sum and the two parts may be
        // 0.5 off each, so 2.0 between them.
        XCTAssertGreaterThanOrEqual(sum, voice + bus - 2, chain)
        XCTAssertGreaterThan(voice, 0, chain)
        XCTAssertGreaterThan(budget, 0, chain)
    }
}
