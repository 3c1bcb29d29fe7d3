import XCTest
import MIDI

/// Any message sequence, serialized with or without running status and with
/// real-time bytes sprinkled anywhere, parses back to the same messages.
final class MIDIParserPropertyTests: XCTestCase {
    func testAnySequenceRoundTripsWithAndWithoutRunningStatusAndSprinkledRealTime() {
        var random = SeededGenerator(seed: 0x5EED_0001)
        var sequences = 0, totalItems = 0, sprinkled = 0
        for _ in 0..<2_000 {
            let items = (0..<Int.random(in: 1...60, using: &random)).map { _ in random.item() }
            totalItems += items.count
            for runningStatus in [false, true] {
                let (bytes, lastByteIndex) = serialize(items, runningStatus: runningStatus)
                var parser = MIDIByteParser()
                XCTAssertEqual(parseAll(bytes, with: &parser), items)
                XCTAssertEqual(parser.statistics.total, 0)

                // Sprinkle real-time bytes: before byte i of the stream with probability 1/8.
                var stream: [UInt8] = []
                var expected: [ParsedItem] = []
                var itemIndex = 0
                for (position, byte) in bytes.enumerated() {
                    while Int.random(in: 0..<8, using: &random) == 0 {
                        let realTime = realTimeBytes.randomElement(using: &random)!
                        stream.append(realTime)
                        // Emitted now: after every item already complete, before the one in progress.
                        while itemIndex < items.count && lastByteIndex[itemIndex] < position {
                            expected.append(items[itemIndex]); itemIndex += 1
                        }
                        expected.append(.message(MIDIMessage(realTimeByte: realTime)!))
                        sprinkled += 1
                    }
                    stream.append(byte)
                }
                expected.append(contentsOf: items[itemIndex...])
                var sprinkledParser = MIDIByteParser()
                XCTAssertEqual(parseAll(stream, with: &sprinkledParser), expected)
                XCTAssertEqual(sprinkledParser.statistics.total, 0)
                sequences += 1
            }
        }
        XCTAssertEqual(sequences, 4_000)
        XCTAssertGreaterThan(totalItems, 50_000)
        XCTAssertGreaterThan(sprinkled, 50_000)
    }

    func testRunningStatusActuallySavesBytes() {
        var random = SeededGenerator(seed: 7)
        let notes: [ParsedItem] = (0..<100).map { _ in .message(.noteOn(channel: 0, note: random.byte(0...127), velocity: random.byte(0...127))) }
        XCTAssertEqual(serialize(notes, runningStatus: false).bytes.count, 300)
        XCTAssertEqual(serialize(notes, runningStatus: true).bytes.count, 201)
    }
}
