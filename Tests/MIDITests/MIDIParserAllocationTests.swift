import CAllocationCounter
import MIDI
import XCTest

/// The parser runs on the MIDI input thread and its output crosses to the
/// audio thread: parsing must never touch the heap.
final class MIDIParserAllocationTests: XCTestCase {
    func testParsingAllocatesNothing() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        // Note on/off with running status, controllers, pitch bend, clock bytes
        // in the middle of messages, and a SysEx longer than the parser's buffer.
        var stream: [UInt8] = []
        for i in 0..<2000 {
            stream += [0x90, UInt8(i % 128), 100, UInt8((i + 7) % 128), 0, 0xF8, 0xB0, 7, UInt8(i % 128), 0xE0, 0, 64]
        }
        stream += [0xF0] + (0..<1000).map { UInt8($0 % 128) } + [0xFE, 0x01, 0xF7]
        var parser = MIDIByteParser()
        var messages = 0, sysExBytes = 0
        var counts = (allocations: 0, frees: 0)
        stream.withUnsafeBufferPointer { bytes in
            busker_allocation_counts_reset()
            busker_allocation_counting_begin()
            for byte in bytes {
                parser.parse(byte) { output in
                    switch output {
                    case .message: messages += 1
                    case let .sysExData(chunk, _): sysExBytes += chunk.count
                    }
                }
            }
            busker_allocation_counting_end()
            counts = (busker_allocation_count(), busker_free_count())
        }
        XCTAssertGreaterThan(messages, 10_000, "the stream was parsed")
        XCTAssertEqual(sysExBytes, 1001)
        XCTAssertEqual(counts.allocations, 0)
        XCTAssertEqual(counts.frees, 0)
    }
}
