import Foundation
import XCTest

/// A private jackd on the dummy driver (`--no-realtime -d dummy -r 48000`),
/// one per test: started in setUp, stopped in tearDown. Its name is unique
/// to the test class and process, and `JACK_DEFAULT_SERVER` points libjack
/// (ours, and the jack_* tools run from here) at it. Skips where jackd is
/// not installed.
final class JACKServerFixture {
    let name: String
    private(set) var pid: pid_t = 0
    let period: Int
    /// Killed and not started again: JACK's server registry (/dev/shm, at
    /// most 8 servers machine-wide) still holds the name.
    private var killedWithoutGoodbye = false
    private var killedPID: pid_t = 0

    /// Starts `jackd -n NAME-PID` at `period` frames, 2 capture and 2 playback ports.
    init(name: String, period: Int = 64) throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd"), "jackd is not installed (apt-get install jackd2)")
        // JACK's jack_lsp crashes on server names of 24, 40, 56… characters.
        let candidate = "\(name)-\(getpid())"
        self.name = candidate.count % 16 == 8 ? candidate + "x" : candidate
        self.period = period
        setenv("JACK_DEFAULT_SERVER", self.name, 1)
        setenv("JACK_NO_START_SERVER", "1", 1)
        try start()
    }

    /// Starts (again) the server under the same name.
    func start() throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("busker-jackd-\(name).pid")
        // The server inherits the shell's descriptors: close all but 0-2 so that no
        // pipe of the test process is held open by a daemon (a hung Process).
        let script = """
        for fd in /proc/self/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-" 2>/dev/null || true; fi; done
        setsid jackd --no-realtime -n '\(name)' -d dummy -r 48000 -p \(period) -C 2 -P 2 >/tmp/busker-jackd-\(name).log 2>&1 </dev/null &
        echo $! > '\(pidFile.path)'
        jack_wait --wait --timeout 20 --server '\(name)' >/dev/null 2>&1
        """
        let status = try Self.run("/bin/bash", ["-c", script])
        pid = pid_t(Int32((try? String(contentsOf: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0)
        XCTAssertEqual(status, 0, "jackd '\(name)' did not start (see /tmp/busker-jackd-\(name).log)")
        try XCTSkipUnless(status == 0 && pid > 0, "jackd did not start")
    }

    /// Kills the server (SIGKILL: no goodbye to its clients) and waits for it
    /// to go. `stop()` cleans its registry entry up afterwards.
    func kill() {
        guard pid > 0 else { return }
        Glibc.kill(pid, SIGKILL)
        _ = Self.waitUntilGone(pid, seconds: 5)
        killedPID = pid
        pid = 0
        killedWithoutGoodbye = true
    }

    /// Stops the server politely (SIGTERM), waiting up to 10 s, else kills it.
    /// A server that was killed is started again under its name first and
    /// then stopped: a killed jackd leaves its entry in JACK's machine-wide
    /// registry of at most 8 servers, and eight of those make every later
    /// jackd fail ("Too many servers already active"), other people's too.
    func stop() {
        for _ in 0..<2 {
            if pid == 0 && killedWithoutGoodbye {
                killedWithoutGoodbye = false
                // JACK reclaims the name only once kill(old pid, 0) fails: after init reaps the zombie.
                let deadline = Date().addingTimeInterval(5)
                while Glibc.kill(killedPID, 0) == 0 && Date() < deadline { usleep(10_000) }
                try? start()
            }
            guard pid > 0 else { return }
            Glibc.kill(pid, SIGTERM)
            if Self.waitUntilGone(pid, seconds: 10) {
                pid = 0
                return
            }
            kill()
        }
    }

    /// Whether `pid` has exited (gone, or a zombie not yet reaped by its
    /// parent, which here is init) within `seconds`.
    private static func waitUntilGone(_ pid: pid_t, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if Glibc.kill(pid, 0) != 0 { return true }
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            if let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].hasPrefix(" Z") { return true }
            usleep(10_000)
        }
        return false
    }

    /// `jack_bufsize FRAMES` against this server.
    func setBufferSize(_ frames: Int) throws {
        XCTAssertEqual(try Self.run("/usr/bin/jack_bufsize", [String(frames)]), 0)
    }

    /// Runs a tool to its end with its output discarded; its exit status.
    @discardableResult
    static func run(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
