import Engine
import FeedbackGuard
import Foundation
import InstrumentTestSupport
import Instruments
import XCTest

/// Played music through the howl guard, with no feedback loop: held piano,
/// organ, flute and choir notes from the FluidR3 SoundFont, and a drum groove
/// on the shipped kit, all loud. The guard must place no notch.
final class HowlFalseAlarmTests: XCTestCase {
    private let rate = 48_000.0

    /// Runs stereo `left`/`right`, scaled to a −3 dBFS peak, through a fresh
    /// guard in 64-frame blocks; returns its status at the end.
    private func guardStatus(left: [Float], right: [Float]) -> HowlGuardStatus {
        let peak = max(left.map(abs).max() ?? 0, right.map(abs).max() ?? 0)
        let scale = peak > 0 ? Float(0.708) / peak : 1
        let node = HowlGuardNode()
        node.allocate(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64), inputChannelCounts: [2], outputChannelCount: 2)
        node.reset()
        let input = AudioBuffer(channelCount: 2, capacity: 64), output = AudioBuffer(channelCount: 2, capacity: 64)
        var blocks = [input.block(frames: 64)]
        var start = 0
        while start < left.count {
            let n = min(64, left.count - start)
            for i in 0..<n { input[0][i] = left[start + i] * scale; input[1][i] = right[start + i] * scale }
            blocks[0] = input.block(frames: n)
            blocks.withUnsafeBufferPointer { node.render(inputs: $0, output: output.block(frames: n)) }
            start += n
        }
        return node.status()
    }

    /// What the detector alone reports on the mono mix, for failure messages.
    private func detections(left: [Float], right: [Float]) -> String {
        let peak = max(left.map(abs).max() ?? 0, right.map(abs).max() ?? 0)
        let scale = peak > 0 ? Float(0.708) / peak : 1
        return howlDetectionLog((0..<left.count).map { (left[$0] + right[$0]) / 2 * scale }, rate: rate)
    }

    func testHeldSampledNotesPlaceNoNotch() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: SamplerTestRig.fluidR3), "FluidR3_GM.sf2 is not installed (fluid-soundfont-gm)")
        // Piano, drawbar organ, flute, choir aahs: decaying, steady harmonic, near-sinusoidal with vibrato, sung.
        for (name, program) in [("piano", 0), ("organ", 16), ("flute", 73), ("choir", 52)] {
            let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, instrument: SamplerInstrument(program: program))
            // A held note, then a held two-note chord, 3 s each, loud.
            rig.send(.noteOn(channel: 0, note: 69, velocity: 110), at: 0)
            rig.send(.noteOff(channel: 0, note: 69, velocity: 0), at: 3 * 48_000)
            rig.send(.noteOn(channel: 0, note: 60, velocity: 110), at: 3 * 48_000 + 100)
            rig.send(.noteOn(channel: 0, note: 76, velocity: 100), at: 3 * 48_000 + 100)
            rig.send(.noteOff(channel: 0, note: 60, velocity: 0), at: 6 * 48_000)
            rig.send(.noteOff(channel: 0, note: 76, velocity: 0), at: 6 * 48_000)
            let (left, right) = rig.render(frames: 7 * 48_000)
            XCTAssertGreaterThan(left.map(abs).max() ?? 0, 0.01, "\(name) sounded")
            let status = guardStatus(left: left, right: right)
            XCTAssertEqual(status.detectionCount, 0, "\(name): \(status.summary): \(detections(left: left, right: right))")
            XCTAssertTrue(status.notches.isEmpty, "\(name): \(status.summary)")
        }
    }

    func testADrumGrooveOnTheShippedKitPlacesNoNotch() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds/kit/kit.json").path
        let harness = DrumRenderHarness(kit: try DrumKit.load(manifestAt: manifest, sampleRate: rate))
        // Four bars at 120 BPM in eighths: kick on 1 and 3, snare on 2 and 4, closed hats,
        // a tom fill in bar 4, a crash at the top and ride in bars 2–3.
        let eighth = 12_000
        var events: [(Int, UInt8, UInt8)] = []
        for bar in 0..<4 {
            for step in 0..<8 {
                let t = (bar * 8 + step) * eighth
                if step % 4 == 0 { events.append((t, 36, 110)) }
                if step % 4 == 2 { events.append((t, 38, 105)) }
                events.append((t, bar == 1 || bar == 2 ? 51 : 42, step % 2 == 0 ? 90 : 60))
                if bar == 3 && step >= 4 { events.append((t + 3000, [50, 47, 43, 43][step - 4], 100)) }
            }
        }
        events.append((0, 49, 120))
        events.append((32 * eighth, 49, 120))
        events.sort { $0.0 < $1.0 }
        for (t, note, velocity) in events {
            harness.send(.noteOn(channel: GeneralMIDI.percussionChannel, note: note, velocity: velocity), at: t)
        }
        let (left, right) = harness.render(frames: 34 * eighth + 48_000)
        XCTAssertGreaterThan(left.map(abs).max() ?? 0, 0.05, "the kit sounded")
        let status = guardStatus(left: left, right: right)
        XCTAssertEqual(status.detectionCount, 0, "\(status.summary): \(detections(left: left, right: right))")
        XCTAssertTrue(status.notches.isEmpty, status.summary)
    }
}
