import Foundation
import XCTest

/// Busker's output carried to a second JACK server by netjack2, on loopback,
/// as Tools/network-stage sets it up: server B (dummy driver, netjack2's
/// master) and server A (`jackd -d net`, clocked by B) with `busker live
/// --driver jack` on A, jack_iodelay's signal sent from B into busker:in_1
/// and Busker's out_L measured back on B.
final class NetworkStageCLITests: XCTestCase {
    private static let jackDrivers = "/usr/lib/x86_64-linux-gnu/jack"

    func testBuskerOutputReachesTheSecondServerThroughNetjack2() throws {
        for tool in ["/usr/bin/jackd", "/usr/bin/jack_load", "/usr/bin/jack_iodelay"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is not installed (apt-get install jackd2)")
        }
        for driver in ["jack_net.so", "netmanager.so", "inprocess.so"] {
            try XCTSkipUnless(FileManager.default.fileExists(atPath: "\(Self.jackDrivers)/\(driver)"),
                              "jackd2's \(driver) is missing: netjack2 cannot run here")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/network-stage").path
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("busker-network-stage-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: log) }
        // A file, not a pipe, and no descriptor above 2: the script starts two jackd.
        let command = """
        for fd in /proc/self/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null || true; fi; done
        exec '\(script)' --busker '\(buskerPath)' --settle 2 --seconds 3 --net-latency 2 >'\(log.path)' 2>&1 </dev/null
        """
        let run = try runProgram("/bin/bash", ["-c", command])
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(run.status, 0, output)

        func roundTrip(_ loop: String) -> Int? {
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(loop) }) else { return nil }
            let fields = line.dropFirst(loop.count).split(separator: " ")
            guard fields.count > 1, fields[1] == "fr" else { return nil }
            return Int(fields[0])
        }
        let netAlone = try XCTUnwrap(roundTrip("netjack2 alone"), output)
        let passThrough = try XCTUnwrap(roundTrip("pass-through client"), output)
        let busker = try XCTUnwrap(roundTrip("busker live"), output)
        // Busker renders inside A's cycle: the same round trip as any client
        // that copies its input to its output (jack_iodelay reads to a frame),
        // plus its limiter's 12 frames of true-peak delay.
        let truePeakFrames = 12
        XCTAssertLessThanOrEqual(abs(busker - passThrough - truePeakFrames), 1, output)
        // That client costs A one cycle (64 frames) over the driver's direct copy.
        XCTAssertEqual(busker - netAlone, 64 + truePeakFrames, output)

        // The signal went through Busker at unity gain (--volume 1; a 20 Hz
        // high-pass on jack_iodelay's broadband signal): out_L and out_R
        // within 1 dB of in_1, and well above silence.
        let status = try XCTUnwrap(output.split(separator: "\n").last(where: { $0.hasPrefix("busker's last status:") }), output)
        let pattern = try Regex(#"in \d+ (-?[0-9.]+) dBFS · out (-?[0-9.]+)/(-?[0-9.]+) dBFS"#)
        let levels = (try? pattern.firstMatch(in: String(status))).map { match in
            (1...3).compactMap { match.output[$0].substring.flatMap { Double($0) } }
        } ?? []
        XCTAssertEqual(levels.count, 3, "in, out_L, out_R in: \(status)")
        if levels.count == 3 {
            XCTAssertGreaterThan(levels[0], -40, String(status))
            XCTAssertEqual(levels[1], levels[0], accuracy: 1, String(status))
            XCTAssertEqual(levels[2], levels[0], accuracy: 1, String(status))
        }
    }
}
