import Foundation
import RenderTestSupport
import XCTest

/// What one run of the `busker` executable did.
struct BuskerRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// The busker binary sits next to the test executable in the build folder.
var buskerPath: String {
    let testBinary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = testBinary.deletingLastPathComponent()
    // On Linux the tests are one executable, BuskerPackageTests.xctest, in the products folder.
    if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent("busker").path
}

/// Runs busker with `args` to the end, collecting its output.
func runBusker(_ args: [String], environment: [String: String]? = nil) throws -> BuskerRun {
    try runProgram(buskerPath, args, environment: environment)
}

/// Runs any program to the end, collecting its output.
func runProgram(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> BuskerRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = args
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return BuskerRun(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// Starts busker on the virtual sound card `card` (its ALSA configuration in
/// the environment), collecting standard output and error as they come.
func launchBusker(_ args: [String], on card: VirtualSoundCardFixture) throws -> (process: Process, out: OutputCollector, err: OutputCollector) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: buskerPath)
    process.arguments = args
    var environment = ProcessInfo.processInfo.environment
    environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
    process.environment = environment
    let out = OutputCollector(), err = OutputCollector()
    process.standardOutput = out.pipe
    process.standardError = err.pipe
    try process.run()
    return (process, out, err)
}

/// The pid of the JACK server behind the virtual sound card (from the pid file its script writes).
func jackServerPID(of card: VirtualSoundCardFixture) throws -> Int32 {
    let pidFile = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/busker-virtual-soundcard-\(card.serverName).pid"
    return try XCTUnwrap(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
}

/// Checks that a run failed with `status` and one line on stderr, "busker: …", mentioning `text`.
func assertOneLineError(_ r: BuskerRun, status: Int32, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(r.status, status, r.stderr, file: file, line: line)
    let lines = r.stderr.split(separator: "\n")
    XCTAssertEqual(lines.count, 1, "expected one line, got: \(r.stderr)", file: file, line: line)
    XCTAssertTrue(r.stderr.contains(text), "'\(r.stderr)' should mention '\(text)'", file: file, line: line)
    XCTAssertTrue(r.stderr.hasPrefix("busker: "), file: file, line: line)
}
