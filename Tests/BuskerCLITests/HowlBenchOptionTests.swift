import XCTest

/// `busker bench --howl` runs the feedback simulator only: the chain bench's options are refused, not ignored.
final class HowlBenchOptionTests: XCTestCase {
    func testChainBenchOptionsAreRefusedWithHowl() throws {
        for (args, name) in [(["--period", "128"], "--period"), (["--runs", "2"], "--runs"), (["--file-period", "64"], "--file-period"),
                             (["--input", "/nonexistent.wav"], "--input"), (["--no-howl-guard"], "--no-howl-guard")] {
            let r = try runBusker(["bench", "--howl", "--seconds", "4"] + args)
            assertOneLineError(r, status: 2, mentioning: name)
        }
        let r = try runBusker(["bench", "--howl", "--seconds", "3"])
        assertOneLineError(r, status: 2, mentioning: "--seconds")
        XCTAssertTrue(try runBusker(["bench", "--help"]).stdout.contains("--seconds 4…600"))
    }
}
