import XCTest
import MIDI

/// SplitMix64: a tiny, fast, seeded generator, so random tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// What the parser produced, with SysEx chunks reassembled into one payload.
enum ParsedItem: Equatable, CustomStringConvertible {
    case message(MIDIMessage)
    case sysEx([UInt8], endedWithEOX: Bool)

    var description: String {
        switch self {
        case .message(let message): return "\(message)"
        case .sysEx(let payload, let eox): return "sysEx(\(payload.count) bytes, eox: \(eox))"
        }
    }
}

/// Feeds `bytes` to `parser` and collects its output, checking the SysEx chunk
/// contract on the way: chunks no larger than the capacity, `isFirst` exactly on
/// the first, and a marker whose byte count matches the bytes delivered.
func parseAll(_ bytes: [UInt8], with parser: inout MIDIByteParser,
              file: StaticString = #filePath, line: UInt = #line) -> [ParsedItem] {
    var items: [ParsedItem] = []
    var payload: [UInt8] = []
    var chunkCount = 0
    parser.parse(bytes) { output in
        switch output {
        case .message(.systemExclusive(let byteCount, let endedWithEOX)):
            XCTAssertEqual(byteCount, payload.count, "SysEx byte count", file: file, line: line)
            items.append(.sysEx(payload, endedWithEOX: endedWithEOX))
            payload = []
            chunkCount = 0
        case .message(let message):
            items.append(.message(message))
        case .sysExData(let chunk, let isFirst):
            XCTAssertEqual(isFirst, chunkCount == 0, "isFirst on the first chunk only", file: file, line: line)
            XCTAssertGreaterThan(chunk.count, 0, file: file, line: line)
            XCTAssertLessThanOrEqual(chunk.count, MIDIByteParser.sysExChunkCapacity, file: file, line: line)
            payload.append(contentsOf: chunk)
            chunkCount += 1
        }
    }
    return items
}

func parseAll(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [ParsedItem] {
    var parser = MIDIByteParser()
    return parseAll(bytes, with: &parser, file: file, line: line)
}

/// The defined real-time status bytes and the undefined ones (F9, FD).
let realTimeBytes: [UInt8] = [0xF8, 0xFA, 0xFB, 0xFC, 0xFE, 0xFF]
let undefinedRealTimeBytes: [UInt8] = [0xF9, 0xFD]

extension RandomNumberGenerator {
    mutating func byte(_ range: ClosedRange<UInt8>) -> UInt8 { UInt8.random(in: range, using: &self) }

    /// Any message the parser can produce, except the SysEx marker (see `randomItem`).
    mutating func message() -> MIDIMessage {
        let channel = byte(0...15)
        switch Int.random(in: 0..<17, using: &self) {
        case 0: return .noteOff(channel: channel, note: byte(0...127), velocity: byte(0...127))
        case 1: return .noteOn(channel: channel, note: byte(0...127), velocity: byte(0...127))
        case 2: return .polyPressure(channel: channel, note: byte(0...127), pressure: byte(0...127))
        case 3: return .controlChange(channel: channel, controller: byte(0...127), value: byte(0...127))
        case 4: return .programChange(channel: channel, program: byte(0...127))
        case 5: return .channelPressure(channel: channel, pressure: byte(0...127))
        case 6: return .pitchBend(channel: channel, value: UInt16.random(in: 0...16383, using: &self))
        case 7: return .timeCodeQuarterFrame(byte(0...127))
        case 8: return .songPosition(UInt16.random(in: 0...16383, using: &self))
        case 9: return .songSelect(byte(0...127))
        case 10: return .tuneRequest
        case 11: return .timingClock
        case 12: return .start
        case 13: return .continue
        case 14: return .stop
        case 15: return .activeSensing
        default: return .systemReset
        }
    }

    /// A message or, one time in eight, a SysEx with a payload of 0–200 bytes.
    mutating func item() -> ParsedItem {
        if Int.random(in: 0..<8, using: &self) == 0 {
            let count = Int.random(in: 0...200, using: &self)
            return .sysEx((0..<count).map { _ in byte(0...127) }, endedWithEOX: true)
        }
        // Favour channel messages, so running status gets exercised.
        if Bool.random(using: &self) {
            let channel = byte(0...1)
            return .message(Bool.random(using: &self)
                ? .noteOn(channel: channel, note: byte(0...127), velocity: byte(0...127))
                : .controlChange(channel: channel, controller: byte(0...127), value: byte(0...127)))
        }
        return .message(message())
    }
}

/// Serializes items; returns the bytes and, per item, the index of its last byte.
func serialize(_ items: [ParsedItem], runningStatus: Bool) -> (bytes: [UInt8], lastByteIndex: [Int]) {
    var encoder = MIDIByteEncoder(usesRunningStatus: runningStatus)
    var bytes: [UInt8] = []
    var ends: [Int] = []
    for item in items {
        switch item {
        case .message(let message): encoder.append(message, to: &bytes)
        case .sysEx(let payload, _): encoder.appendSysEx(payload, to: &bytes)
        }
        ends.append(bytes.count - 1)
    }
    return (bytes, ends)
}

// MARK: - Standard MIDI File building blocks, written from the SMF specification

/// A variable-length quantity: 7 bits per byte, most significant first, bit 7 set on all but the last.
func vlq(_ value: Int) -> [UInt8] {
    var bytes = [UInt8(value & 0x7F)]
    var rest = value >> 7
    while rest > 0 {
        bytes.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
        rest >>= 7
    }
    return bytes
}

func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] { Array(type.utf8) + be32(body.count) + body }

func header(format: Int, trackCount: Int, division: Int) -> [UInt8] {
    chunk("MThd", be16(format) + be16(trackCount) + be16(division))
}

/// An MTrk chunk from events given as (delta ticks, event bytes).
func track(_ events: [(Int, [UInt8])]) -> [UInt8] {
    chunk("MTrk", events.flatMap { vlq($0.0) + $0.1 })
}

let endOfTrack: [UInt8] = [0xFF, 0x2F, 0x00]
func tempoEvent(_ microseconds: Int) -> [UInt8] { [0xFF, 0x51, 0x03] + [UInt8(microseconds >> 16 & 0xFF), UInt8(microseconds >> 8 & 0xFF), UInt8(microseconds & 0xFF)] }
func textEvent(_ type: UInt8, _ text: [UInt8]) -> [UInt8] { [0xFF, type] + vlq(text.count) + text }
func textEvent(_ type: UInt8, _ text: String) -> [UInt8] { textEvent(type, Array(text.utf8)) }
