import Foundation

/// The process's private resident memory, from /proc/self/status: its
/// anonymous pages (heap, stacks, the sampler's samples) and the file pages
/// it maps (its code and libraries, as resident). Shared memory (RssShmem: a
/// sound server's buffers) is left out, as the stage's memory goal asks.
public struct PrivateMemory: Sendable {
    /// RssAnon, in bytes.
    public var anonymous: Int
    /// RssFile, in bytes.
    public var file: Int

    public var total: Int { anonymous + file }

    /// The figures now; nil where /proc/self/status does not have them.
    /// - Thread: control
    /// - Realtime: unsafe (reads a file)
    public static func current() -> PrivateMemory? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return parse(status: status)
    }

    /// RssAnon and RssFile of a /proc/PID/status text ("RssAnon:   51234 kB").
    public static func parse(status: String) -> PrivateMemory? {
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, let value = Int(words[1]) else { return nil }
            return value
        }
        guard let anonymous = kilobytes("RssAnon"), let file = kilobytes("RssFile") else { return nil }
        return PrivateMemory(anonymous: anonymous * 1024, file: file * 1024)
    }

    /// Megabytes of 2^20 bytes, one decimal.
    public static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
}
