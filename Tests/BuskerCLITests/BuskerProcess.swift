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
    // Foundation's Process can miss a child's exit when many have run (its
    // waitUntilExit then never returns, with the child long gone): once the
    // pipes have closed, a child the kernel no longer knows after 10 s is
    // reported with status −1 rather than hanging the suite.
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning && kill(process.processIdentifier, 0) != 0 {
        return BuskerRun(status: -1, stdout: String(decoding: o, as: UTF8.self),
                         stderr: String(decoding: e, as: UTF8.self) + "\n(the process ended, but its exit status was lost)")
    }
    process.waitUntilExit()
    return BuskerRun(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// Starts `path` with `args` in `environment` (this process's when nil),
/// collecting its standard output and error as they come.
func launchProgram(_ path: String, _ args: [String], environment: [String: String]? = nil) throws -> (process: Process, out: OutputCollector, err: OutputCollector) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = args
    if let environment { process.environment = environment }
    let out = OutputCollector(), err = OutputCollector()
    process.standardOutput = out.pipe
    process.standardError = err.pipe
    try process.run()
    return (process, out, err)
}

/// Starts busker with `args` in `environment` (this process's when nil).
func launchBusker(_ args: [String], environment: [String: String]? = nil) throws -> (process: Process, out: OutputCollector, err: OutputCollector) {
    try launchProgram(buskerPath, args, environment: environment)
}

/// Starts busker on the virtual sound card `card` (its ALSA configuration in
/// the environment).
func launchBusker(_ args: [String], on card: VirtualSoundCardFixture) throws -> (process: Process, out: OutputCollector, err: OutputCollector) {
    try launchBusker(args, environment: alsaEnvironment(of: card))
}

/// This process's environment with the ALSA configuration of the virtual sound card `card`.
func alsaEnvironment(of card: VirtualSoundCardFixture) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
    return environment
}

/// This process's environment for a JACK client of the server `server`
/// that never starts a server of its own.
func jackClientEnvironment(server: String) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["JACK_DEFAULT_SERVER"] = server
    environment["JACK_NO_START_SERVER"] = "1"
    return environment
}

/// Polls `condition` every 10 ms for at most `timeout` seconds; whether it came true.
func waitUntil(_ condition: () -> Bool, timeout: TimeInterval = 10) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The pid of the JACK server behind the virtual sound card (from the pid file its script writes).
func jackServerPID(of card: VirtualSoundCardFixture) throws -> Int32 {
    let pidFile = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/busker-virtual-soundcard-\(card.serverName).pid"
    return try XCTUnwrap(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
}

/// Starts the card's JACK server again under the same name. A server
/// killed with SIGKILL stays in JACK's registry (/dev/shm, 8 servers at
/// most, and a dead one is reclaimed only by a server of the same name):
/// every test that kills one calls this, so that the fixture's stop ends
/// it properly and no slot leaks for the other tests on the machine.
/// JACK refuses the name ("server already active") until the killed
/// process is reaped, so it tries a few times, a second apart.
@discardableResult
func restartJACKServer(of card: VirtualSoundCardFixture, killed pid: Int32, rate: Int = 48000) throws -> Bool {
    // JACK checks whether the old server lives with kill(pid, 0): wait until it is reaped.
    _ = waitUntil({ kill(pid, 0) != 0 })
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/virtual-soundcard").path
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("busker-restart-\(UUID().uuidString).log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: log) }
    for _ in 0..<8 {
        let restart = Process()
        restart.executableURL = URL(fileURLWithPath: "/bin/bash")
        restart.arguments = [script, "start", "--name", card.serverName, "--period", "64", "--rate", String(rate),
                             "--config", card.asoundrcURL.path]
        // A file, not a pipe: the server inherits these descriptors and outlives the script.
        let logHandle = try FileHandle(forWritingTo: log)
        restart.standardOutput = logHandle
        restart.standardError = logHandle
        try restart.run()
        restart.waitUntilExit()
        try? logHandle.close()
        if restart.terminationStatus == 0 { return true }
        sleep(1)
    }
    print("restarting JACK server \(card.serverName) failed: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    return false
}

/// Checks that a run failed with `status` and one line on stderr, "busker: …", mentioning `text`.
func assertOneLineError(_ r: BuskerRun, status: Int32, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(r.status, status, r.stderr, file: file, line: line)
    let lines = r.stderr.split(separator: "\n")
    XCTAssertEqual(lines.count, 1, "expected one line, got: \(r.stderr)", file: file, line: line)
    XCTAssertTrue(r.stderr.contains(text), "'\(r.stderr)' should mention '\(text)'", file: file, line: line)
    XCTAssertTrue(r.stderr.hasPrefix("busker: "), file: file, line: line)
}

/// A 1 MB tmpfs at `folder/disk`, a disk that fills; skips the test when
/// mounting is refused (not root). `unmount(_:)` takes it away.
func mountSmallDisk(in folder: String) throws -> String {
    let disk = folder + "/disk"
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
    let r = try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk])
    if r.status != 0 {
        throw XCTSkip("a full disk needs a small tmpfs, and mount refused it: \(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
    return disk
}

func unmount(_ disk: String) {
    _ = try? runProgram("/bin/umount", [disk])
}

/// `jack_midiseq` as the JACK client "seq" (its port `seq:out`), striking A4
/// every second and holding it for 47000 of its 48000 frames.
func startA4Sequencer(environment: [String: String]) throws -> Process {
    let sequencer = Process()
    sequencer.executableURL = URL(fileURLWithPath: "/usr/bin/jack_midiseq")
    sequencer.arguments = ["seq", "48000", "0", "69", "47000"]
    sequencer.environment = environment
    sequencer.standardOutput = FileHandle.nullDevice
    sequencer.standardError = FileHandle.nullDevice
    try sequencer.run()
    return sequencer
}

/// Ends a helper process the test started, and waits for it.
func endProcess(_ process: Process) {
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
}

/// The round trip `jack_iodelay` reported most often in `text`, in frames
/// (its lines "N frames … total roundtrip latency"); nil without one.
func mostCommonRoundTrip(in text: String) -> Double? {
    let readings = text.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).compactMap { line -> Double? in
        guard line.contains("total roundtrip latency") else { return nil }
        return Double(line.split(separator: " ").first ?? "")
    }
    let counts = Dictionary(grouping: readings, by: { $0 }).mapValues(\.count)
    return counts.max { $0.value < $1.value }?.key
}

