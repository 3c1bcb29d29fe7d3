import Foundation

/// The state letter of a process (R, S, T…) from /proc/PID/stat.
func processState(_ pid: Int32) -> String? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
}

/// Collects what a child process writes to a pipe, on a thread of its own,
/// so the child never blocks on a full pipe and the test can wait for text.
final class OutputCollector: @unchecked Sendable {
    let pipe = Pipe()
    private let lock = NSLock()
    private var collected = ""
    private var ended = false

    init() {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty {
                    lock.lock()
                    ended = true
                    lock.unlock()
                    break
                }
                lock.lock()
                collected += String(decoding: chunk, as: UTF8.self)
                lock.unlock()
            }
        }
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }

    /// Waits (at most `timeout` s) until the writer has closed the pipe and everything is read.
    func waitForEnd(timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            lock.lock()
            let done = ended
            lock.unlock()
            if done { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }

    /// Waits (at most `timeout` s) until `needle` appears after the first `after` characters.
    func waitFor(_ needle: String, after: Int = 0, timeout: TimeInterval = 15) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let t = text
            if t.dropFirst(min(after, t.count)).contains(needle) { return true }
            usleep(20_000)
        } while Date() < deadline
        return false
    }
}
