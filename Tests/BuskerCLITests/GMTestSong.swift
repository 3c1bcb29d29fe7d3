import Foundation

/// A format-0 Standard MIDI File a test writes itself: 120 BPM, 480 ticks
/// per quarter, so one second is 960 ticks; events placed in seconds.
struct GMTestSong {
    static let ticksPerSecond = 960.0
    private var events: [(tick: Int, order: Int, bytes: [UInt8])] = []

    /// Adds raw channel-message `bytes` at `seconds`; events at the same time keep their order.
    mutating func add(_ seconds: Double, _ bytes: [UInt8]) {
        events.append((Int((seconds * Self.ticksPerSecond).rounded()), events.count, bytes))
    }

    /// A note of `length` seconds on `channel` (0–15).
    mutating func note(_ seconds: Double, channel: UInt8, _ note: UInt8, velocity: UInt8 = 100, length: Double) {
        add(seconds, [0x90 | channel, note, velocity])
        add(seconds + length, [0x80 | channel, note, 0])
    }

    mutating func program(_ seconds: Double, channel: UInt8, _ program: UInt8) {
        add(seconds, [0xC0 | channel, program])
    }

    mutating func control(_ seconds: Double, channel: UInt8, _ controller: UInt8, _ value: UInt8) {
        add(seconds, [0xB0 | channel, controller, value])
    }

    /// Writes the song, ending at `endSeconds`.
    func write(to path: String, endSeconds: Double) throws {
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        var last = 0
        for event in events.sorted(by: { ($0.tick, $0.order) < ($1.tick, $1.order) }) {
            track += Self.vlq(event.tick - last) + event.bytes
            last = event.tick
        }
        track += Self.vlq(max(0, Int(endSeconds * Self.ticksPerSecond) - last)) + [0xFF, 0x2F, 0x00]
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func vlq(_ value: Int) -> [UInt8] {
        var out = [UInt8(value & 0x7F)]
        var v = value >> 7
        while v > 0 {
            out.insert(UInt8(0x80 | (v & 0x7F)), at: 0)
            v >>= 7
        }
        return out
    }
}
