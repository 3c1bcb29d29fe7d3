import CAllocationCounter
import DSP
import Engine
import RenderTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The noise gate, measured: levels through it, state changes counted.
final class NoiseGateNodeTests: XCTestCase {
    private let rate = 48_000.0

    /// A sine of `frames` samples whose peak follows `peakDB(i)` (dBFS).
    private func sine(frequency: Double, frames: Int, peakDB: (Int) -> Double) -> [Float] {
        (0..<frames).map { i in Float(pow(10, peakDB(i) / 20) * sin(2 * .pi * frequency * Double(i) / rate)) }
    }

    private func rmsDB(_ x: ArraySlice<Float>) -> Double {
        10 * log10(x.reduce(0.0) { $0 + Double($1 * $1) } / Double(x.count))
    }

    func testBelowThresholdIsTurnedDownByTheFloorAboveIsUnity() {
        for floor: Float in [-40, -80] {
            let gate = NoiseGateNode(thresholdDB: -50, floorDB: floor)
            let harness = BlockRenderHarness(gate, inputChannelCounts: [1])
            // 1 s at −62 dBFS (below the threshold), then 1 s at −30 dBFS (above).
            let quiet = sine(frequency: 440, frames: 48_000) { _ in -62 }
            let loud = sine(frequency: 440, frames: 48_000) { _ in -30 }
            let out = harness.run([[quiet + loud]], blockSize: 64)[0]
            // The last half second of each part, once the gate has settled.
            let quietGain = rmsDB(out[24_000..<48_000]) - rmsDB(quiet[24_000...])
            XCTAssertEqual(quietGain, Double(floor), accuracy: 0.01, "floor \(floor)")
            assertSameSamples(Array(out[72_000..<96_000]), Array(loud[24_000...]), "open: unity, sample for sample")
            XCTAssertEqual(gate.gateState, .open)
        }
    }

    /// A floor raised to 0 dB while the gate is closed lets the gain come back
    /// to unity (the glide's step was once proportional to the floor: 0 froze it).
    func testAFloorRaisedToZeroWhileClosedReturnsToUnity() {
        let gate = NoiseGateNode(thresholdDB: -50, floorDB: -40)
        let harness = BlockRenderHarness(gate, inputChannelCounts: [1])
        let quiet = sine(frequency: 440, frames: 24_000) { _ in -62 }
        let closed = harness.run([[quiet]], blockSize: 64)[0]
        XCTAssertEqual(rmsDB(closed[19_200...]) - rmsDB(quiet[19_200...]), -40, accuracy: 0.01)
        gate.floorDB.value = 0
        let raised = harness.run([[quiet]], blockSize: 64)[0]
        XCTAssertEqual(rmsDB(raised[19_200...]) - rmsDB(quiet[19_200...]), 0, accuracy: 0.01, "unity once the floor is 0 dB")
        gate.isOn = false
        let off = harness.run([[quiet]], blockSize: 64)[0]
        assertSameSamples(Array(off[4_800...]), Array(quiet[4_800...]), "off: the plain copy takes over")
    }

    /// The opening is quick (1 ms attack) and the closing waits for the hold and then glides.
    func testOpensWithinAMillisecondAndClosesAfterHoldAndRelease() {
        let gate = NoiseGateNode(thresholdDB: -40, floorDB: -40)
        let harness = BlockRenderHarness(gate, inputChannelCounts: [1])
        // Silence long enough to close, a 1 kHz burst at −20 dBFS, silence again.
        let dc: (Int) -> Float = { _ in 0 }
        let quiet = (0..<24_000).map(dc)
        let burst = sine(frequency: 1000, frames: 9_600) { _ in -20 }
        let out = harness.run([[quiet + burst + quiet]], blockSize: 64)[0]
        // 2 ms into the burst the gate is fully open.
        let twoMs = 24_000 + 96
        XCTAssertEqual(rmsDB(out[twoMs..<twoMs + 480]), rmsDB(burst[96..<576]), accuracy: 0.01)
        // A steady input lets the gate's gain be read from the output: a constant after the burst.
        let probe = [Float](repeating: 1e-3, count: 24_000)  // −60 dBFS: below the close level
        let gate2 = NoiseGateNode(thresholdDB: -40, floorDB: -40)
        let h2 = BlockRenderHarness(gate2, inputChannelCounts: [1])
        let out2 = h2.run([[[Float](repeating: 0.5, count: 4_800) + probe]], blockSize: 64)[0]
        let gainAt = { (ms: Double) -> Double in 20 * log10(Double(out2[4_800 + Int(ms * 48)]) / 1e-3) }
        // Detector fall (30 ms time constant from −6 to −46 dBFS: ~140 ms), then the 50 ms hold: still open.
        XCTAssertEqual(gainAt(150), 0, accuracy: 0.01)
        // Then a linear glide of 40 dB in 150 ms, and the floor.
        XCTAssertEqual(gainAt(400), -40, accuracy: 0.01)
        let mid = (0..<400).first { gainAt(Double($0)) < -20 }.map(Double.init) ?? 0
        print("gate: closing reached −20 dB \(mid) ms after the signal dropped")
        XCTAssertTrue((180...300).contains(mid), "half-way down at \(mid) ms")
    }

    /// A level wobbling ±3 dB around the threshold (as a voice trailing off does):
    /// with 6 dB of hysteresis the gate opens once and stays open; the same
    /// gate without hysteresis and hold chatters.
    func testHysteresisStopsChatterAtTheThreshold() {
        func stateChanges(hysteresis: Float, hold: Float) -> Int {
            let gate = NoiseGateNode(thresholdDB: -50, hysteresisDB: hysteresis, holdMilliseconds: hold)
            let harness = BlockRenderHarness(gate, inputChannelCounts: [1])
            // Closed first (silence), then 3 s hovering: −50 ± 3 dB at 5 Hz, with a 150 Hz carrier.
            let silence = [Float](repeating: 0, count: 24_000)
            let hover = sine(frequency: 150, frames: 144_000) { i in -50 + 3 * sin(2 * .pi * 5 * Double(i) / 48_000) }
            _ = harness.run([[silence]], blockSize: 64)
            let before = gate.stateChangeCount
            _ = harness.run([[hover]], blockSize: 64)
            return gate.stateChangeCount - before
        }
        let withHysteresis = stateChanges(hysteresis: 6, hold: 50)
        let without = stateChanges(hysteresis: 0, hold: 0)
        print("gate hovering at the threshold for 3 s: \(withHysteresis) state change(s) with 6 dB hysteresis, \(without) without")
        XCTAssertEqual(withHysteresis, 1, "opens once")
        XCTAssertGreaterThan(without, 20, "the control: no hysteresis, no hold chatters")
    }

    /// A decaying note (60 dB/s from −10 dBFS, 200 Hz) crosses the threshold once: one close, no chatter.
    func testDecayingNoteClosesOnce() {
        let gate = NoiseGateNode(thresholdDB: -50)
        let harness = BlockRenderHarness(gate, inputChannelCounts: [1])
        let note = sine(frequency: 200, frames: 72_000) { i in -10 - 60 * Double(i) / 48_000 }
        let out = harness.run([[note]], blockSize: 128)[0]
        XCTAssertEqual(gate.stateChangeCount, 1)
        XCTAssertEqual(gate.gateState, .closed)
        // The tail is at the floor: 40 dB down.
        XCTAssertEqual(rmsDB(out[67_200...]) - rmsDB(note[67_200...]), -40, accuracy: 0.01)
    }

    /// Off, the gate copies its input exactly; switched off while closed it glides back up.
    func testOffIsACopyAndSwitchingGlides() {
        let gate = NoiseGateNode(thresholdDB: -50, isOn: false)
        let harness = BlockRenderHarness(gate, inputChannelCounts: [2])
        let quiet = sine(frequency: 300, frames: 9_600) { _ in -70 }
        let out = harness.run([[quiet, quiet]], blockSize: 64)
        assertSameSamples(out[0], quiet)
        assertSameSamples(out[1], quiet)
        // On: it closes (after the hold) and the quiet signal goes down 40 dB.
        gate.isOn = true
        let closed = harness.run([[quiet + quiet, quiet + quiet]], blockSize: 64)[0]
        XCTAssertEqual(rmsDB(closed[14_400...]) - rmsDB(quiet[4_800...]), -40, accuracy: 0.01)
        // Off again: back to unity within 2 ms (the opening glide), no step larger than the glide's.
        gate.isOn = false
        let reopened = harness.run([[quiet, quiet]], blockSize: 64)[0]
        assertSameSamples(Array(reopened[96...]), Array(quiet[96...]))
        let gains = (0..<96).compactMap { i in abs(quiet[i]) > 1e-4 ? reopened[i] / quiet[i] : nil }
        XCTAssertTrue(gains.allSatisfy { $0 > 0 && $0 <= 1 + 1e-6 })
    }

    func testOutputDoesNotDependOnBlockSize() {
        let signal = swellingNoise(seed: 5, lowDB: -60, swellDB: 40, cyclesPerSecond: 2)
        assertBlockSizeInvariant({ NoiseGateNode(thresholdDB: -40) }, signal)
    }

    /// On the render thread, opening, closing and switching allocate nothing.
    func testRendersWithoutAllocating() throws {
        let engine = RenderEngine()
        let graph = AudioGraph(inputChannelCount: 1)
        let gate = NoiseGateNode(thresholdDB: -50)
        let id = graph.add(gate)
        try graph.connect(graph.input, to: id)
        graph.output = id
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)))
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 3000, frames: 64, inputChannels: 1, outputChannels: 1) { i in
            // The harness's input peaks at −6 dBFS: a threshold of 0 dB closes the gate, −50 opens it.
            gate.thresholdDB.value = (i / 40) % 2 == 0 ? -50 : 0
            gate.isOn = (i / 100) % 3 != 2
        }
        engine.releaseAll()
    }
}

/// Asserts two signals are equal sample for sample, naming the first difference
/// (not the whole arrays) when they are not.
func assertSameSamples(_ a: [Float], _ b: [Float], _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "lengths \(message)", file: file, line: line)
    if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        XCTFail("first difference at sample \(i): \(a[i]) vs \(b[i]) \(message)", file: file, line: line)
    }
}
