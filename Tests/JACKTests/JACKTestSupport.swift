import Engine
import Foundation
import JACK
import Session

enum JACKTestSupport {
    /// Polls the driver's events until `match` says yes or `seconds` pass; every event seen.
    static func waitForEvent(_ driver: JACKDriver, seconds: Double, _ match: (DriverEvent) -> Bool) -> (found: Bool, seen: [DriverEvent]) {
        var seen: [DriverEvent] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while let event = driver.nextEvent() {
                seen.append(event)
                if match(event) { return (true, seen) }
            }
            usleep(5000)
        }
        return (false, seen)
    }

    /// Stops `pid` (SIGSTOP) and returns once every one of its threads is
    /// stopped: the signal is delivered asynchronously, and a server thread
    /// still running could start one more cycle after `kill` returned.
    /// - Returns: whether `kill` succeeded and every thread stopped within 2 s.
    static func stopProcess(_ pid: pid_t) -> Bool {
        guard kill(pid, SIGSTOP) == 0 else { return false }
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            let states = tasks.compactMap { task -> Character? in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                      let close = stat.lastIndex(of: ")") else { return nil }
                // "pid (comm) S …": the state follows the command's closing parenthesis.
                return stat[stat.index(after: close)...].first { $0 != " " }
            }
            if !states.isEmpty && states.allSatisfy({ $0 == "T" || $0 == "t" }) { return true }
            usleep(1000)
        }
        return false
    }

    /// Names of this process's threads, from /proc/self/task/*/comm.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
