import Engine
import XCTest

/// `SampleRing.discard`: a consumer skips samples without copying them, across
/// the ring's wrap, and never past what the producer wrote.
final class SampleRingTests: XCTestCase {
    func testDiscardSkipsSamplesAcrossTheWrapAndStopsAtTheWritten() {
        let ring = SampleRing(capacity: 8)
        var next: Float = 0
        func write(_ count: Int) -> Int {
            let samples = (0..<count).map { Float($0) + next }
            let written = samples.withUnsafeBufferPointer { ring.write($0.baseAddress!, count: count) }
            next += Float(written)
            return written
        }
        func read(_ count: Int) -> [Float] {
            var out = [Float](repeating: -1, count: count)
            let got = out.withUnsafeMutableBufferPointer { ring.read(into: $0.baseAddress!, count: count) }
            return Array(out[0..<got])
        }
        XCTAssertEqual(write(6), 6)
        XCTAssertEqual(ring.discard(count: 4), 4)
        XCTAssertEqual(ring.availableToWrite, 6, "discarded samples make room")
        XCTAssertEqual(write(5), 5)   // samples 6…10, wrapping past the end of storage
        XCTAssertEqual(ring.discard(count: 3), 3)   // 4, 5, 6
        XCTAssertEqual(read(2), [7, 8])
        XCTAssertEqual(ring.discard(count: 100), 2, "no further than what was written")
        XCTAssertEqual(ring.availableToRead, 0)
        XCTAssertEqual(ring.discard(count: 1), 0)
        XCTAssertEqual(write(1), 1)
        XCTAssertEqual(read(4), [11])
    }
}
