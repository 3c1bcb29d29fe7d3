import DSP
import Engine
import RenderTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The biquad EQ and the gain node, measured through the nodes the way the
/// voice chain runs them, against the RBJ cookbook's analytic response.
final class EQTests: XCTestCase {
    // MARK: Frequency response against the cookbook

    func testHighPass80HzMatchesCookbook() throws {
        // A few seconds, so the response near 20 Hz has decayed completely.
        try assertNodeMatchesCookbook(kind: .highPass, frequency: 80, gainDB: 0, q: 0.7071, seconds: 3)
    }

    func testLowShelf150HzMatchesCookbook() throws {
        try assertShelfMatchesCookbook(kind: .lowShelf, frequency: 150, seconds: 2, plateauAt: 20, unaffectedAt: 20_000)
    }

    func testHighShelf6kHzMatchesCookbook() throws {
        try assertShelfMatchesCookbook(kind: .highShelf, frequency: 6000, seconds: 1, plateauAt: 20_000, unaffectedAt: 20)
    }

    func testPeaking1kHzMatchesCookbook() throws {
        let measured = try assertNodeMatchesCookbook(kind: .peaking, frequency: 1000, gainDB: 6, q: 1, seconds: 1)
        XCTAssertEqual(measured(1000), 6, accuracy: 0.1, "peak center")
        XCTAssertEqual(measured(20), 0, accuracy: 0.1, "far below the peak")
    }

    func testHighPassIsMinus3dBAtItsCorner() throws {
        for corner in [80.0, 200.0] {
            let node = BiquadNode(name: "hp", kind: .highPass, frequency: Float(corner), q: 0.7071)
            let h = try impulseResponse(of: node, seconds: 2)
            XCTAssertEqual(measuredMagnitudeDB(h, atFrequency: corner), -3.0103, accuracy: 0.1, "corner \(corner) Hz")
            // And it really is a high-pass: deep cut an octave and more below, flat far above.
            XCTAssertLessThan(measuredMagnitudeDB(h, atFrequency: corner / 4), -23)
            XCTAssertEqual(measuredMagnitudeDB(h, atFrequency: 10_000), 0, accuracy: 0.05)
        }
    }

    // MARK: Smoothing

    func testBassGainJumpHasNoClickAndSettlesWithin50ms() throws {
        let toneHz = 100.0, amplitude = 0.25
        let node = BiquadNode(name: "bass", kind: .lowShelf, frequency: 150, gainDB: -12)
        try prepareEQ(node, channels: 1)
        let half = 24_000
        let tone = sineTone(frequency: toneHz, amplitude: amplitude, frames: 2 * half)
        let before = renderEQ(node, [Array(tone[..<half])], blockSize: 64)[0]
        node.gainDB.value = 12
        let after = renderEQ(node, [Array(tone[half...])], blockSize: 64)[0]

        // Steady state at +12 dB: the largest sample-to-sample step of the final 100 ms.
        let steadyStep = maxSampleStep(after, from: half - 4800, to: half)
        let jumpStep = maxSampleStep(before + after, from: half - 1, to: half + 2400)
        XCTAssertLessThanOrEqual(jumpStep, 1.05 * steadyStep, "a click: step \(jumpStep) vs steady \(steadyStep)")

        // Within 50 ms every cycle has the new steady amplitude (±0.1 dB)…
        let expectedGain = BiquadCoefficients.make(kind: .lowShelf, sampleRate: 48_000, frequency: 150, gainDB: 12, q: 0.7071)
            .magnitudeDB(atFrequency: toneHz, sampleRate: 48_000)
        let period = Int(48_000 / toneHz)
        for start in stride(from: 2400, to: half - period, by: period) {
            let peak = after[start..<(start + period)].map { abs(Double($0)) }.max()!
            XCTAssertEqual(20 * log10(peak / amplitude), expectedGain, accuracy: 0.1, "cycle at \(start) samples")
        }
        // …and matches, sample for sample, a filter that was at +12 dB all along.
        let reference = BiquadNode(name: "ref", kind: .lowShelf, frequency: 150, gainDB: 12)
        try prepareEQ(reference, channels: 1)
        let settled = Array(renderEQ(reference, [tone], blockSize: 64)[0][half...])
        let scale = amplitude * pow(10, expectedGain / 20)
        var worst = 0.0
        for i in 2400..<half { worst = max(worst, abs(Double(after[i] - settled[i]))) }
        XCTAssertLessThan(worst / scale, 1e-3, "still converging 50 ms after the change")


        // A step bound alone is lenient here: even an abrupt coefficient switch barely
        // changes the step of a 100 Hz tone (TDF2 state carries over). The second
        // difference sees it, so bound that too, and check that it would see a switch.
        let all = before + after
        let steadyBend = maxSampleBend(all, from: 2 * half - 4800, to: 2 * half)
        let jumpBend = maxSampleBend(all, from: half - 2, to: half + 2400)
        XCTAssertLessThanOrEqual(jumpBend, 1.1 * steadyBend, "a kink: \(jumpBend) vs steady \(steadyBend)")
        var kernel = Biquad(coefficients: .make(kind: .lowShelf, sampleRate: 48_000, frequency: 150, gainDB: -12, q: 0.7071))
        var state = BiquadState()
        var abrupt = tone
        abrupt.withUnsafeMutableBufferPointer { buffer in
            kernel.process(buffer.baseAddress!, count: half, state: &state)
            kernel.coefficients = .make(kind: .lowShelf, sampleRate: 48_000, frequency: 150, gainDB: 12, q: 0.7071)
            kernel.process(buffer.baseAddress! + half, count: half, state: &state)
        }
        XCTAssertGreaterThan(maxSampleBend(abrupt, from: half - 2, to: half + 2400), 3 * steadyBend, "the kink measure is blind")
    }

    func testFrequencyAndQChangesAreSmoothedToo() throws {
        let node = BiquadNode(name: "peak", kind: .peaking, frequency: 300, gainDB: 9, q: 0.5)
        try prepareEQ(node, channels: 1)
        let tone = sineTone(frequency: 1000, amplitude: 0.2, frames: 48_000)
        var out = renderEQ(node, [Array(tone[..<24_000])], blockSize: 128)[0]
        node.frequency.value = 1000
        node.q.value = 4
        out += renderEQ(node, [Array(tone[24_000...])], blockSize: 128)[0]
        let steadyStep = maxSampleStep(out, from: 48_000 - 4800, to: 48_000)
        XCTAssertLessThanOrEqual(maxSampleStep(out, from: 23_999, to: 26_400), 1.05 * steadyStep)
        XCTAssertLessThanOrEqual(maxSampleBend(out, from: 23_998, to: 26_400), 1.1 * maxSampleBend(out, from: 48_000 - 4800, to: 48_000))
        XCTAssertEqual(node.currentCoefficients, .make(kind: .peaking, sampleRate: 48_000, frequency: 1000, gainDB: 9, q: 4),
                       "settled coefficients are exactly the targets'")
    }

    func testResetClearsStateAndSnapsToTargets() throws {
        let node = BiquadNode(name: "treble", kind: .highShelf, frequency: 6000, gainDB: 0)
        try prepareEQ(node, channels: 1)
        _ = renderEQ(node, [whiteNoise(frames: 1000, seed: 7)], blockSize: 100)
        node.gainDB.value = -9
        node.reset()
        // The node holds its parameters as Float, so the expected Q is Float(0.7071) too.
        XCTAssertEqual(node.currentCoefficients,
                       .make(kind: .highShelf, sampleRate: 48_000, frequency: 6000, gainDB: -9, q: Double(Float(0.7071))))
        let afterReset = renderEQ(node, [unitImpulse(frames: 2000)], blockSize: 512)[0]
        let fresh = try impulseResponse(of: BiquadNode(name: "fresh", kind: .highShelf, frequency: 6000, gainDB: -9), frames: 2000)
        let worst = zip(afterReset, fresh).map { abs($0 - $1) }.max()!
        XCTAssertLessThanOrEqual(worst, 1e-9, "reset leaves no state behind and no ramp in progress")
    }

    // MARK: Identity and gain

    func testZeroDBShelvesAndPeakPassSignalUnchanged() throws {
        let input = [whiteNoise(frames: 4096, seed: 1), whiteNoise(frames: 4096, seed: 2)]
        let nodes = [
            BiquadNode(name: "bass", kind: .lowShelf, frequency: 150, gainDB: 0),
            BiquadNode(name: "treble", kind: .highShelf, frequency: 6000, gainDB: 0),
            BiquadNode(name: "peak", kind: .peaking, frequency: 1000, gainDB: 0, q: 3),
            BiquadNode(name: "low peak", kind: .peaking, frequency: 40, gainDB: 0, q: 0.3),
        ]
        for node in nodes {
            try prepareEQ(node, channels: 2)
            let output = renderEQ(node, input, blockSize: 256)
            XCTAssertEqual(output.count, 2)
            for c in 0..<2 {
                let worst = zip(output[c], input[c]).map { abs($0 - $1) }.max()!
                XCTAssertLessThanOrEqual(worst, 1e-6, "\(node.name), channel \(c)")
            }
        }
    }

    func testGainNodeDoublesAmplitudeAfterItsRamp() throws {
        let node = GainNode(name: "boost")
        try prepareEQ(node, channels: 2)
        let frames = 4800
        let input: [[Float]] = [Array(repeating: 0.25, count: frames), Array(repeating: -0.5, count: frames)]
        _ = renderEQ(node, input, blockSize: 64)  // settled at 0 dB
        node.gainDB.value = Float(20 * log10(2.0))  // 6.02 dB: exactly twice the amplitude
        let output = renderEQ(node, input, blockSize: 64)
        let ramp = 960  // 20 ms at 48 kHz
        for c in 0..<2 {
            for i in ramp..<frames {
                XCTAssertEqual(Double(output[c][i] / input[c][i]), 2, accuracy: 0.002, "channel \(c), sample \(i)")
            }
            // Mid-ramp the gain is on its way (a linear ramp: 1.5 halfway), not jumped.
            XCTAssertEqual(Double(output[c][ramp / 2 - 1] / input[c][ramp / 2 - 1]), 1.5, accuracy: 0.01)
            XCTAssertLessThan(Double(output[c][0] / input[c][0]), 1.01)
        }
        // The largest step during the ramp is a tiny fraction of the level change.
        XCTAssertLessThan(maxSampleStep(output[1], from: 0, to: ramp + 10), 0.5 * 0.01)

        // Exactly +6 dB is 1.9953×, within 0.1 % of 10^(6/20) (and 0.24 % under 2×).
        node.gainDB.value = 6
        let six = renderEQ(node, input, blockSize: 333)
        for i in ramp..<frames {
            XCTAssertEqual(Double(six[0][i] / input[0][i]), pow(10, 6.0 / 20), accuracy: 0.001 * 1.9953)
        }
    }

    // MARK: Block-size invariance

    func testBiquadNodeOutputDoesNotDependOnBlockSize() throws {
        let frames = 48_000
        let input = [whiteNoise(frames: frames, seed: 3), whiteNoise(frames: frames, seed: 4)]
        for kind in [BiquadKind.highPass, .lowShelf, .highShelf, .peaking] {
            var outputs: [[[Float]]] = []
            for blockSize in [1, 64, 333] {
                let node = BiquadNode(name: "eq", kind: kind, frequency: 120, gainDB: 7, q: 1.3)
                try prepareEQ(node, channels: 2)
                outputs.append(renderEQ(node, input, blockSize: blockSize))
            }
            for other in outputs.dropFirst() {
                for c in 0..<2 {
                    let worst = zip(outputs[0][c], other[c]).map { abs($0 - $1) }.max()!
                    XCTAssertLessThanOrEqual(worst, 1e-6, "\(kind), channel \(c)")
                }
            }
        }
    }

    func testKernelMatchesPlainTDF2AndStereoMatchesMono() {
        // The kernel takes the first two samples of a call from the TDF2
        // registers and the rest in direct form I, then rebuilds the registers;
        // a plain per-sample TDF2 recursion is the reference. Call lengths of 1
        // (the one-sample path), 2 (registers only) and longer (the loop and the
        // rebuild), so every path runs and hands its state to the next; the
        // 20 Hz high-pass has its poles closest to the unit circle.
        let frames = 9600
        let left = whiteNoise(frames: frames, seed: 11), right = whiteNoise(frames: frames, seed: 12)
        let lengths = [1, 2, 3, 64, 333, 597]
        for (kind, frequency, gain) in [(BiquadKind.highPass, 20.0, 0.0), (.lowShelf, 150, 6), (.highShelf, 6000, 3), (.peaking, 1000, -9)] {
            let coefficients = BiquadCoefficients.make(kind: kind, sampleRate: 48_000, frequency: frequency, gainDB: gain, q: 0.7071)
            let kernel = Biquad(coefficients: coefficients)
            var reference = [Float](repeating: 0, count: frames)
            var z1 = 0.0, z2 = 0.0
            for i in 0..<frames {
                let x = Double(left[i])
                let y = coefficients.b0 * x + z1
                z1 = coefficients.b1 * x - coefficients.a1 * y + z2
                z2 = coefficients.b2 * x - coefficients.a2 * y
                reference[i] = Float(y)
            }
            var mono = [Float](repeating: 0, count: frames)
            var pair = ([Float](repeating: 0, count: frames), [Float](repeating: 0, count: frames))
            var monoState = BiquadState(), state0 = BiquadState(), state1 = BiquadState()
            var done = 0, call = 0
            while done < frames {
                let n = min(lengths[call % lengths.count], frames - done)
                left.withUnsafeBufferPointer { l in
                    right.withUnsafeBufferPointer { r in
                        mono.withUnsafeMutableBufferPointer { m in
                            kernel.process(l.baseAddress! + done, m.baseAddress! + done, count: n, state: &monoState)
                        }
                        pair.0.withUnsafeMutableBufferPointer { o0 in
                            pair.1.withUnsafeMutableBufferPointer { o1 in
                                kernel.process(l.baseAddress! + done, r.baseAddress! + done, o0.baseAddress! + done, o1.baseAddress! + done,
                                               count: n, state0: &state0, state1: &state1)
                            }
                        }
                    }
                }
                done += n
                call += 1
            }
            let worst = zip(mono, reference).map { abs($0 - $1) }.max()!
            XCTAssertLessThanOrEqual(worst, 1e-6, "\(kind): kernel against plain TDF2")
            XCTAssertEqual(pair.0.map(\.bitPattern), mono.map(\.bitPattern), "\(kind): stereo left is the mono result, bit for bit")
        }
    }

    func testBlockSizeInvarianceHoldsWhileSmoothing() throws {
        // The 16-sample update grid follows a running sample counter, so a change
        // made at the same frame gives the same output whatever the block size.
        let change = 64 * 333  // a boundary shared by every block size below
        let input = [whiteNoise(frames: change + 4800, seed: 5)]
        var outputs: [[Float]] = []
        for blockSize in [1, 64, 333] {
            let node = BiquadNode(name: "bass", kind: .lowShelf, frequency: 150, gainDB: -12)
            try prepareEQ(node, channels: 1)
            var out = renderEQ(node, [Array(input[0][..<change])], blockSize: blockSize)[0]
            node.gainDB.value = 12
            node.frequency.value = 90
            out += renderEQ(node, [Array(input[0][change...])], blockSize: blockSize)[0]
            outputs.append(out)
        }
        for other in outputs.dropFirst() {
            XCTAssertLessThanOrEqual(zip(outputs[0], other).map { abs($0 - $1) }.max()!, 1e-6)
        }
    }

    // MARK: Helpers

    /// Renders the node's impulse response and checks it against the analytic
    /// magnitude at 50 log-spaced frequencies, 20 Hz to 20 kHz. Returns the
    /// measured response for further checks.
    @discardableResult
    private func assertNodeMatchesCookbook(kind: BiquadKind, frequency: Double, gainDB: Double, q: Double, seconds: Double,
                                           file: StaticString = #filePath, line: UInt = #line) throws -> (Double) -> Double {
        let node = BiquadNode(name: "eq", kind: kind, frequency: Float(frequency), gainDB: Float(gainDB), q: Float(q))
        let h = try impulseResponse(of: node, seconds: seconds)
        let analytic = BiquadCoefficients.make(kind: kind, sampleRate: 48_000, frequency: frequency, gainDB: gainDB, q: q)
        for f in logSpacedFrequencies() {
            let measured = measuredMagnitudeDB(h, atFrequency: f)
            let expected = analytic.magnitudeDB(atFrequency: f, sampleRate: 48_000)
            XCTAssertEqual(measured, expected, accuracy: 0.1, "\(kind) \(frequency) Hz \(gainDB) dB at \(f) Hz", file: file, line: line)
        }
        return { measuredMagnitudeDB(h, atFrequency: $0) }
    }

    /// For a shelf at −12 and +12 dB: the cookbook response (see above), half
    /// the dB gain at the shelf frequency (the cookbook's shelf frequency is the
    /// midpoint), the full gain on the plateau and 0 dB on the other side.
    private func assertShelfMatchesCookbook(kind: BiquadKind, frequency: Double, seconds: Double,
                                            plateauAt plateau: Double, unaffectedAt unaffected: Double,
                                            file: StaticString = #filePath, line: UInt = #line) throws {
        for gain in [-12.0, 12.0] {
            let measured = try assertNodeMatchesCookbook(kind: kind, frequency: frequency, gainDB: gain, q: 0.7071, seconds: seconds,
                                                         file: file, line: line)
            XCTAssertEqual(measured(frequency), gain / 2, accuracy: 0.1, "\(kind) midpoint, \(gain) dB", file: file, line: line)
            XCTAssertEqual(measured(plateau), gain, accuracy: 0.5, "\(kind) plateau at \(plateau) Hz, \(gain) dB", file: file, line: line)
            XCTAssertEqual(measured(unaffected), 0, accuracy: 0.1, "\(kind) beyond the shelf at \(unaffected) Hz, \(gain) dB",
                           file: file, line: line)
        }
    }

    private func impulseResponse(of node: BiquadNode, seconds: Double) throws -> [Float] {
        try impulseResponse(of: node, frames: Int(seconds * 48_000))
    }

    private func impulseResponse(of node: BiquadNode, frames: Int) throws -> [Float] {
        try prepareEQ(node, channels: 1)
        return renderEQ(node, [unitImpulse(frames: frames)], blockSize: 512)[0]
    }
}

// MARK: - File-private helpers

private let eqSpec = ProcessSpec(sampleRate: 48_000, maximumBlockSize: 512)

private func prepareEQ(_ node: AudioNode, channels: Int) throws {
    try node.prepare(NodeFormat(spec: eqSpec, inputChannelCounts: [channels], outputChannelCount: channels))
}

/// Renders planar `input` through `node` in blocks of `blockSize` frames (the
/// last one shorter), continuing from the node's current state.
private func renderEQ(_ node: AudioNode, _ input: [[Float]], blockSize: Int) -> [[Float]] {
    precondition(blockSize <= eqSpec.maximumBlockSize)
    let channels = input.count, frames = input[0].count
    let inBuffer = AudioBuffer(channelCount: channels, capacity: blockSize)
    let outBuffer = AudioBuffer(channelCount: channels, capacity: blockSize)
    var output = [[Float]](repeating: [], count: channels)
    var start = 0
    while start < frames {
        let n = min(blockSize, frames - start)
        for c in 0..<channels {
            input[c].withUnsafeBufferPointer { inBuffer[c].update(from: $0.baseAddress! + start, count: n) }
        }
        var inBlock = inBuffer.block(frames: n)
        withUnsafePointer(to: &inBlock) { node.render(inputs: UnsafeBufferPointer(start: $0, count: 1), output: outBuffer.block(frames: n)) }
        for c in 0..<channels { output[c].append(contentsOf: UnsafeBufferPointer(start: outBuffer[c], count: n)) }
        start += n
    }
    return output
}

private func sineTone(frequency: Double, amplitude: Double, frames: Int) -> [Float] {
    (0..<frames).map { Float(amplitude * sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
}

/// Deterministic white noise in ±0.5 (a 64-bit LCG; no global random state).
private func whiteNoise(frames: Int, seed: UInt64) -> [Float] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<frames).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Double(state >> 11) / Double(1 << 53)) - 0.5
    }
}

/// 50 frequencies from 20 Hz to 20 kHz, evenly spaced in log frequency.
private func logSpacedFrequencies() -> [Double] {
    (0..<50).map { 20 * pow(1000, Double($0) / 49) }
}

/// |Σ h[n] e^{-jωn}| in dB at exactly `frequency` (not a bin), by Goertzel in Double.
private func measuredMagnitudeDB(_ h: [Float], atFrequency frequency: Double) -> Double {
    let w = 2 * Double.pi * frequency / 48_000
    let coefficient = 2 * cos(w)
    var s1 = 0.0, s2 = 0.0
    for x in h {
        let s = Double(x) + coefficient * s1 - s2
        s2 = s1
        s1 = s
    }
    let power = s1 * s1 + s2 * s2 - coefficient * s1 * s2
    return 10 * log10(power)
}

/// The largest |x[i] − x[i−1]| for i in from+1..<to.
private func maxSampleStep(_ x: [Float], from: Int, to: Int) -> Double {
    var worst = 0.0
    for i in (from + 1)..<to { worst = max(worst, abs(Double(x[i] - x[i - 1]))) }
    return worst
}

/// The largest second difference |x[i+1] − 2x[i] + x[i−1]| for i in from+1..<to−1.
private func maxSampleBend(_ x: [Float], from: Int, to: Int) -> Double {
    var worst = 0.0
    for i in (from + 1)..<(to - 1) { worst = max(worst, abs(Double(x[i + 1]) - 2 * Double(x[i]) + Double(x[i - 1]))) }
    return worst
}
