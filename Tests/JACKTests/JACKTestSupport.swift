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

    /// Names of this process's threads, from /proc/self/task/*/comm.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
