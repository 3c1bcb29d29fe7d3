import Foundation
import XCTest

/// A private Tools/virtual-soundcard (JACK's dummy driver and ALSA PCMs of
/// type jack) for one test: started in setUp, stopped in tearDown. Throws
/// XCTSkip where JACK or the ALSA jack plugin is not installed.
public final class VirtualSoundCardFixture {
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/virtual-soundcard")

    public let serverName: String
    public let directory: URL
    private var started = false

    /// Starts a server named `name-PID` with `period`-frame periods.
    public init(name: String, period: Int = 64) throws {
        let plugins = ["/usr/lib/x86_64-linux-gnu/alsa-lib", "/usr/lib/aarch64-linux-gnu/alsa-lib", "/usr/lib/alsa-lib"]
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd"), "jackd is not installed (apt-get install jackd2)")
        try XCTSkipUnless(plugins.contains { FileManager.default.fileExists(atPath: "\($0)/libasound_module_pcm_jack.so") },
                          "the ALSA jack plugin is not installed (apt-get install libasound2-plugins)")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("busker-vsc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // JACK's jack_lsp crashes on server names of 24, 40, 56… characters (the script refuses them).
        let candidate = "\(name)-\(getpid())"
        serverName = candidate.count % 16 == 8 ? candidate + "x" : candidate
        let (status, output) = try Self.runScript(["start", "--name", serverName, "--period", String(period),
                                                  "--config", directory.appendingPathComponent("asoundrc").path])
        XCTAssertEqual(status, 0, output)
        try XCTSkipUnless(status == 0, "the virtual sound card did not start: \(output)")
        started = true
        // The ALSA jack plugin finds the server through the JACK client library's environment.
        setenv("JACK_DEFAULT_SERVER", serverName, 1)
        setenv("JACK_NO_START_SERVER", "1", 1)
    }

    /// The ALSA configuration text naming busker_in, busker_out and busker_duplex on this server.
    public func asoundrc() throws -> String {
        try String(contentsOf: asoundrcURL, encoding: .utf8)
    }

    /// Where that configuration is (for ALSA_CONFIG_PATH).
    public var asoundrcURL: URL { directory.appendingPathComponent("asoundrc") }

    public func stop() throws {
        if started { _ = try Self.runScript(["stop", "--name", serverName]) }
        started = false
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the script with its output in a file, not a pipe: the JACK
    /// server it starts inherits the script's descriptors, and would hold a
    /// pipe open (no end of file, a hung test) for as long as it runs.
    private static func runScript(_ arguments: [String]) throws -> (Int32, String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("busker-vsc-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
