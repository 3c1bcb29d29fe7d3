import CRealtimeSupport
import DSP
import Engine
import RenderTestSupport
import XCTest

final class ReverbTests: XCTestCase {
    private let sampleRate = 48_000.0

    // MARK: Dry path

    func testWetZeroIsBitExactDryForMonoInput() {
        let node = makeReverb(preset: .hall, wet: 0)
        let input = noise(frames: 24_000, seed: 1)
        let out = render(node, input: [input], blockSize: 256)
        XCTAssertEqual(out.left, input)
        XCTAssertEqual(out.right, input)
    }

    func testWetZeroIsBitExactDryForStereoInput() {
        let node = makeReverb(preset: .large, wet: 0, inputChannels: 2)
        let left = noise(frames: 12_000, seed: 2)
        let right = noise(frames: 12_000, seed: 3)
        let out = render(node, input: [left, right], blockSize: 100)
        XCTAssertEqual(out.left, left)
        XCTAssertEqual(out.right, right)
    }

    func testMonoInputFoldsLikeDuplicatedStereo() {
        let input = noise(frames: 20_000, seed: 4)
        let mono = render(makeReverb(preset: .medium, wet: 40), input: [input], blockSize: 128)
        let stereo = render(makeReverb(preset: .medium, wet: 40, inputChannels: 2), input: [input, input], blockSize: 128)
        XCTAssertEqual(mono.left, stereo.left)
        XCTAssertEqual(mono.right, stereo.right)
        XCTAssertEqual(ReverbNode().outputChannelCount(inputChannelCounts: [1]), 2)
        XCTAssertEqual(ReverbNode().outputChannelCount(inputChannelCounts: [3]), 2)
    }

    func testApplySetsPresetParameters() {
        let node = ReverbNode(preset: .small)
        XCTAssertEqual(node.wet.value, 0)
        XCTAssertEqual(node.roomSize.value, RoomPreset.small.roomSize)
        node.wet.value = 30
        node.apply(.hall)
        XCTAssertEqual(node.roomSize.value, RoomPreset.hall.roomSize)
        XCTAssertEqual(node.damping.value, RoomPreset.hall.damping)
        XCTAssertEqual(node.width.value, RoomPreset.hall.width)
        XCTAssertEqual(node.wet.value, 30, "apply leaves wet alone")
        XCTAssertEqual(node.wet.range, 0...100)
        for parameter in [node.roomSize, node.damping, node.width] { XCTAssertEqual(parameter.range, 0...1) }
    }

    // MARK: Tail

    func testImpulseTailDecaysBelowMinus60dB() {
        let node = makeReverb(preset: .medium, wet: 100)
        let frames = Int(sampleRate * 6)
        let out = render(node, input: [unitImpulse(frames: frames)], blockSize: 512)
        let window = Int(sampleRate * 0.1)
        var energies: [Double] = []
        for start in stride(from: 0, to: frames - window + 1, by: window) {
            var e = 0.0
            for i in start..<(start + window) {
                e += Double(out.left[i]) * Double(out.left[i]) + Double(out.right[i]) * Double(out.right[i])
            }
            energies.append(e)
        }
        let peakIndex = energies.indices.max { energies[$0] < energies[$1] }!
        let peak = energies[peakIndex]
        XCTAssertLessThanOrEqual(peakIndex, 1, "the tail peaks at once")
        // Monotonic-ish: no 100 ms window after the peak holds more than the one before it.
        for k in (peakIndex + 1)..<energies.count where energies[k - 1] > peak * 1e-9 {
            XCTAssertLessThanOrEqual(energies[k], energies[k - 1] * 1.05, "window \(k) grew")
        }
        let lastDB = 10 * log10(max(energies.last!, 1e-300) / peak)
        print("reverb tail: medium, last 100 ms window at \(lastDB) dB of the peak window")
        XCTAssertLessThan(lastDB, -60)
    }

    func testRT60GrowsFromSmallToHall() {
        var measured: [Double] = []
        for preset in RoomPreset.allCases {
            let node = makeReverb(preset: preset, wet: 100)
            let frames = Int(sampleRate * 8)
            let out = render(node, input: [unitImpulse(frames: frames)], blockSize: 512)
            let (t20, t30) = schroederRT60(out, sampleRate: sampleRate)
            print("reverb RT60 \(preset.rawValue): T20 → \(format(t20)) s, T30 → \(format(t30)) s")
            measured.append(t20)
            XCTAssertEqual(t20, t30, accuracy: 0.25 * t20, "\(preset): the decay is close to exponential")
        }
        for k in 1..<measured.count {
            XCTAssertGreaterThan(measured[k], measured[k - 1] * 1.2, "\(RoomPreset.allCases[k]) clearly longer")
        }
        XCTAssertEqual(measured.first!, 0.4, accuracy: 0.15, "small")
        XCTAssertEqual(measured.last!, 2.5, accuracy: 0.6, "hall")
    }

    func testWetLevelStaysNearDryLevel() {
        // Not a requirement of the design, a guard against a wrong gain:
        // fully wet noise should come out within a sensible range of the dry level.
        for preset in RoomPreset.allCases {
            let input = noise(frames: Int(sampleRate * 3), seed: 9)
            let out = render(makeReverb(preset: preset, wet: 100), input: [input], blockSize: 512)
            let skip = Int(sampleRate)
            let dry = rms(input[skip...])
            let wet = (rms(out.left[skip...]) + rms(out.right[skip...])) / 2
            let db = 20 * log10(wet / dry)
            print("reverb level \(preset.rawValue): wet noise at \(format(db)) dB of dry")
            XCTAssertGreaterThan(db, -15)
            XCTAssertLessThan(db, 3)
        }
    }

    // MARK: Denormals

    func testLongSilenceProducesNoSubnormalsWithoutFlushToZero() {
        XCTAssertEqual(busker_flush_to_zero_enabled(), 0, "the test thread must run without FTZ")
        let frames = Int(sampleRate * 61)
        // The longest possible tail (feedback 0.98, no damping), and the hall preset.
        let worst = makeReverb(preset: .hall, wet: 100)
        worst.roomSize.value = 1
        worst.damping.value = 0
        worst.reset()
        let hall = makeReverb(preset: .hall, wet: 100)
        for (label, node) in [("max room", worst), ("hall", hall)] {
            let out = render(node, input: [unitImpulse(frames: frames)], blockSize: 480)
            let subnormals = out.left.filter(\.isSubnormal).count + out.right.filter(\.isSubnormal).count
            XCTAssertEqual(subnormals, 0, label)
            let lastSecond = (frames - Int(sampleRate))..<frames
            let tail = lastSecond.map { max(abs(out.left[$0]), abs(out.right[$0])) }.max()!
            print("reverb \(label): largest sample in the last second of 60 s silence \(tail)")
            XCTAssertLessThan(tail, 1e-15, label)
            if label == "hall" { XCTAssertEqual(tail, 0, "the hall tail reaches exact zeros") }
        }
    }

    // MARK: Block size and smoothing

    func testBlockSizeInvariance() {
        let input = noise(frames: 30_000, seed: 5)
        var outputs: [Rendered] = []
        for blockSize in [1, 64, 333] {
            let node = makeReverb(preset: .small, wet: 0)
            // Changed after reset, so every parameter ramps during the render.
            node.wet.value = 60
            node.roomSize.value = 0.9
            node.damping.value = 0.2
            node.width.value = 0.3
            outputs.append(render(node, input: [input], blockSize: blockSize))
        }
        for other in outputs.dropFirst() {
            XCTAssertLessThanOrEqual(maxDifference(outputs[0].left, other.left), 1e-6)
            XCTAssertLessThanOrEqual(maxDifference(outputs[0].right, other.right), 1e-6)
        }
    }

    func testWetJumpDuringSineDoesNotClick() {
        let node = makeReverb(preset: .medium, wet: 0)
        let frames = Int(sampleRate * 1.5)
        let jumpAt = Int(sampleRate * 0.5)
        let amplitude: Float = 0.5
        let sine = (0..<frames).map { amplitude * sin(2 * .pi * 440 * Float($0) / Float(sampleRate)) }
        let out = render(node, input: [sine], blockSize: 256) { offset in
            if offset >= jumpAt { node.wet.value = 100 }
        }
        func maxStep(_ range: Range<Int>) -> Float {
            var m: Float = 0
            for i in range {
                m = max(m, abs(out.left[i] - out.left[i - 1]), abs(out.right[i] - out.right[i - 1]))
            }
            return m
        }
        let before = maxStep(1..<jumpAt)
        let transition = maxStep(jumpAt..<(jumpAt + Int(sampleRate * 0.1)))
        let after = maxStep((frames - Int(sampleRate * 0.5))..<frames)
        print("reverb wet jump: largest step before \(before), during \(transition), fully wet \(after)")
        // A sine of amplitude 0.5 at 440 Hz moves at most 0.029 per sample; an
        // unsmoothed switch to the wet signal would jump by up to ~0.5.
        XCTAssertLessThan(transition, 1.5 * max(before, after))
        XCTAssertLessThan(transition, 0.06)
    }

    func testTankResumesEmptyAfterIdle() {
        let node = makeReverb(preset: .hall, wet: 100)
        let loud = noise(frames: 24_000, seed: 6)
        _ = render(node, input: [loud], blockSize: 256)
        node.wet.value = 0
        // Past the 30 ms ramp: the node settles at 0 % and skips the tank.
        let quiet = render(node, input: [[Float](repeating: 0, count: 4_800)], blockSize: 256)
        XCTAssertEqual(quiet.left.suffix(2_000).max(), 0)
        node.wet.value = 100
        let resumed = render(node, input: [[Float](repeating: 0, count: 24_000)], blockSize: 256)
        XCTAssertEqual(resumed.left.map(abs).max(), 0, "no stale tail from before the idle period")
        XCTAssertEqual(resumed.right.map(abs).max(), 0)
    }

    func testResetClearsTail() {
        let node = makeReverb(preset: .large, wet: 100)
        _ = render(node, input: [unitImpulse(frames: 4_800)], blockSize: 64)
        node.reset()
        let out = render(node, input: [[Float](repeating: 0, count: 48_000)], blockSize: 64)
        XCTAssertEqual(out.left.map(abs).max(), 0)
        XCTAssertEqual(out.right.map(abs).max(), 0)
    }

    func testOtherSampleRatesDecayAlike() {
        // Tunings scale with the sample rate, so the RT60 barely moves.
        var rt: [Double] = []
        for rate in [44_100.0, 96_000.0] {
            let node = makeReverb(preset: .large, wet: 100, sampleRate: rate)
            let out = render(node, input: [unitImpulse(frames: Int(rate * 5))], blockSize: 512)
            rt.append(schroederRT60(out, sampleRate: rate).t20)
        }
        print("reverb RT60 large at 44.1 / 96 kHz: \(rt.map(format))")
        XCTAssertEqual(rt[0], rt[1], accuracy: 0.15 * rt[0])
    }
}

// MARK: - Helpers

private struct Rendered {
    var left: [Float] = []
    var right: [Float] = []
}

private func makeReverb(
    preset: RoomPreset, wet: Float, inputChannels: Int = 1, sampleRate: Double = 48_000, maximumBlockSize: Int = 512
) -> ReverbNode {
    let node = ReverbNode(preset: preset)
    node.wet.value = wet
    // What `AudioNode.prepare` does: allocate, then reset (which snaps the smoothers).
    node.allocate(
        spec: ProcessSpec(sampleRate: sampleRate, maximumBlockSize: maximumBlockSize),
        inputChannelCounts: [inputChannels], outputChannelCount: 2)
    node.reset()
    return node
}

/// Renders `input` (one array per channel) in blocks of `blockSize`, calling
/// `beforeBlock` with each block's first frame.
private func render(
    _ node: ReverbNode, input: [[Float]], blockSize: Int, beforeBlock: ((Int) -> Void)? = nil
) -> Rendered {
    let frames = input[0].count
    let inBuffer = AudioBuffer(channelCount: input.count, capacity: blockSize)
    let outBuffer = AudioBuffer(channelCount: 2, capacity: blockSize)
    var out = Rendered()
    out.left.reserveCapacity(frames)
    out.right.reserveCapacity(frames)
    var blocks = [inBuffer.block(frames: blockSize)]
    var offset = 0
    while offset < frames {
        let n = min(blockSize, frames - offset)
        beforeBlock?(offset)
        for c in 0..<input.count {
            input[c].withUnsafeBufferPointer { inBuffer[c].update(from: $0.baseAddress! + offset, count: n) }
        }
        blocks[0] = inBuffer.block(frames: n)
        let output = outBuffer.block(frames: n)
        blocks.withUnsafeBufferPointer { node.render(inputs: $0, output: output) }
        out.left.append(contentsOf: UnsafeBufferPointer(start: outBuffer[0], count: n))
        out.right.append(contentsOf: UnsafeBufferPointer(start: outBuffer[1], count: n))
        offset += n
    }
    return out
}

/// Deterministic white noise in −0.5…0.5 (xorshift64*).
private func noise(frames: Int, seed: UInt64) -> [Float] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<frames).map { _ in
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let r = state &* 0x2545_F491_4F6C_DD1D
        return Float(r >> 40) / Float(1 << 24) - 0.5
    }
}

private func rms<C: Collection>(_ x: C) -> Double where C.Element == Float {
    (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(x.count)).squareRoot()
}

private func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count)
    return zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}

private func format(_ x: Double) -> String {
    String(format: "%.2f", x)
}

/// RT60 from the Schroeder backward-integrated energy decay curve of a stereo
/// impulse response: a least-squares line through the curve between −5 dB and
/// −25 dB (T20) or −35 dB (T30), extrapolated to −60 dB.
private func schroederRT60(_ response: Rendered, sampleRate: Double) -> (t20: Double, t30: Double) {
    let n = response.left.count
    var edc = [Double](repeating: 0, count: n)
    var sum = 0.0
    for i in stride(from: n - 1, through: 0, by: -1) {
        sum += Double(response.left[i]) * Double(response.left[i]) + Double(response.right[i]) * Double(response.right[i])
        edc[i] = sum
    }
    let total = edc[0]
    let db = edc.map { 10 * log10(max($0, 1e-300) / total) }
    func fit(from upper: Double, to lower: Double) -> Double {
        guard let start = db.firstIndex(where: { $0 <= upper }),
              let end = db.firstIndex(where: { $0 <= lower }), end > start + 1
        else { return .nan }
        var st = 0.0, sy = 0.0, stt = 0.0, sty = 0.0
        for i in start...end {
            let t = Double(i) / sampleRate
            st += t
            sy += db[i]
            stt += t * t
            sty += t * db[i]
        }
        let m = Double(end - start + 1)
        let slope = (m * sty - st * sy) / (m * stt - st * st)
        return -60 / slope
    }
    return (fit(from: -5, to: -25), fit(from: -5, to: -35))
}
