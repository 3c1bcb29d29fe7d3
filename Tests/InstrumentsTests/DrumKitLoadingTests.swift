import Engine
import Foundation
import InstrumentTestSupport
import Instruments
import Sequencing
import XCTest

/// Loading kits: bad samples are reported by name and the rest of the kit
/// plays; samples at other rates and in stereo are converted; the shipped
/// kit loads with every pad.
final class DrumKitLoadingTests: XCTestCase {
    /// A missing sample, a corrupt one (random bytes named .wav) and a lost
    /// layer each give a problem naming the file; every pad that still has a
    /// sample plays.
    func testMissingAndCorruptSamplesAreReportedAndTheRestOfTheKitPlays() throws {
        let folder = try TestKitFolder()
        try folder.writeSample("kick.wav", [Float](repeating: 0.5, count: 1000))
        try folder.writeSample("tom-hard.wav", [Float](repeating: 0.3, count: 1000))
        try folder.writeSample("hat.wav", [Float](repeating: 0.2, count: 1000))
        var noise = SystemRandomNumberGenerator()
        try folder.writeBytes("clap.wav", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) })
        try folder.writeBytes("tom-soft.wav", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) })
        let kit = try folder.loadKit(pads: [
            TestKitFolder.pad(note: 36, samples: ["kick.wav"]),
            TestKitFolder.pad(note: 38, samples: ["snare-missing.wav"]),
            TestKitFolder.pad(note: 39, samples: ["clap.wav"]),
            TestKitFolder.pad(note: 45, layers: #"""
                { "velocity": [1, 63], "samples": ["tom-soft.wav"] }, { "velocity": [64, 127], "samples": ["tom-hard.wav"] }
                """#),
            TestKitFolder.pad(note: 42, samples: ["hat.wav", "hat-missing.wav"]),
        ])

        XCTAssertEqual(kit.pads.map(\.note), [36, 45, 42], "snare and clap are skipped, the rest loads")
        XCTAssertEqual(kit.problems.map(\.file), [folder.path("snare-missing.wav"), folder.path("clap.wav"),
                                                  folder.path("tom-soft.wav"), folder.path("hat-missing.wav")])
        XCTAssertEqual(kit.problems.map(\.effect), [.padSkipped, .padSkipped, .layerPlaysNearest(velocities: 1...63), .sampleSkipped])
        for problem in kit.problems {
            XCTAssertTrue(problem.description.contains(problem.file), problem.description)
            XCTAssertTrue(problem.error.contains(problem.file), "the error names the file: \(problem.error)")
            XCTAssertFalse(problem.description.contains("\n"))
            print("drum kit problem: \(problem)")
        }
        XCTAssertTrue(kit.problems[0].error.contains("No such file"), kit.problems[0].error)

        // What loaded plays; what did not is silent; the lost soft tom layer plays the hard one.
        let harness = DrumRenderHarness(kit: kit)
        let centre = Float(cos(Double.pi / 4))
        let hits: [(UInt8, UInt8, Float)] = [(36, 127, 0.5), (38, 127, 0), (39, 127, 0), (45, 30, 0.3), (45, 127, 0.3), (42, 127, 0.2), (42, 127, 0.2)]
        for (i, hit) in hits.enumerated() { harness.send(.noteOn(channel: 9, note: hit.0, velocity: hit.1), at: i * 2000) }
        let out = harness.render(frames: hits.count * 2000).left
        for (i, hit) in hits.enumerated() {
            let curve = Float(hit.1) / 127
            XCTAssertEqual(out[i * 2000 + 10], hit.2 * centre * curve * curve, accuracy: 1e-6, "note \(hit.0)")
        }
    }

    /// A kit in which no sample loads is an error naming the manifest and a sample.
    func testAKitWithNothingLoadableIsAnError() throws {
        let folder = try TestKitFolder()
        try folder.writeBytes("empty.wav", [])
        let manifest = try folder.writeManifest(TestKitFolder.manifest(pads: [
            TestKitFolder.pad(note: 36, samples: ["gone.wav"]), TestKitFolder.pad(note: 38, samples: ["empty.wav"]),
        ]))
        XCTAssertThrowsError(try DrumKit.load(manifestAt: manifest, sampleRate: 48_000)) { error in
            guard case let DrumKitError.nothingLoaded(path, problems) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, manifest)
            XCTAssertEqual(problems.count, 2)
            let text = "\(error)"
            XCTAssertTrue(text.contains(manifest) && text.contains("gone.wav"), text)
        }
        // A bad manifest is the manifest's error, naming the file.
        let broken = try folder.writeManifest("{ \"name\": ", name: "broken.json")
        XCTAssertThrowsError(try DrumKit.load(manifestAt: broken, sampleRate: 48_000)) { error in
            XCTAssertTrue("\(error)".contains(broken), "\(error)")
        }
    }

    /// A sample whose values are all 16-bit ones is held in half the memory
    /// and plays the same numbers: the same noise, once exactly on the 16-bit
    /// grid (held 16-bit) and once with its last value off it (held as
    /// Float32), gives identical output but for that last frame.
    func testASixteenBitSampleTakesHalfTheMemoryAndPlaysTheSameNumbers() throws {
        let folder = try TestKitFolder()
        var seed: UInt64 = 7
        let grid = (0..<4_800).map { _ -> Float in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int16(truncatingIfNeeded: seed >> 40)) / 32768
        }
        var offGrid = grid
        offGrid[offGrid.count - 1] += 1e-6
        try folder.writeSample("grid.wav", grid)
        try folder.writeSample("off-grid.wav", offGrid)
        let sixteen = try folder.loadKit(pads: [TestKitFolder.pad(note: 36, samples: ["grid.wav"])])
        let float = try folder.loadKit(pads: [TestKitFolder.pad(note: 36, samples: ["off-grid.wav"])])
        XCTAssertEqual(sixteen.sampleMemoryBytes, 4_800 * 2)
        XCTAssertEqual(float.sampleMemoryBytes, 4_800 * 4)
        func hit(_ kit: DrumKit) -> [Float] {
            let harness = DrumRenderHarness(kit: kit)
            harness.send(.noteOn(channel: 9, note: 36, velocity: 100), at: 10)
            return harness.render(frames: 5_000).left
        }
        let a = hit(sixteen), b = hit(float)
        XCTAssertGreaterThan(a.map(abs).max() ?? 0, 0.01, "it sounds")
        XCTAssertEqual(Array(a[0..<(10 + 4_799)]), Array(b[0..<(10 + 4_799)]))
        XCTAssertNotEqual(a[10 + 4_799], b[10 + 4_799], "the off-grid value is kept as it is")
    }

    /// A 1 kHz sample made at 44.1 kHz plays at 1 kHz and lasts as long at
    /// 48 kHz; a stereo sample keeps its two channels.
    func testSamplesAreConvertedToTheEngineRateAndKeepTheirChannels() throws {
        let folder = try TestKitFolder()
        let tone = (0..<11_025).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / 44_100)) }
        try folder.writeSample("tone-44k.wav", tone, rate: 44_100)
        try folder.writeSample("stereo.wav", (0..<1000).flatMap { _ in [Float(0.5), Float(-0.25)] }, channels: 2)
        let kit = try folder.loadKit(pads: [
            TestKitFolder.pad(note: 36, samples: ["tone-44k.wav"]),
            TestKitFolder.pad(note: 38, samples: ["stereo.wav"]),
        ])
        // The resampled tone is held as Float32; the stereo sample's values (0.5, −0.25) are
        // exactly 16-bit ones at the engine rate, held as 16-bit: half the bytes.
        XCTAssertEqual(kit.sampleMemoryBytes, 12_000 * 4 + 2 * 1000 * 2, accuracy: 4 * 8)
        let harness = DrumRenderHarness(kit: kit)
        harness.send(.noteOn(channel: 9, note: 36, velocity: 127), at: 0)
        harness.send(.noteOn(channel: 9, note: 38, velocity: 127), at: 20_000)
        let out = harness.render(frames: 22_000)
        let toneOut = Array(out.left[0..<20_000])
        let last = toneOut.lastIndex { abs($0) > 1e-4 }!
        XCTAssertEqual(Double(last), 12_000, accuracy: 30, "0.25 s at 48 kHz")
        // Frequency from upward zero crossings over the middle of the tone.
        var crossings: [Int] = []
        for t in 2000..<10_000 where toneOut[t - 1] < 0 && toneOut[t] >= 0 { crossings.append(t) }
        let period = Double(crossings.last! - crossings.first!) / Double(crossings.count - 1)
        XCTAssertEqual(48_000 / period, 1000, accuracy: 2)
        let centre = Float(cos(Double.pi / 4))
        XCTAssertEqual(out.left[20_010], 0.5 * centre, accuracy: 1e-6)
        XCTAssertEqual(out.right[20_010], -0.25 * centre, accuracy: 1e-6)
    }

    /// A kit loaded for one rate is refused by a node running at another,
    /// and a kit plays in one node only.
    func testInstallChecksRateAndOwnership() throws {
        let folder = try TestKitFolder()
        try folder.writeSample("kick.wav", [Float](repeating: 0.5, count: 100))
        let kit = try folder.loadKit(pads: [TestKitFolder.pad(note: 36, samples: ["kick.wav"])], sampleRate: 44_100)
        let node = DrumKitNode(events: MIDIEventBuffer(capacity: 16))
        node.allocate(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64), inputChannelCounts: [], outputChannelCount: 2)
        XCTAssertThrowsError(try node.install(kit)) { error in
            XCTAssertEqual(error as? DrumKitError, .sampleRateMismatch(manifestPath: folder.path("kit.json"), kitRate: 44_100, engineRate: 48_000))
        }
        let other = DrumKitNode(events: MIDIEventBuffer(capacity: 16))
        let shared = try folder.loadKit(pads: [TestKitFolder.pad(note: 36, samples: ["kick.wav"])])
        try node.install(shared)
        XCTAssertThrowsError(try other.install(shared)) { error in
            XCTAssertEqual(error as? DrumKitError, .kitInUse(manifestPath: folder.path("kit.json")))
        }
    }

    // MARK: The shipped kit

    /// Sounds/kit loads with no problem and has every pad a kit needs: kick,
    /// snare, side stick, clap, three hi-hats, three toms, crash and ride,
    /// three velocity layers each, and every pad sounds, soft and hard.
    func testShippedKitLoadsWithEveryPad() throws {
        let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds/kit/kit.json").path
        let kit = try DrumKit.load(manifestAt: manifest, sampleRate: 48_000)
        XCTAssertEqual(kit.problems, [])
        let expected: [UInt8: String] = [
            36: "Kick", 38: "Snare", 37: "Side Stick", 39: "Hand Clap", 42: "Closed Hi-Hat", 44: "Pedal Hi-Hat",
            46: "Open Hi-Hat", 50: "High Tom", 47: "Mid Tom", 43: "Floor Tom", 49: "Crash Cymbal", 51: "Ride Cymbal",
        ]
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: kit.pads.map { ($0.note, $0.name) }), expected)
        for pad in kit.pads {
            XCTAssertEqual(pad.layerCount, 3, pad.name)
            XCTAssertEqual(pad.voiceCount, 4, pad.name)
        }
        XCTAssertEqual(Set(kit.pads.filter { $0.chokeGroup != nil }.map(\.note)), [42, 44, 46], "the hi-hats choke each other")
        // Alternative GM notes reach the same pads (a GM file's 35 kick, 40 snare, six toms).
        for (alias, pad) in [(35, 36), (40, 38), (48, 50), (45, 47), (41, 43), (57, 49), (59, 51)] as [(UInt8, UInt8)] {
            XCTAssertEqual(kit.pad(forNote: alias)?.note, pad)
        }
        XCTAssertLessThan(kit.sampleMemoryBytes, 16_000_000)

        let harness = DrumRenderHarness(kit: kit, maximumBlockSize: 512)
        let notes = kit.pads.map(\.note)
        for (i, note) in notes.enumerated() {
            // All Sound Off before each hit, so a cymbal's tail does not ring into the next measurement.
            harness.send(.noteOn(channel: 9, note: note, velocity: 30), at: i * 48_000)
            harness.send(.channelMode(.allSoundOff, channel: 9), at: i * 48_000 + 23_500)
            harness.send(.noteOn(channel: 9, note: note, velocity: 127), at: i * 48_000 + 24_000)
            harness.send(.channelMode(.allSoundOff, channel: 9), at: i * 48_000 + 47_500)
        }
        let out = harness.render(frames: notes.count * 48_000)
        for (i, note) in notes.enumerated() {
            let soft = peak(out, (i * 48_000)..<(i * 48_000 + 2400))
            let hard = peak(out, (i * 48_000 + 24_000)..<(i * 48_000 + 26_400))
            XCTAssertGreaterThan(soft, 0.001, "note \(note) sounds soft")
            XCTAssertGreaterThan(hard, soft * 3, "note \(note): a hard hit is louder")
            XCTAssertLessThan(hard, 1, "note \(note) does not clip on its own")
        }
        XCTAssertEqual(harness.node.activity(note: 42).hitCount, 2)

        // Found without configuration, and a configured kit that is missing is named.
        XCTAssertEqual(URL(fileURLWithPath: try DrumKitLocation.defaultManifestPath(environment: [:])).standardized.path,
                       URL(fileURLWithPath: manifest).standardized.path)
        XCTAssertThrowsError(try DrumKitLocation.defaultManifestPath(environment: [DrumKitLocation.environmentVariable: "/nowhere/kit.json"])) {
            XCTAssertTrue("\($0)".contains("/nowhere/kit.json"), "\($0)")
        }
    }

    private func peak(_ out: (left: [Float], right: [Float]), _ range: Range<Int>) -> Float {
        max(out.left[range].map(abs).max()!, out.right[range].map(abs).max()!)
    }
}
