import AudioFiles
import Foundation
import InstrumentTestSupport
import Instruments
import MIDI
import XCTest

/// The drum kit node measured on synthetic samples whose every value is
/// known, so the output can be compared with the exact expected signal:
/// voice stealing, choking, sample-accurate hits, velocity, layers, pan.
final class DrumKitNodeTests: XCTestCase {
    /// Constant-power pan at the centre: cos(π/4) on each side.
    private let centre = Float(cos(Double.pi / 4))

    // MARK: Voices and stealing

    /// Sixteen hits of one pad, 2437 frames apart, on a 1 s sample: all
    /// sixteen sound, four at a time; each fifth hit steals the oldest voice,
    /// which fades out over 3 ms instead of being cut.
    ///
    /// The sample is a 240 Hz sine at 0.5 (200 frames a period, whole periods,
    /// so it starts and ends at zero), and the spacing is not a whole number of
    /// periods, so each stolen voice is cut near its crest (a hard cut would
    /// jump by ~0.35). Click threshold: with nothing cut, at a steal four
    /// voices and one fading voice sound; each moves by at most J per sample
    /// (J, the sample's own largest step × the pad gain) and the fade adds at
    /// most A/144 (A, the sample's peak × gain), so no discontinuity means
    /// every step ≤ 5·J + A/144. The test also checks that a hard cut would
    /// have exceeded that bound, so the bound would catch one.
    func testSixteenFastHitsStealTheOldestVoiceWithoutAClick() throws {
        let folder = try TestKitFolder()
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 240 * Double($0) / 48_000)) }
        try folder.writeSample("tone.wav", sine)
        let kit = try folder.loadKit(pads: [TestKitFolder.pad(note: 38, samples: ["tone.wav"])])
        let harness = DrumRenderHarness(kit: kit)
        let hits = (0..<16).map { 1000 + $0 * 2437 }
        for frame in hits { harness.send(.noteOn(channel: 9, note: 38, velocity: 127), at: frame) }
        var voiceCounts: [Int] = []
        let rendered = harness.render(frames: hits.last! + 48_000 + 1000) { voiceCounts.append($0.activeVoiceCount) }

        // The exact expected output: every hit plays the sample from its frame;
        // hit k is stolen by hit k + 4 and fades linearly over 144 frames.
        let fade = 144
        var expected = [Float](repeating: 0, count: rendered.left.count)
        for (k, start) in hits.enumerated() {
            let stolenAt = k + 4 < hits.count ? hits[k + 4] : Int.max
            for t in start..<min(start + sine.count, rendered.left.count) {
                var envelope: Float = 1
                if t >= stolenAt {
                    let into = t - stolenAt
                    if into >= fade { break }
                    envelope = Float(fade - into) / Float(fade)
                }
                expected[t] += sine[t - start] * centre * envelope
            }
        }
        var worstError: Float = 0
        for t in 0..<expected.count { worstError = max(worstError, abs(rendered.left[t] - expected[t])) }
        XCTAssertLessThan(worstError, 1e-5, "every hit sounds from its frame, four at a time, the stolen ones fading over 3 ms")
        XCTAssertEqual(rendered.left, rendered.right, "a centred mono pad")
        XCTAssertEqual(harness.node.activity(note: 38), DrumPadActivity(hitCount: 16, lastVelocity: 127))
        XCTAssertEqual(voiceCounts.max(), 5, "four voices, plus a stolen one while it fades")
        XCTAssertEqual(voiceCounts.last, 0)

        // Clicks: the largest step around each steal against the bound.
        var sampleStep: Float = 0
        for i in 1..<sine.count { sampleStep = max(sampleStep, abs(sine[i] - sine[i - 1])) }
        let threshold = 5 * sampleStep * centre + 0.5 * centre / Float(fade)
        var worstStep: Float = 0
        var hardCut: Float = 0
        for k in 4..<hits.count {
            let steal = hits[k]
            for t in (steal - 64)..<(steal + 2 * fade) {
                worstStep = max(worstStep, abs(rendered.left[t] - rendered.left[t - 1]))
            }
            hardCut = max(hardCut, abs(sine[steal - hits[k - 4]]) * centre)
        }
        XCTAssertLessThanOrEqual(worstStep, threshold)
        XCTAssertGreaterThan(hardCut, 3 * threshold, "a cut would jump well past the bound")
        print("drum kit: steal: largest step \(worstStep) vs threshold \(threshold) (a hard cut: \(hardCut))")
    }

    // MARK: Choke groups

    /// A closed (and a pedal) hi-hat choke the open one within 3 ms; a pad
    /// outside the group rings on.
    func testClosedHiHatChokesTheOpenOneWithinThreeMilliseconds() throws {
        let folder = try TestKitFolder()
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 240 * Double($0) / 48_000)) }
        try folder.writeSample("open.wav", sine)
        // The closed hats play silence, so what remains after them is the open hat.
        try folder.writeSample("closed.wav", [Float](repeating: 0, count: 2000))
        let pads = [
            TestKitFolder.pad(note: 46, samples: ["open.wav"], extra: #""chokeGroup": "hi-hat","#),
            TestKitFolder.pad(note: 42, samples: ["closed.wav"], extra: #""chokeGroup": "hi-hat","#),
            TestKitFolder.pad(note: 44, samples: ["closed.wav"], extra: #""chokeGroup": "hi-hat","#),
            TestKitFolder.pad(note: 49, samples: ["open.wav"]),
        ]
        for closing: UInt8 in [42, 44] {
            let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
            harness.send(.noteOn(channel: 9, note: 46, velocity: 127), at: 100)
            harness.send(.noteOn(channel: 9, note: closing, velocity: 127), at: 4900)
            let out = harness.render(frames: 9600).left
            let before = out[100..<4900].map(abs).max()!
            // The open hat's level from the choke on, and the time until it stays below −60 dB.
            var lastLoud = 4900
            for t in 4900..<out.count where abs(out[t]) > before * 0.001 { lastLoud = t }
            let chokeMilliseconds = Double(lastLoud - 4900 + 1) / 48
            XCTAssertLessThanOrEqual(chokeMilliseconds, 3.0, "note \(closing) chokes the open hat")
            XCTAssertEqual(out[(4900 + 144)...].map(abs).max()!, 0, "silent after the 3 ms fade")
            var step: Float = 0
            for t in 4900..<(4900 + 200) { step = max(step, abs(out[t] - out[t - 1])) }
            XCTAssertLessThan(step, 0.02, "the choke fades, it does not cut (a cut would jump up to 0.35)")
            print("drum kit: choke by note \(closing): open hat below -60 dB after \(chokeMilliseconds) ms, largest step \(step)")
        }
        // The crash is in no group: a hi-hat leaves it ringing.
        let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        harness.send(.noteOn(channel: 9, note: 49, velocity: 127), at: 0)
        harness.send(.noteOn(channel: 9, note: 42, velocity: 127), at: 1000)
        let out = harness.render(frames: 4000).left
        XCTAssertGreaterThan(out[3000..<3200].map(abs).max()!, 0.3)
    }

    // MARK: Timing

    /// A hit at frame k is heard from frame k exactly, whatever the block size
    /// and wherever k falls in a block; and block size changes nothing.
    func testHitsLandOnTheirFrameInAnyBlockSize() throws {
        let folder = try TestKitFolder()
        try folder.writeSample("click.wav", (0..<300).map { Float(1 - Double($0) / 300) })
        let pads = [TestKitFolder.pad(note: 36, samples: ["click.wav"])]
        var reference: [Float]?
        for blockSize in [1, 64, 333, 512] {
            for frame in [0, 1, 63, 64, 65, 1000, 1037] {
                let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads), maximumBlockSize: 512)
                harness.send(.noteOn(channel: 9, note: 36, velocity: 100), at: frame)
                let out = harness.render(frames: 2048, blockSize: blockSize).left
                XCTAssertEqual(out.firstIndex { $0 != 0 }, frame, "block size \(blockSize)")
            }
            let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads), maximumBlockSize: 512)
            for (i, frame) in [5, 70, 71, 400, 1201].enumerated() {
                harness.send(.noteOn(channel: 9, note: 36, velocity: UInt8(40 + 20 * i)), at: frame)
            }
            let out = harness.render(frames: 2048, blockSize: blockSize).left
            if let reference { XCTAssertEqual(out, reference, "block size \(blockSize)") } else { reference = out }
        }
    }

    // MARK: Velocity

    /// Gain follows (velocity/127)² and rises with velocity; each velocity
    /// plays the layer whose range holds it; a layer with two samples
    /// alternates them.
    func testVelocitySetsGainAndLayer() throws {
        let folder = try TestKitFolder()
        for (name, level) in [("soft", 0.1), ("medium", 0.2), ("hard-a", 0.3), ("hard-b", 0.4), ("flat", 0.5)] as [(String, Float)] {
            try folder.writeSample("\(name).wav", [Float](repeating: level, count: 1000))
        }
        let pads = [
            TestKitFolder.pad(note: 36, samples: ["flat.wav"]),
            TestKitFolder.pad(note: 38, layers: #"""
                { "velocity": [1, 50], "samples": ["soft.wav"] },
                { "velocity": [51, 95], "samples": ["medium.wav"] },
                { "velocity": [96, 127], "samples": ["hard-a.wav", "hard-b.wav"] }
                """#),
        ]
        // Gain: one layer, levels read 10 frames into each hit.
        let velocities: [UInt8] = [1, 20, 40, 64, 80, 100, 127]
        let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        for (i, velocity) in velocities.enumerated() {
            harness.send(.noteOn(channel: 9, note: 36, velocity: velocity), at: i * 2000)
        }
        let out = harness.render(frames: velocities.count * 2000).left
        var previous: Float = 0
        for (i, velocity) in velocities.enumerated() {
            let level = out[i * 2000 + 10]
            let curve = Float(velocity) / 127
            XCTAssertEqual(level, 0.5 * centre * curve * curve, accuracy: 1e-6, "velocity \(velocity)")
            XCTAssertGreaterThan(level, previous)
            previous = level
        }
        XCTAssertEqual(20 * log10(Double(out[3 * 2000 + 10] / out[6 * 2000 + 10])), 40 * log10(64.0 / 127), accuracy: 0.01)

        // Layers: the level divided by the velocity gain names the sample played.
        let layerHits: [(UInt8, Float)] = [(30, 0.1), (50, 0.1), (51, 0.2), (95, 0.2), (96, 0.3), (127, 0.4), (127, 0.3), (110, 0.4)]
        let layered = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        for (i, hit) in layerHits.enumerated() { layered.send(.noteOn(channel: 9, note: 38, velocity: hit.0), at: i * 2000) }
        let layerOut = layered.render(frames: layerHits.count * 2000).left
        for (i, hit) in layerHits.enumerated() {
            let curve = Float(hit.0) / 127
            XCTAssertEqual(layerOut[i * 2000 + 10] / (centre * curve * curve), hit.1, accuracy: 1e-5, "hit \(i), velocity \(hit.0)")
        }
    }

    // MARK: Pan and gain

    /// Per-pad gain in dB and constant-power pan: left = g·cos θ, right = g·sin θ
    /// with θ = (pan + 1)·π/4, so left² + right² is the same at every pan.
    func testPanIsConstantPowerAndGainIsInDecibels() throws {
        let folder = try TestKitFolder()
        try folder.writeSample("flat.wav", [Float](repeating: 0.5, count: 1000))
        let pans = [-1.0, -0.5, 0, 0.5, 1]
        let kit = try folder.loadKit(pads: pans.enumerated().map { i, pan in
            TestKitFolder.pad(note: 60 + i, samples: ["flat.wav"], extra: #""pan": \#(pan), "gainDB": -6,"#)
        })
        let harness = DrumRenderHarness(kit: kit)
        for i in pans.indices { harness.send(.noteOn(channel: 9, note: UInt8(60 + i), velocity: 127), at: i * 2000) }
        let out = harness.render(frames: pans.count * 2000)
        let gain = Float(pow(10, -6.0 / 20))
        for (i, pan) in pans.enumerated() {
            let left = out.left[i * 2000 + 10], right = out.right[i * 2000 + 10]
            let angle = (pan + 1) * Double.pi / 4
            XCTAssertEqual(left, 0.5 * gain * Float(cos(angle)), accuracy: 1e-6, "pan \(pan)")
            XCTAssertEqual(right, 0.5 * gain * Float(sin(angle)), accuracy: 1e-6, "pan \(pan)")
            XCTAssertEqual(left * left + right * right, 0.25 * gain * gain, accuracy: 1e-6, "constant power at pan \(pan)")
        }
    }

    // MARK: Note-off, all notes off, channels

    /// Note-offs leave one-shots ringing unless the pad stops on note-off; All
    /// Notes Off, All Sound Off and System Reset fade everything within 5 ms;
    /// other channels are not heard.
    func testNoteOffsAndSilencingMessages() throws {
        let folder = try TestKitFolder()
        let sine = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 240 * Double($0) / 48_000)) }
        try folder.writeSample("tone.wav", sine)
        let pads = [
            TestKitFolder.pad(note: 38, samples: ["tone.wav"]),
            TestKitFolder.pad(note: 39, samples: ["tone.wav"], extra: #""stopsOnNoteOff": true,"#),
        ]
        let silence = 240 // 5 ms
        func lastSound(after frame: Int, _ out: [Float]) -> Int? { out[frame...].lastIndex { $0 != 0 } }

        let ringing = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        ringing.send(.noteOn(channel: 9, note: 38, velocity: 127), at: 0)
        ringing.send(.noteOff(channel: 9, note: 38, velocity: 0), at: 1000)
        ringing.send(.noteOn(channel: 9, note: 38, velocity: 0), at: 1500)
        XCTAssertGreaterThan(ringing.render(frames: 8000).left[5000..<5200].map(abs).max()!, 0.3, "one-shot rings past its note-off")

        let stopping = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        stopping.send(.noteOn(channel: 9, note: 39, velocity: 127), at: 0)
        stopping.send(.noteOff(channel: 9, note: 39, velocity: 0), at: 1000)
        XCTAssertLessThan(lastSound(after: 1000, stopping.render(frames: 8000).left)!, 1000 + silence)

        for message in [MIDIMessage.channelMode(.allNotesOff, channel: 9), .channelMode(.allSoundOff, channel: 9), .systemReset] {
            let harness = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
            harness.send(.noteOn(channel: 9, note: 38, velocity: 127), at: 0)
            harness.send(.noteOn(channel: 9, note: 39, velocity: 127), at: 333)
            harness.send(message, at: 2000)
            let out = harness.render(frames: 8000).left
            XCTAssertLessThan(lastSound(after: 2000, out)!, 2000 + silence, "\(message)")
            var step: Float = 0
            for t in 2000..<(2000 + silence) { step = max(step, abs(out[t] - out[t - 1])) }
            XCTAssertLessThan(step, 0.03, "\(message) fades rather than cuts")
            XCTAssertEqual(harness.node.activeVoiceCount, 0)
        }

        let otherChannel = DrumRenderHarness(kit: try folder.loadKit(pads: pads))
        otherChannel.send(.noteOn(channel: 0, note: 38, velocity: 127), at: 0)
        XCTAssertEqual(otherChannel.render(frames: 1000).left.map(abs).max(), 0, "channel 1 is not the drums' channel")
        let omni = DrumRenderHarness(kit: try folder.loadKit(pads: pads), channel: nil)
        omni.send(.noteOn(channel: 0, note: 38, velocity: 127), at: 0)
        XCTAssertGreaterThan(omni.render(frames: 1000).left.map(abs).max()!, 0.3, "a node for every channel")
    }
}

// MARK: - Shared with the other drum kit test files

/// A kit folder in a temporary directory: WAV samples written from arrays and a manifest.
final class TestKitFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("busker-kit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes interleaved `samples` as a 32-bit float WAV (exact values).
    func writeSample(_ name: String, _ samples: [Float], rate: Int = 48_000, channels: Int = 1) throws {
        let writer = try SoundFileWriter(path: path(name), sampleRate: rate, channelCount: channels, sampleFormat: .f32)
        try writer.write(interleaved: samples)
        try writer.close()
    }

    func writeBytes(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: url.appendingPathComponent(name))
    }

    @discardableResult
    func writeManifest(_ json: String, name: String = "kit.json") throws -> String {
        try json.write(toFile: path(name), atomically: true, encoding: .utf8)
        return path(name)
    }

    /// A manifest with `pads` (JSON objects from `pad(…)`) written and loaded at 48 kHz.
    func loadKit(pads: [String], sampleRate: Double = 48_000) throws -> DrumKit {
        let manifest = try writeManifest(Self.manifest(pads: pads))
        return try DrumKit.load(manifestAt: manifest, sampleRate: sampleRate)
    }

    static func manifest(pads: [String]) -> String {
        #"{ "version": 1, "name": "Test Kit", "pads": [ \#(pads.joined(separator: ", ")) ] }"#
    }

    /// One pad's JSON: one layer over every velocity with `samples`, or the given `layers`.
    static func pad(note: Int, samples: [String] = [], layers: String? = nil, extra: String = "") -> String {
        let list = samples.map { "\"\($0)\"" }.joined(separator: ", ")
        let layerJSON = layers ?? #"{ "velocity": [1, 127], "samples": [\#(list)] }"#
        return #"{ "note": \#(note), \#(extra) "layers": [ \#(layerJSON) ] }"#
    }
}

