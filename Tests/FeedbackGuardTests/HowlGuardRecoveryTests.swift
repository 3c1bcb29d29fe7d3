import FeedbackGuard
import Foundation
import RenderTestSupport
import XCTest

/// The howl guard after a howl: a voice must not keep the emergency gain down,
/// switching the guard off must not jump, and a broken sample must not poison it.
final class HowlGuardRecoveryTests: XCTestCase {
    private let rate = 48_000.0

    /// A 1 kHz tone growing `slope` dB/s from `from` dBFS for `seconds` (a howl starting), then `hold` seconds steady.
    private func howl(from: Double = -80, slope: Double = 74, seconds: Double, hold: Double = 0) -> [Float] {
        let grow = Int(seconds * rate), total = grow + Int(hold * rate)
        return (0..<total).map { i in
            let db = from + slope * Double(min(i, grow)) / rate
            return Float(pow(10, db / 20) * sin(2 * Double.pi * 1000 * Double(i) / rate))
        }
    }

    /// Speech: ALSA's "Front Center" sample looped with 0.4 s pauses, peak −6 dBFS.
    private func speech(seconds: Double) throws -> [Float] {
        let url = URL(fileURLWithPath: "/usr/share/sounds/alsa/Front_Center.wav")
        guard let data = try? Data(contentsOf: url) else { throw XCTSkip("no \(url.path) (alsa-utils' sounds)") }
        let bytes = [UInt8](data)
        // Walk the RIFF chunks to "data" (16-bit mono PCM, checked by the level below).
        var at = 12
        var samples: [Float] = []
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if bytes[at..<at + 4].elementsEqual("data".utf8) {
                var i = at + 8
                while i + 1 < min(bytes.count, at + 8 + size) {
                    samples.append(Float(Int16(bitPattern: UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8)) / 32768)
                    i += 2
                }
                break
            }
            at += 8 + size + (size & 1)
        }
        let peak = samples.map(abs).max() ?? 0
        XCTAssertGreaterThan(peak, 0.05, "the sample holds speech")
        let scaled = samples.map { $0 * 0.5 / peak } + [Float](repeating: 0, count: Int(0.4 * rate))
        return (0..<Int(seconds * rate)).map { scaled[$0 % scaled.count] }
    }

    /// Speech-like bursts: noise through a 200–3000 Hz band, 250 ms on and 150 ms off, about −20 dBFS RMS while on.
    private func bursts(seconds: Double) -> [Float] {
        var noise = SeededUniformNoise(state: 3)
        var low: Float = 0, high: Float = 0
        return (0..<Int(seconds * rate)).map { i in
            let x = noise.next()
            high += 0.33 * (x - high)   // ≈ 3 kHz one-pole low-pass
            low += 0.026 * (high - low)  // ≈ 200 Hz, subtracted: a band-pass
            let on = i % Int(0.4 * rate) < Int(0.25 * rate)
            return on ? 0.35 * (high - low) : 0
        }
    }

    /// Renders `signal` through a fresh guard in 64-frame blocks; the gain reduction every 100 ms.
    private func reductions(_ signal: [Float]) -> (reduction: [Float], warning: [Bool]) {
        let statuses = howlGuardStatuses(signal, every: 0.1)
        return (statuses.map(\.gainReductionDB), statuses.map(\.feedbackWarning))
    }

    private func assertRecovers(after howlSignal: [Float], voice: [Float], name: String) {
        let run = reductions(howlSignal + voice)
        let voiceStart = howlSignal.count / Int(0.1 * rate)
        func stepsAfter(_ entry: Int) -> Int {
            zip(run.reduction.dropFirst(entry), run.reduction.dropFirst(entry + 1)).filter { $1 > $0 }.count
        }
        // The guard may still answer the howl's last hops: its checks look back up to 0.2 s, and a hop
        // is 10.7 ms. Later than 0.3 s after the howl, a step could only come from the voice.
        let steps = stepsAfter(voiceStart), late = stepsAfter(voiceStart + 2)
        let fromSix = run.reduction.dropFirst(60)
        print("\(name): reduction every 100 ms for 2 s \(run.reduction.prefix(20).map { Int($0.rounded()) }),"
              + " every second \(stride(from: 0, to: run.reduction.count, by: 10).map { Int(run.reduction[$0].rounded()) }) dB;"
              + " steps during the voice \(steps), later than 0.3 s after the howl \(late); warning at the end \(run.warning.last ?? false)")
        XCTAssertEqual(late, 0, "\(name): the voice alone does not step the emergency gain")
        XCTAssertLessThanOrEqual(steps, 2, "\(name): at most two emergency steps once the howl has gone, both answering it")
        XCTAssertEqual(fromSix.max() ?? -1, 0, "\(name): the gain is back at 0 dB from 6 s on")
        XCTAssertFalse(run.warning.last ?? true, "\(name): no FEEDBACK warning at the end")
    }

    func testAVoiceAfterAHowlDoesNotHoldTheEmergencyGainDown() throws {
        assertRecovers(after: howl(from: -40, slope: 100, seconds: 0.3), voice: try speech(seconds: 20), name: "howl then Front_Center")
    }

    func testSpeechLikeBurstsAfterAHowlDoNotHoldTheEmergencyGainDown() {
        assertRecovers(after: howl(from: -40, slope: 100, seconds: 0.3), voice: bursts(seconds: 20), name: "howl then bursts")
    }

    func testSwitchingOffMidHowlReleasesSmoothlyAndThenPassesTheInputUntouched() {
        // A howl that grows for 1 s and then holds at −6 dBFS: notched, perhaps pulled down by the gain.
        let signal = howl(seconds: 1, hold: 1.5)
        let node = HowlGuardNode()
        let harness = BlockRenderHarness(node, inputChannelCounts: [1], maximumBlockSize: 64)
        // Switched off a quarter period into a cycle, at the tone's crest (a jump there is largest).
        let switchAt = Int(1.5 * rate) + 12
        let before = harness.run([[Array(signal[..<switchAt])]], blockSize: 64)[0]
        XCTAssertFalse(node.status().notches.isEmpty, "the guard notched the howl: \(node.status())")
        node.isEnabled = false
        let after = harness.run([[Array(signal[switchAt...])]], blockSize: 64)[0]
        let output = before + after
        // The tone alone moves at most 0.5 · 2π · 1000/48000 ≈ 0.065 per sample.
        let natural = 0.5 * 2 * Float.pi * 1000 / Float(rate)
        var largest: Float = 0
        for i in (switchAt - 4800)..<(switchAt + 9600) { largest = max(largest, abs(output[i] - output[i - 1])) }
        print("switch-off: largest sample-to-sample step \(largest) (the tone's own \(natural));"
              + " level before \(20 * log10f(before.suffix(4800).map(abs).max()!)) dBFS")
        XCTAssertLessThan(largest, natural * 1.2, "no jump when switched off")
        // Settled within 200 ms: from then on the output is the input, sample for sample.
        let settled = switchAt + Int(0.2 * rate)
        XCTAssertEqual(Array(output[settled...]), Array(signal[settled...]))
        XCTAssertEqual(node.status().summary, "howl guard off")
    }

    func testANaNOrInfinitySampleBecomesSilenceAndDoesNotPoisonTheNotches() {
        var signal = howl(seconds: 1, hold: 1)
        var clean = signal
        for (at, bad) in [(Int(1.2 * rate), Float.nan), (Int(1.5 * rate), Float.infinity), (Int(1.5 * rate) + 7, -Float.infinity)] {
            signal[at] = bad
            clean[at] = 0
        }
        let harnessA = BlockRenderHarness(HowlGuardNode(), inputChannelCounts: [1], maximumBlockSize: 64)
        let harnessB = BlockRenderHarness(HowlGuardNode(), inputChannelCounts: [1], maximumBlockSize: 64)
        let broken = harnessA.run([[signal]], blockSize: 64)[0]
        let reference = harnessB.run([[clean]], blockSize: 64)[0]
        let nonFinite = broken.filter { !$0.isFinite }.count
        print("non-finite input: \(nonFinite) non-finite output samples of \(broken.count)")
        XCTAssertEqual(nonFinite, 0)
        XCTAssertEqual(broken, reference, "the same as with silence in their place")
    }

    /// The pinned rule (every hop at the ceiling for 0.3 s steps the gain) must not take a loud voice
    /// for a loop: speech peaking at full scale, and driven 6 dB past it into the limiter, passes with
    /// the emergency gain untouched.
    func testALoudVoiceAtTheCeilingIsNotPinnedFeedback() throws {
        let voice = try speech(seconds: 10)
        for (name, scale) in [("peaks at 0 dBFS", Float(2)), ("6 dB past full scale", Float(4))] {
            let run = reductions(voice.map { $0 * scale })
            print("loud voice, \(name): largest reduction \(run.reduction.max() ?? -1) dB")
            XCTAssertEqual(run.reduction.max() ?? -1, 0, "loud voice, \(name): no emergency step")
        }
    }

    /// Above the analysed band (9.7 kHz at 48 kHz) the detector is blind, so a high howl gets no notch;
    /// once it sits at the ceiling the pinned rule steps the gain (one tone's RMS there is over −10 dBFS).
    func testAHowlAboveTheAnalysedBandIsPulledDownOnceItReachesTheCeiling() {
        let grow = Int(1.0 * rate), total = Int(2.5 * rate)
        // From −60 dBFS at 60 dB/s to −1 dBFS (reached at 0.98 s), then held there.
        let signal: [Float] = (0..<total).map { i in
            let db = min(-1, -60 + 60 * Double(min(i, grow)) / rate)
            return Float(pow(10, db / 20) * sin(2 * Double.pi * 12_000 * Double(i) / rate))
        }
        let node = HowlGuardNode()
        _ = BlockRenderHarness(node, inputChannelCounts: [1], maximumBlockSize: 64).run([[signal]], blockSize: 64)
        XCTAssertTrue(node.status().notches.isEmpty, "no notch: the detector does not see 12 kHz")
        let run = reductions(signal)
        print("12 kHz howl: reduction every 100 ms \(run.reduction.map { Int($0.rounded()) }) dB")
        // −3 dBFS is passed at 0.95 s; 0.3 s of pinned hops later, the first step (entry k covers ≤ (k + 1) · 0.1 s).
        XCTAssertEqual(run.reduction[8], 0, "nothing before the ceiling")
        XCTAssertGreaterThan(run.reduction[13], 0, "stepped within 0.4 s of reaching the ceiling")
        XCTAssertGreaterThanOrEqual(run.reduction.last ?? 0, 12, "held at the ceiling, it goes on stepping")
    }
}
