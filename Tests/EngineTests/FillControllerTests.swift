import Engine
import Foundation
import XCTest

/// The two-clock control loop on a simulated clock: the real resampler and
/// controller, a source clock whose rate steps by ±500 ppm, and a playback
/// buffer drained at the destination's rate. Each period: push the engine's
/// period, write what the room allows, measure the fill as a device reports
/// it (whole frames), update.
final class FillControllerTests: XCTestCase {
    struct Trace {
        var fills: [Double] = []   // one per period, frames
        var drifts: [Double] = []  // estimated, ppm
        var truth: [Double] = []   // true drift, ppm
    }

    /// - Parameter drift: the source clock's drift (ppm) at a time (s).
    static func simulate(seconds: Double, correct: Bool = true, drift: (Double) -> Double) -> Trace {
        let rate = 48000.0, period = 64, buffer = 4 * period
        let setPoint = 128.0
        var controller = FillController(setPoint: setPoint, sampleRate: rate, periodFrames: period)
        let resampler = AdaptiveResampler(channelCount: 1, capacity: 4 * period + 8)
        let input = AudioBuffer(channelCount: 1, capacity: period)
        let output = AudioBuffer(channelCount: 1, capacity: 2 * period)
        var queued = setPoint  // primed playback, in frames (fractional: the pointer moves continuously)
        var step = 1.0
        var time = 0.0, phase = 0.0
        var trace = Trace()
        while time < seconds {
            let ppm = drift(time)
            // One source period passes: 64 source frames, 64/(rate(1+ppm)) seconds.
            let elapsed = Double(period) / (rate * (1 + ppm / 1e6))
            time += elapsed
            queued -= elapsed * rate
            for i in 0..<period {
                input[0][i] = Float(sin(phase))
                phase += 2 * .pi * 440 / rate
            }
            resampler.push(input.block(frames: period), frames: period)
            let room = buffer - Int(queued.rounded(.up))
            queued += Double(resampler.produce(into: output.block(frames: 2 * period), maximumFrames: room, step: step))
            let fill = queued.rounded(.down) + resampler.pendingFrames
            if correct { step = controller.update(fill: fill) }
            trace.fills.append(fill)
            trace.drifts.append(controller.driftEstimate * 1e6)
            trace.truth.append(ppm)
        }
        return trace
    }

    static let periodsPerSecond = 48000.0 / 64

    /// Steps of ±500 ppm: 0 → +500 → −500 → 0, 40 s each. Requirements: the
    /// fill never strays a period (64 frames) from its set point — a
    /// two-period path that does xruns — and within 25 s of a step it is
    /// back within 1 frame; the drift estimate comes within 2 ppm of the
    /// truth (2 ppm moves the fill by a period in 11 minutes, which the
    /// loop trims long before).
    func testDriftStepsOf500PPMSettleOnTheSetPointAndTheTrueDrift() {
        let steps: [Double] = [0, 500, -500, 0]
        let trace = Self.simulate(seconds: 160) { steps[min(3, Int($0 / 40))] }
        let perSecond = Self.periodsPerSecond
        let worst = trace.fills.map { abs($0 - 128) }.max() ?? .infinity
        XCTAssertLessThan(worst, 64, "the fill stays within a period of the set point")
        for (k, truth) in steps.enumerated() {
            let settled = Int((Double(k) * 40 + 25) * perSecond)..<Int((Double(k) + 1) * 40 * perSecond) - 1
            let fills = trace.fills[settled], drifts = trace.drifts[settled]
            let deviation = fills.map { abs($0 - 128) }.max()!
            XCTAssertLessThanOrEqual(deviation, 1.5, "step \(k) (\(truth) ppm): settled within a frame (plus the report's rounding)")
            XCTAssertEqual(drifts.last!, truth, accuracy: 2, "step \(k): the estimated drift")
            let peak = trace.fills[Int(Double(k) * 40 * perSecond)..<settled.lowerBound].map { abs($0 - 128) }.max()!
            print(String(format: "step %d to %+.0f ppm: peak error %.1f frames, settled ±%.2f, estimate %+.2f ppm",
                         k, truth, peak, deviation, drifts.last!))
        }
    }

    /// Negative control: without the loop, 500 ppm moves the fill a period in
    /// 2.7 s, out of any buffer.
    func testWithoutTheLoopTheFillRunsAway() {
        let trace = Self.simulate(seconds: 10, correct: false) { _ in -500 }
        let worst = trace.fills.map { abs($0 - 128) }.max() ?? 0
        XCTAssertGreaterThan(worst, 64)
    }

    /// The resampler itself: a 1 kHz sine at a 1000 ppm step keeps its shape
    /// — the residual against the ideal resampled sine is under −60 dB, far
    /// under a live mic's own noise — and the frequency moves by the ratio.
    func testResamplerPassesASineCleanly() {
        let rate = 48000.0, period = 64, stepRatio = 1.001
        let resampler = AdaptiveResampler(channelCount: 2, capacity: 4 * period + 8)
        let input = AudioBuffer(channelCount: 2, capacity: period)
        let output = AudioBuffer(channelCount: 2, capacity: 2 * period)
        var produced: [Float] = []
        var n = 0
        for _ in 0..<200 {
            for i in 0..<period {
                let x = Float(sin(2 * .pi * 1000 * Double(n + i) / rate))
                input[0][i] = x
                input[1][i] = -x
            }
            n += period
            resampler.push(input.block(frames: period), frames: period)
            let k = resampler.produce(into: output.block(frames: 2 * period), maximumFrames: 2 * period, step: stepRatio)
            for i in 0..<k {
                produced.append(output[0][i])
                XCTAssertEqual(output[1][i], -output[0][i])
            }
        }
        // Output frame j reads input frame j × step (the FIFO starts at input frame 0).
        var error = 0.0, power = 0.0
        for j in 100..<produced.count {
            let ideal = sin(2 * .pi * 1000 * Double(j) * stepRatio / rate)
            error += pow(Double(produced[j]) - ideal, 2)
            power += ideal * ideal
        }
        let db = 10 * log10(error / power)
        print(String(format: "resampler residual at 1 kHz: %.1f dB", db))
        XCTAssertLessThan(db, -60)
        XCTAssertEqual(Double(produced.count), Double(n) / stepRatio, accuracy: 4, "output frames = input / step")
    }
}
