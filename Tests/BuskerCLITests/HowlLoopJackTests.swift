import Foundation
import RenderTestSupport
import XCTest

/// A real closed loop on the virtual sound card: `busker live` with its own
/// output wired back to its input in JACK (`jack_connect`), boost +4 dB and
/// volume 1, so the loop gain is +4 dB at every frequency: a flat digital
/// wire, the worst loop there is (every comb peak of the 2.7 ms round trip
/// howls at once). `jack_metro` ticks into the input as the spark.
///
/// The assertions are on the levels Busker prints in its status lines, not
/// on timing. Durations: the bare loop reaches the limiter within
/// milliseconds (each 2.7 ms round trip adds 4 dB), so 10 s of it pinned at
/// the ceiling shows all there is; the guarded run lasts 30 s,
/// which is not padding: it covers the notches' 10 s hold and their release
/// (12 dB at 1 dB/s), so the level is seen to stay down after they let go.
final class HowlLoopJackTests: XCTestCase {
    private var card: VirtualSoundCardFixture?
    private var metro: Process?

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jack_metro"), "jack_metro is not installed (jackd2 examples)")
        card = try VirtualSoundCardFixture(name: "busker-howl-loop", period: 64)
        let metro = Process()
        metro.executableURL = URL(fileURLWithPath: "/usr/bin/jack_metro")
        // −34 dBFS ticks, 40 ms of 700 Hz twice a second.
        metro.arguments = ["-n", "howlspark", "-b", "120", "-f", "700", "-A", "0.02", "-D", "40"]
        metro.standardOutput = FileHandle.nullDevice
        metro.standardError = FileHandle.nullDevice
        try metro.run()
        self.metro = metro
    }

    override func tearDownWithError() throws {
        if let metro, metro.isRunning { metro.terminate(); metro.waitUntilExit() }
        try card?.stop()
    }

    /// Runs `busker live` wired into the loop for `seconds` of its status lines; returns the left output peaks (dBFS) and the lines.
    private func runLoop(guardOn: Bool, seconds: Int) throws -> (peaks: [Float], lines: [String]) {
        let card = try XCTUnwrap(card)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: buskerPath)
        process.arguments = ["live", "--no-tui", "--input", "busker_in", "--output", "busker_out", "--period", "64",
                             "--volume", "1", "--boost", "4"] + (guardOn ? [] : ["--no-howl-guard"])
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // A background handler collects the output, so the loop below never blocks on a read and
        // the deadline always holds (a silent or stuck busker is ended, not waited for).
        let collected = CollectedOutput()
        out.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        defer { out.fileHandleForReading.readabilityHandler = nil }
        var text = ""
        var connected = false
        var statusLines: [String] = []
        var consumed = 0
        let deadline = Date().addingTimeInterval(Double(seconds) + 60)
        while Date() < deadline {
            let (all, ended) = collected.snapshot()
            if all.count == consumed {
                if ended || !process.isRunning { break }
                usleep(50_000)
                continue
            }
            text += String(decoding: all[consumed...], as: UTF8.self)
            consumed = all.count
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            statusLines = lines.dropLast().map(String.init).filter { $0.hasPrefix("[") }
            if !connected && statusLines.contains(where: { $0.contains("running") }) {
                // Busker's ports exist: close the loop, and let the metronome spark it.
                for (from, to) in [("busker_out:out_000", "busker_in:in_000"), ("busker_out:out_001", "busker_in:in_001"),
                                   ("howlspark:120_bpm", "busker_in:in_000")] {
                    XCTAssertEqual(try runProgram("/usr/bin/jack_connect", [from, to]).status, 0, "jack_connect \(from) \(to)")
                }
                connected = true
                statusLines = []
                text = String(lines.last ?? "")
            }
            if connected && statusLines.count >= seconds { break }
        }
        process.interrupt()
        // A busker that does not hear SIGINT within 10 s is killed, so the test cannot hang here either.
        let exitDeadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < exitDeadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        XCTAssertTrue(connected, "busker live did not start: \(text)")
        let peaks: [Float] = statusLines.compactMap { line in
            guard let range = line.range(of: " · out ") else { return nil }
            let value = line[range.upperBound...].prefix { $0 != "/" && $0 != " " }
            return value == "-inf" ? -200 : Float(value)
        }
        return (peaks, statusLines)
    }

    func testWithoutTheGuardTheLoopHowlsAtTheCeilingWithItTheLevelStaysDown() throws {
        let bare = try runLoop(guardOn: false, seconds: 10)
        XCTAssertGreaterThanOrEqual(bare.peaks.count, 10, bare.lines.joined(separator: "\n"))
        // From the metronome's −34 dBFS ticks to the limiter's −1 dBFS ceiling, and held there.
        XCTAssertGreaterThan(bare.peaks.max() ?? -200, -2, bare.lines.joined(separator: "\n"))
        for (i, peak) in bare.peaks.enumerated().dropFirst(3) {
            XCTAssertGreaterThan(peak, -3, "bare loop, second \(i): \(bare.lines[i])")
        }

        let guarded = try runLoop(guardOn: true, seconds: 30)
        XCTAssertGreaterThanOrEqual(guarded.peaks.count, 30, guarded.lines.joined(separator: "\n"))
        // The first seconds hold the bout: it touches the ceiling before it is
        // caught (the pinned-peak rule steps the gain 0.3 s after the peaks reach
        // the ceiling), and one or two more short bouts while the gain settles on
        // its floor (seconds 1–3 read −1 to −30 dBFS on a quiet host). The host's
        // xruns break the loop and the guard's view of it: in a CI run with 3–5
        // xruns every second the bouts went on to the 9th second (peaks −9, −5,
        // −1, −10, −11, −10 dBFS in seconds 4–9, then −29 to −43). So: from the
        // 10th second on every second stays far under the ceiling, to the 30th,
        // and from the 4th on the typical second (the median) already does.
        // The host's xruns break the loop and restart the bout the guard is catching, so a
        // second over −20 dBFS is allowed only where the xrun count rose (in it or the second
        // before); without the guard every second sits at the ceiling, xruns or not.
        let xruns = guarded.lines.map { line -> Int in
            guard let range = line.range(of: " · xruns ") else { return 0 }
            return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        var under = 0
        for (i, peak) in guarded.peaks.enumerated().dropFirst(9) where i < xruns.count {
            if peak < -20 { under += 1; continue }
            XCTAssertTrue(i >= 2 && xruns[i] > xruns[i - 2],
                          "guarded loop, second \(i + 1) at \(peak) dBFS with no xrun: \(guarded.lines[i])")
        }
        XCTAssertGreaterThanOrEqual(under, 11, "most of seconds 10–30 under −20 dBFS: \(guarded.lines.joined(separator: "\n"))")
        let settled = guarded.peaks.dropFirst(3).sorted()
        if !settled.isEmpty {
            XCTAssertLessThan(settled[settled.count / 2], -30, "median of seconds 4–30: \(guarded.lines.joined(separator: "\n"))")
        }
        XCTAssertTrue(guarded.lines.contains { $0.contains("FEEDBACK") }, "the FEEDBACK warning was shown")
        print("bare loop peaks: \(bare.peaks.map { Int($0.rounded()) }) dBFS")
        print("guarded loop peaks: \(guarded.peaks.map { Int($0.rounded()) }) dBFS")
        print("guarded loop, last line: \(guarded.lines.last ?? "")")
    }
}

/// Bytes read from a child's pipe on Foundation's reader thread, taken by the test thread.
private final class CollectedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false

    func append(_ chunk: Data) {
        lock.lock()
        if chunk.isEmpty { ended = true } else { data.append(chunk) }
        lock.unlock()
    }

    func snapshot() -> (Data, Bool) {
        lock.lock()
        defer { lock.unlock() }
        return (data, ended)
    }
}
