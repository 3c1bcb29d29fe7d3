import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import XCTest

final class MixerTests: XCTestCase {
    private let rampFrames = 960  // 20 ms at 48 kHz
    private let minus3dB = Float(0.5).squareRoot()

    private func constant(_ value: Float, _ frames: Int) -> [Float] { [Float](repeating: value, count: frames) }

    func testShape() {
        let mixer = MixerNode(inputCount: 3)
        XCTAssertEqual(mixer.inputBusCount, 3)
        XCTAssertEqual(mixer.inputs.count, 3)
        XCTAssertEqual(mixer.outputChannelCount(inputChannelCounts: [1, 2, 1]), 2)
        XCTAssertEqual(MixerNode(inputCount: 1, outputChannelCount: 1).outputChannelCount(inputChannelCounts: [2]), 1)
        XCTAssertEqual(mixer.masterVolume.value, 1)
        XCTAssertEqual(mixer.inputs[0].gainDB.range, -60...12)
        XCTAssertEqual(mixer.inputs[0].pan.value, 0)
        XCTAssertFalse(mixer.inputs[0].isMuted)
    }

    func testCentredMonoIsMinus3dBOnBothSides() {
        let harness = BlockRenderHarness(MixerNode(inputCount: 1), inputChannelCounts: [1])
        let input = (0..<1_000).map { Float(sin(Double($0) * 0.07)) }
        let output = harness.run([[input]], blockSize: 128)
        for i in 0..<1_000 {
            XCTAssertEqual(output[0][i], output[1][i])  // exactly equal
            XCTAssertEqual(output[0][i], input[i] * minus3dB, accuracy: 1e-6)
        }
    }

    func testHardLeftPanSilencesTheRight() {
        let mixer = MixerNode(inputCount: 1)
        mixer.inputs[0].pan.value = -1
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1])
        let input = (0..<1_000).map { Float(sin(Double($0) * 0.07)) }
        let output = harness.run([[input]], blockSize: 100)
        XCTAssertEqual(output[1], constant(0, 1_000))
        for i in 0..<1_000 { XCTAssertEqual(output[0][i], input[i], accuracy: 1e-6) }
    }

    func testPanRampKeepsConstantPowerAtTheEnds() {
        let mixer = MixerNode(inputCount: 1)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1])
        _ = harness.run([[constant(1, 100)]], blockSize: 100)
        mixer.inputs[0].pan.value = 0.5
        let output = harness.run([[constant(1, 2_000)]], blockSize: 100)
        let theta = Float(1.5 * Double.pi / 4)
        XCTAssertEqual(output[0][1_999], cosf(theta), accuracy: 1e-6)
        XCTAssertEqual(output[1][1_999], sinf(theta), accuracy: 1e-6)
        XCTAssertEqual(output[0][1_999] * output[0][1_999] + output[1][1_999] * output[1][1_999], 1, accuracy: 1e-5)
    }

    func testStereoSourcePanIsBalance() {
        let mixer = MixerNode(inputCount: 1)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [2])
        let left = (0..<500).map { Float(sin(Double($0) * 0.05)) }, right = left.map { $0 * -0.5 }
        var output = harness.run([[left, right]], blockSize: 64)
        XCTAssertEqual(output[0], left)  // centre: unity on both sides, untouched
        XCTAssertEqual(output[1], right)
        mixer.inputs[0].pan.value = 1
        _ = harness.run([[left + left, right + right]], blockSize: 64)  // the 20 ms ramp
        output = harness.run([[left, right]], blockSize: 64)
        XCTAssertEqual(output[0], constant(0, 500))
        XCTAssertEqual(output[1], right)
    }

    func testMuteSilencesAfterARampWithoutClicks() {
        let mixer = MixerNode(inputCount: 1)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1])
        _ = harness.run([[constant(1, 480)]], blockSize: 480)
        mixer.inputs[0].isMuted = true
        XCTAssertEqual(mixer.inputs[0].mute.value, 1)
        let output = harness.run([[constant(1, 4_800)]], blockSize: 256)[0]
        let largestStep = zip(output.dropFirst(), output).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(largestStep, minus3dB / Float(rampFrames) + 1e-6)
        XCTAssertGreaterThan(output[rampFrames / 2], 0.3)  // still ramping halfway through
        XCTAssertEqual(Array(output[rampFrames...]), constant(0, 4_800 - rampFrames))
        // And back: unmuting ramps up again.
        mixer.inputs[0].isMuted = false
        let back = harness.run([[constant(1, 4_800)]], blockSize: 256)[0]
        XCTAssertLessThan(back[0], 0.01)
        XCTAssertEqual(back[4_799], minus3dB, accuracy: 1e-6)
    }

    func testMasterVolumeScales() {
        let mixer = MixerNode(inputCount: 1)
        mixer.masterVolume.value = 0.3
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [2])
        var noise = SeededUniformNoise(state: 11)
        let left = (0..<2_000).map { _ in noise.next() }, right = (0..<2_000).map { _ in noise.next() }
        let output = harness.run([[left, right]], blockSize: 333)
        for i in 0..<2_000 {
            XCTAssertEqual(output[0][i], left[i] * 0.3, accuracy: 1e-6)
            XCTAssertEqual(output[1][i], right[i] * 0.3, accuracy: 1e-6)
        }
    }

    func testMasterVolumeChangeRamps() {
        let mixer = MixerNode(inputCount: 1, outputChannelCount: 1)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1])
        _ = harness.run([[constant(1, 100)]], blockSize: 100)
        mixer.masterVolume.value = 0.3
        let output = harness.run([[constant(1, 2_000)]], blockSize: 64)[0]
        let diffs = zip(output.dropFirst(), output).map { abs($0 - $1) }
        let largestStep = diffs.max()!
        XCTAssertLessThanOrEqual(largestStep, 0.7 / Float(rampFrames) + 1e-6)
        XCTAssertEqual(output[1_999], 0.3, accuracy: 1e-6)
    }

    func testTwoInputsSum() {
        let harness = BlockRenderHarness(MixerNode(inputCount: 2), inputChannelCounts: [2, 2])
        let a = (0..<1_000).map { Float(0.4 * sin(Double($0) * 0.03)) }
        let b = (0..<1_000).map { Float(0.3 * cos(Double($0) * 0.11)) }
        let output = harness.run([[a, b], [b, a]], blockSize: 256)
        for i in 0..<1_000 {
            XCTAssertEqual(output[0][i], a[i] + b[i], accuracy: 1e-6)
            XCTAssertEqual(output[1][i], b[i] + a[i], accuracy: 1e-6)
        }
    }

    func testUnconnectedBusReadsSilence() {
        // Bus 1 unconnected: the graph hands it a 1-channel silent block.
        let harness = BlockRenderHarness(MixerNode(inputCount: 3), inputChannelCounts: [2, 1, 1])
        let a = (0..<500).map { Float(0.4 * sin(Double($0) * 0.03)) }
        let c = (0..<500).map { Float(0.2 * sin(Double($0) * 0.2)) }
        let output = harness.run([[a, a], [constant(0, 500)], [c]], blockSize: 100)
        for i in 0..<500 { XCTAssertEqual(output[0][i], a[i] + c[i] * minus3dB, accuracy: 1e-6) }
    }

    func testGainChangeRampsWithBoundedSteps() {
        let mixer = MixerNode(inputCount: 1, outputChannelCount: 1)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1])
        XCTAssertEqual(harness.run([[constant(1, 100)]], blockSize: 100)[0], constant(1, 100))  // mono out: no pan law
        mixer.inputs[0].gainDB.value = -20
        let output = harness.run([[constant(1, 3_000)]], blockSize: 100)[0]
        let expectedStep = (1 - 0.1) / Float(rampFrames)
        let steps = zip(output.dropFirst(), output).map { $1 - $0 }  // positive going down
        XCTAssertLessThanOrEqual(steps.map(abs).max()!, expectedStep + 1e-6)
        XCTAssertEqual(1 - output[0], expectedStep, accuracy: 1e-6)  // the ramp starts at once
        XCTAssertEqual(output[rampFrames - 1], 0.1, accuracy: 1e-6)  // and ends after 20 ms
        XCTAssertEqual(output[2_999], 0.1, accuracy: 1e-7)
        // −60 dB is the bottom of the fader: silence.
        mixer.inputs[0].gainDB.value = -60
        XCTAssertEqual(harness.run([[constant(1, 2_000)]], blockSize: 100)[0][1_999], 0)
    }

    func testMonoOutputFoldsStereoDown() {
        let harness = BlockRenderHarness(MixerNode(inputCount: 1, outputChannelCount: 1), inputChannelCounts: [2])
        let output = harness.run([[constant(0.8, 10), constant(0.2, 10)]], blockSize: 10)[0]
        for x in output { XCTAssertEqual(x, 0.5, accuracy: 1e-6) }
    }

    func testBlockSizeInvariance() {
        var noise = SeededUniformNoise(state: 5)
        let frames = 8_000
        let mono = (0..<frames).map { _ in noise.next() }
        let left = (0..<frames).map { _ in noise.next() }, right = (0..<frames).map { _ in noise.next() }
        var reference: [[Float]]?
        for blockSize in [1, 64, 333] {
            let mixer = MixerNode(inputCount: 3)
            mixer.inputs[0].gainDB.value = -6
            mixer.inputs[1].pan.value = 0.3
            let harness = BlockRenderHarness(mixer, inputChannelCounts: [1, 2, 1])
            // Changes after the reset, so ramps run from the first frame.
            mixer.inputs[0].pan.value = -0.7
            mixer.inputs[1].gainDB.value = 6
            mixer.inputs[2].isMuted = true
            mixer.masterVolume.value = 0.5
            let output = harness.run([[mono], [left, right], [mono]], blockSize: blockSize)
            if let reference {
                for c in 0..<2 {
                    for i in 0..<frames where abs(output[c][i] - reference[c][i]) > 1e-6 {
                        XCTFail("block size \(blockSize): channel \(c) frame \(i) differs"); return
                    }
                }
            } else {
                reference = output
            }
        }
    }

    func testRenderDoesNotAllocate() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() == 1)
        let mixer = MixerNode(inputCount: 2)
        let harness = BlockRenderHarness(mixer, inputChannelCounts: [1, 2])
        let blocks = UnsafeMutablePointer<AudioBlock>.allocate(capacity: 2)
        defer { blocks.deallocate() }
        blocks[0] = harness.inputs[0].block(frames: 512)
        blocks[1] = harness.inputs[1].block(frames: 512)
        let output = harness.output.block(frames: 512)
        mixer.inputs[0].pan.value = 0.5
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        for k in 0..<20 {
            if k == 10 { mixer.inputs[1].gainDB.value = -3 }  // a ramp mid-way
            mixer.render(inputs: UnsafeBufferPointer(start: blocks, count: 2), output: output)
        }
        mixer.reset()
        busker_allocation_counting_end()
        XCTAssertEqual(busker_allocation_count(), 0)
    }
}
