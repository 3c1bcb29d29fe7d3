import Foundation
import MIDI

/// Writes recorded MIDI events as a Standard MIDI File, format 0, one track.
///
/// Tick 0 is the take's first audio sample. The division is 960 ticks per
/// quarter note at a fixed 120 BPM (a tempo event says so), which is 1920
/// ticks per second: about half a millisecond, finer than a 64-frame period.
/// Ticks are rounded from frames, never accumulated, so there is no drift.
public enum MIDITakeFile {
    public static let ticksPerQuarter = 960
    public static let microsecondsPerQuarter = 500_000

    /// The file's bytes.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    public static func bytes(events: [RecordedMIDIEvent], sampleRate: Int) -> [UInt8] {
        let ticksPerSecond = Double(ticksPerQuarter) * 1_000_000 / Double(microsecondsPerQuarter)
        var track: [UInt8] = []
        // Tempo: FF 51 03 tt tt tt.
        track += [0x00, 0xFF, 0x51, 0x03,
                  UInt8((microsecondsPerQuarter >> 16) & 0xFF), UInt8((microsecondsPerQuarter >> 8) & 0xFF),
                  UInt8(microsecondsPerQuarter & 0xFF)]
        var encoder = MIDIByteEncoder(usesRunningStatus: false)
        var lastTick = 0
        // Stable order by frame: events of one frame keep their order.
        let sorted = events.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }
        for (_, event) in sorted {
            // Only channel messages belong in a performance file; system messages
            // (clock, sysex without its payload) are left out.
            guard event.message.channel != nil else { continue }
            let tick = max(0, Int((Double(event.frame) * ticksPerSecond / Double(sampleRate)).rounded()))
            let delta = max(0, tick - lastTick)
            lastTick = max(lastTick, tick)
            track += VariableLengthQuantity.encode(UInt32(min(delta, Int(VariableLengthQuantity.maximum))))
            encoder.append(event.message, to: &track)
        }
        track += [0x00, 0xFF, 0x2F, 0x00]  // end of track
        var file: [UInt8] = Array("MThd".utf8) + be32(6) + be16(0) + be16(1) + be16(UInt16(ticksPerQuarter))
        file += Array("MTrk".utf8) + be32(UInt32(track.count)) + track
        return file
    }

    /// Writes the file atomically (a temporary next to it, then a rename).
    /// - Thread: writer, control
    /// - Realtime: unsafe (file I/O)
    public static func write(events: [RecordedMIDIEvent], sampleRate: Int, to path: String) throws {
        let data = Data(bytes(events: events, sampleRate: sampleRate))
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// `x` big-endian, four bytes.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    private static func be32(_ x: UInt32) -> [UInt8] { [UInt8(x >> 24), UInt8((x >> 16) & 0xFF), UInt8((x >> 8) & 0xFF), UInt8(x & 0xFF)] }
    /// `x` big-endian, two bytes.
    /// - Thread: writer, control
    /// - Realtime: unsafe (allocates)
    private static func be16(_ x: UInt16) -> [UInt8] { [UInt8(x >> 8), UInt8(x & 0xFF)] }
}
