import Foundation

/// A real terminal for a test: a tmux server on its own socket running one
/// detached session of a given size. tmux runs with its output in a file,
/// not a pipe, and with every descriptor above 2 closed first: the tmux
/// server it starts would otherwise inherit them, among them the one
/// Foundation's Process watches for the child's exit, and the test would
/// wait for as long as the server runs.
struct TmuxSession {
    /// tmux's exit status and output when the session did not start.
    struct StartFailure: Error, CustomStringConvertible {
        let status: Int32
        let output: String
        var description: String { "tmux new-session exited \(status): \(output)" }
    }

    let socket: String

    /// Starts a `columns`×`rows` session running `arguments` (each quoted)
    /// under `env` with `environment` ("NAME=value" words); the pane stays
    /// 30 s after the command ends so its last screen can be read.
    init(socket: String, columns: Int, rows: Int, arguments: [String], environment: String) throws {
        self.socket = socket
        let command = arguments.map { "'\($0)'" }.joined(separator: " ")
        let started = try run(["-f", "/dev/null", "new-session", "-d", "-x", "\(columns)", "-y", "\(rows)",
                               "env \(environment) \(command); sleep 30"])
        guard started.status == 0 else {
            stop()
            throw StartFailure(status: started.status, output: started.output)
        }
    }

    /// Runs one tmux command against this session's server.
    @discardableResult
    func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("busker-tmux-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let closeAndRun = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done 2>/dev/null; exec /usr/bin/tmux "$@""#
        process.arguments = ["-c", closeAndRun, "tmux", "-L", socket] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, try String(contentsOf: log, encoding: .utf8))
    }

    /// Types one key (tmux's key names: "q", "Escape", "F5", "C-Right").
    func sendKey(_ key: String) throws {
        try run(["send-keys", key])
    }

    /// The pane's text, trailing blank lines and spaces removed.
    func screen() throws -> [String] {
        var lines = try run(["capture-pane", "-p"]).output.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.reversed().drop { $0 == " " }.reversed())
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Whether a line of the screen meets `condition` within `seconds`
    /// (polled every 0.2 s).
    func waitForLine(within seconds: TimeInterval = 20, where condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let lines = try? screen(), lines.contains(where: condition) { return true }
            usleep(200_000)
        } while Date() < deadline
        return false
    }

    /// Ends the server and the session's command with it.
    func stop() {
        _ = try? run(["kill-server"])
    }
}
