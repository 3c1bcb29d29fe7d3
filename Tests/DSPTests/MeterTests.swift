import CAllocationCounter
import DSP
import Engine
import Foundation
import Synchronization
import RenderTestSupport
import XCTest

/// What the render thread and the reading thread share: the node and a few flags.
private final class SharedMeter: @unchecked Sendable {
    let meter = MeterNode()
    let harness: BlockRenderHarness
    /// Blocks rendered so far.
    let blocksRendered = Atomic<Int>(0)
    let finished = Atomic<Bool>(false)

    init() { harness = BlockRenderHarness(meter, inputChannelCounts: [2], maximumBlockSize: 256) }
}

final class MeterTests: XCTestCase {
    private func sine(amplitude: Double, frequency: Double, frames: Int, offset: Int = 0) -> [Float] {
        (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0 + offset) / 48_000)) }
    }

    func testPassThroughIsExact() {
        let meter = MeterNode()
        let harness = BlockRenderHarness(meter, inputChannelCounts: [2])
        var noise = SeededUniformNoise(state: 9)
        var left = (0..<5_000).map { _ in noise.next() * 3 }
        let right = (0..<5_000).map { _ in noise.next() }
        left[17] = .nan; left[18] = .infinity  // passed on bit for bit too
        let output = harness.run([[left, right]], blockSize: 333)
        XCTAssertEqual(output[0].map(\.bitPattern), left.map(\.bitPattern))
        XCTAssertEqual(output[1], right)
        XCTAssertEqual(meter.channelCount, 2)
        XCTAssertTrue(meter.reading(channel: 0).peak.isFinite)
        XCTAssertTrue(meter.reading(channel: 0).rms.isFinite)
    }

    func testSineLevels() {
        let meter = MeterNode()
        let harness = BlockRenderHarness(meter, inputChannelCounts: [1])
        _ = harness.run([[sine(amplitude: 0.5, frequency: 1_000, frames: 4_800)]], blockSize: 480)
        let reading = meter.reading(channel: 0)
        XCTAssertEqual(reading.peak, 0.5, accuracy: 0.005)
        XCTAssertEqual(reading.rms, 0.5 / Float(2).squareRoot(), accuracy: 0.0035)
        XCTAssertEqual(reading.rmsDB, -9.03, accuracy: 0.1)
        XCTAssertEqual(reading.peakDB, -6.02, accuracy: 0.1)
        XCTAssertEqual(reading.maxPeak, 0.5, accuracy: 1e-4)
        XCTAssertFalse(reading.hasClipped)
    }

    func testLevelsReadFromAnotherThreadWhileRendering() {
        let shared = SharedMeter()
        let warmUpBlocks = 20  // 5120 frames: more than the 50 ms RMS window
        let totalBlocks = 2_000
        let renderer = Thread {
            // 1 kHz at 48 kHz: 48 frames a period, so every 256-frame block
            // continues the same sine exactly.
            var offset = 0
            while shared.blocksRendered.load(ordering: .relaxed) < totalBlocks {
                let left = (0..<256).map { Float(0.5 * sin(2 * Double.pi * 1_000 * Double($0 + offset) / 48_000)) }
                let right = left.map { $0 * 0.25 }
                _ = shared.harness.run([[left, right]], blockSize: 256)
                offset += 256
                shared.blocksRendered.add(1, ordering: .releasing)
            }
            shared.finished.store(true, ordering: .releasing)
        }
        renderer.start()

        var checked = 0, bad: [MeterReading] = []
        func check() {
            let left = shared.meter.reading(channel: 0), right = shared.meter.reading(channel: 1)
            checked += 1
            if abs(left.peak - 0.5) > 0.005 || abs(left.rms - 0.35355) > 0.0035
                || abs(right.peak - 0.125) > 0.00125 || abs(right.rms - 0.0883883) > 0.00088 {
                bad.append(left)
            }
        }
        // Read for as long as the other thread renders; no sleeping, no timing.
        while !shared.finished.load(ordering: .acquiring) {
            if shared.blocksRendered.load(ordering: .acquiring) > warmUpBlocks { check() }
        }
        check()
        XCTAssertGreaterThan(checked, 0)
        XCTAssertTrue(bad.isEmpty, "\(bad.count) of \(checked) readings off, first \(String(describing: bad.first))")
    }

    func testPeakFallsAndRMSEmptiesInSilence() {
        let meter = MeterNode()
        let harness = BlockRenderHarness(meter, inputChannelCounts: [1])
        _ = harness.run([[sine(amplitude: 0.5, frequency: 1_000, frames: 4_800)]], blockSize: 480)
        _ = harness.run([[[Float](repeating: 0, count: 48_000)]], blockSize: 480)  // 1 s
        let reading = meter.reading(channel: 0)
        XCTAssertEqual(reading.rms, 0)
        XCTAssertEqual(reading.peakDB, -6.02 - 20, accuracy: 0.2)  // falls 20 dB per second
        XCTAssertEqual(reading.maxPeak, 0.5, accuracy: 1e-4)  // the maximum stays
    }

    func testMaxPeakAndReset() {
        let meter = MeterNode()
        let harness = BlockRenderHarness(meter, inputChannelCounts: [1])
        var loud = [Float](repeating: 0.1, count: 480)
        loud[100] = -1.2
        _ = harness.run([[loud]], blockSize: 480)
        XCTAssertEqual(meter.reading(channel: 0).maxPeak, 1.2)
        XCTAssertTrue(meter.reading(channel: 0).hasClipped)
        meter.resetPeaks()
        XCTAssertEqual(meter.reading(channel: 0).maxPeak, 1.2)  // applied by the next block
        _ = harness.run([[[Float](repeating: 0.1, count: 480)]], blockSize: 480)
        XCTAssertEqual(meter.reading(channel: 0).maxPeak, 0.1)
        XCTAssertFalse(meter.reading(channel: 0).hasClipped)
    }

    func testChannelCountAndOutOfRangeChannels() {
        let meter = MeterNode()
        XCTAssertEqual(meter.channelCount, 0)
        XCTAssertEqual(meter.reading(channel: 0), .silent)
        _ = BlockRenderHarness(meter, inputChannelCounts: [2])
        XCTAssertEqual(meter.channelCount, 2)
        XCTAssertEqual(meter.reading(channel: 2), .silent)
        XCTAssertEqual(meter.reading(channel: -1), .silent)
        let wide = MeterNode()
        _ = BlockRenderHarness(wide, inputChannelCounts: [12])
        XCTAssertEqual(wide.channelCount, MeterNode.maximumChannelCount)
        XCTAssertEqual(MeterReading(peak: 0, rms: 0).peakDB, -.infinity)
    }

    func testRMSIsIndependentOfBlockSize() {
        let input = sine(amplitude: 0.3, frequency: 440, frames: 10_000)
        var readings: [MeterReading] = []
        for blockSize in [1, 64, 333] {
            let meter = MeterNode()
            _ = BlockRenderHarness(meter, inputChannelCounts: [1]).run([[input]], blockSize: blockSize)
            readings.append(meter.reading(channel: 0))
        }
        for r in readings.dropFirst() {
            XCTAssertEqual(r.rms, readings[0].rms, accuracy: 1e-6)
            XCTAssertEqual(r.peak, readings[0].peak, accuracy: 1e-6)
        }
    }

    func testRenderDoesNotAllocate() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() == 1)
        let meter = MeterNode()
        let harness = BlockRenderHarness(meter, inputChannelCounts: [2])
        let blocks = UnsafeMutablePointer<AudioBlock>.allocate(capacity: 1)
        defer { blocks.deallocate() }
        blocks[0] = harness.inputs[0].block(frames: 512)
        let output = harness.output.block(frames: 512)
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        for k in 0..<20 {
            if k == 10 { meter.resetPeaks() }
            meter.render(inputs: UnsafeBufferPointer(start: blocks, count: 1), output: output)
            _ = meter.reading(channel: 1)
        }
        meter.render(inputs: UnsafeBufferPointer(start: blocks, count: 0), output: output)  // no input
        meter.reset()
        busker_allocation_counting_end()
        XCTAssertEqual(busker_allocation_count(), 0)
    }
}
