import Foundation
import InstrumentTestSupport
import Instruments
import XCTest

/// The Hydrogen kits Debian's `hydrogen-drumkits` installs, loaded and
/// played: every kit loads, every instrument sounds from its note, velocity
/// picks Hydrogen's layer, a mute group chokes.
final class HydrogenKitTests: XCTestCase {
    static let systemFolder = "/usr/share/hydrogen/data/drumkits"

    /// The installed kits' folders; the package is in Tools/debian-packages-dev.txt.
    static func installedKits() throws -> [String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: systemFolder).sorted()
        let kits = names.map { "\(systemFolder)/\($0)" }.filter { FileManager.default.fileExists(atPath: "\($0)/drumkit.xml") }
        guard !kits.isEmpty else { throw XCTSkip("no Hydrogen kits in \(systemFolder): apt install hydrogen-drumkits") }
        return kits
    }

    static func kit(_ name: String) throws -> String {
        let folder = "\(systemFolder)/\(name)"
        guard FileManager.default.fileExists(atPath: "\(folder)/drumkit.xml") else {
            throw XCTSkip("\(folder) missing: apt install hydrogen-drumkits")
        }
        return folder
    }

    /// Peak of `samples[range]`.
    private func peak(_ samples: [Float], _ range: Range<Int>? = nil) -> Float {
        samples[range ?? samples.indices].reduce(0) { max($0, abs($1)) }
    }

    /// Every installed kit loads; each of its instruments with samples is a
    /// pad (or a reported problem); and each pad, hit on its own note and on
    /// every other note it answers, sounds: its peak within 400 ms is above
    /// −60 dBFS (the softest instrument sample of these kits peaks near −30 dBFS).
    func testEveryInstalledKitLoadsAndEveryInstrumentSoundsFromItsNotes() throws {
        var report: [String] = []
        for folder in try Self.installedKits() {
            let read = try HydrogenKit.load(folder: folder)
            let kit = try DrumKit.load(hydrogenKitAt: folder, sampleRate: 48_000)
            let skipped = Set(kit.problems.filter { $0.effect == .padSkipped }.map(\.padName))
            let expected = read.instruments.filter { !$0.layers.isEmpty && !skipped.contains($0.name) }.count
            XCTAssertEqual(kit.pads.count, expected, "\(folder): one pad per instrument")
            var owners: [UInt8: String] = [:]
            for pad in kit.pads {
                for note in pad.notes {
                    XCTAssertNil(owners[note], "\(folder): note \(note) is played by one pad")
                    owners[note] = pad.name
                }
            }
            // Every (pad, note) in turn, 400 ms apart, from one node: all sound is
            // faded out (in 5 ms) 1000 frames before each hit, so a window holds its hit only.
            let pairs = kit.pads.flatMap { pad in pad.notes.map { (note: $0, name: pad.name) } }
            let harness = DrumRenderHarness(kit: kit)
            for (index, pair) in pairs.enumerated() {
                harness.send(.channelMode(.allSoundOff, channel: 9), at: index * 19_200)
                harness.send(.noteOn(channel: 9, note: pair.note, velocity: 127), at: index * 19_200 + 1000)
            }
            let out = harness.render(frames: pairs.count * 19_200)
            var silent: [String] = []
            for (index, pair) in pairs.enumerated() {
                let window = (index * 19_200 + 1000)..<((index + 1) * 19_200)
                if max(peak(out.left, window), peak(out.right, window)) < 0.001 { silent.append("\(pair.note) \(pair.name)") }
            }
            XCTAssertEqual(silent, [], "\(folder): silent notes")
            report.append("\(URL(fileURLWithPath: folder).lastPathComponent): \(kit.pads.count) pads, \(kit.problems.count) problems")
        }
        print("hydrogen kits: " + report.joined(separator: "; "))
    }

    /// The Black Pearl orders its hats and cymbals unlike General MIDI (its
    /// open hat is instrument 11, Hydrogen's note 47); its names put them on
    /// their GM notes, and the instruments without a GM name keep a note of their own.
    func testGeneralMIDINotesReachTheBlackPearlsDrumsByName() throws {
        let kit = try HydrogenKit.load(folder: try Self.kit("The Black Pearl 1.0"))
        XCTAssertTrue(HydrogenNoteMap.followsNames(kit.instruments))
        let notes = HydrogenNoteMap.notes(for: kit.instruments)
        var player: [UInt8: String] = [:]
        for (instrument, its) in zip(kit.instruments, notes) { for note in its { player[note] = instrument.name } }
        let expected: [UInt8: String] = [36: "Pearl Kick", 37: "Pearl Side Stick", 38: "Pearl Snare", 39: "Hand Clap",
                                         41: "Pearl Tom Floor", 42: "Sabian Hat Closed", 44: "Sabian Hat Pedal",
                                         46: "Sabian Hat Open", 49: "Sabian Crash", 51: "Paiste Ride", 53: "Paiste Bell",
                                         55: "Zildjian Splash", 56: "Cowbell"]
        for (note, name) in expected { XCTAssertEqual(player[note], name, "note \(note)") }
        XCTAssertFalse(notes.contains { $0.isEmpty }, "every instrument has a note")
    }

    /// Millo_MultiLayered3's kick has four layers, [0, 0.3248], [0.3034,
    /// 0.6752], … (overlapping); Hydrogen plays the first that holds
    /// velocity/127. Two velocities in one layer render the same waveform
    /// scaled by (v₁/v₂)²; velocities in different layers render different
    /// samples. Velocity 41 (0.323) is in layers 0 and 1 and plays layer 0;
    /// 42 (0.331) plays layer 1.
    func testVelocityPicksHydrogensLayer() throws {
        let folder = try Self.kit("Millo_MultiLayered3")
        let kit = try DrumKit.load(hydrogenKitAt: folder, sampleRate: 48_000)
        let kick = try XCTUnwrap(kit.pad(forNote: 36))
        XCTAssertEqual(kick.name, "Kick")
        XCTAssertEqual(kick.layerCount, 4)
        func render(_ velocity: UInt8) throws -> [Float] {
            let harness = DrumRenderHarness(kit: try DrumKit.load(hydrogenKitAt: folder, sampleRate: 48_000))
            harness.send(.noteOn(channel: 9, note: 36, velocity: velocity), at: 0)
            return harness.render(frames: 24_000).left
        }
        /// The largest difference between `a` and `b` scaled to `a`'s gain, relative to `a`'s peak.
        func mismatch(_ a: [Float], _ va: UInt8, _ b: [Float], _ vb: UInt8) -> Float {
            let scale = Float(va) * Float(va) / (Float(vb) * Float(vb))
            return zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1 * scale)) } / peak(a)
        }
        let soft30 = try render(30), soft41 = try render(41), mid42 = try render(42), mid80 = try render(80)
        let hard120 = try render(120), hard127 = try render(127)
        // The same layer: equal up to Float rounding (2⁻²⁰ of the peak).
        XCTAssertLessThan(mismatch(soft41, 41, soft30, 30), 1e-5, "velocities 30 and 41 play layer 0")
        XCTAssertLessThan(mismatch(mid80, 80, mid42, 42), 1e-5, "velocities 42 and 80 play layer 1")
        XCTAssertLessThan(mismatch(hard127, 127, hard120, 120), 1e-5, "velocities 120 and 127 play layer 3")
        // Other layers: other samples, differing by a good part of the peak.
        let across = [mismatch(mid42, 42, soft41, 41), mismatch(hard127, 127, mid80, 80), mismatch(hard127, 127, soft30, 30)]
        for value in across { XCTAssertGreaterThan(value, 0.05, "another layer plays another sample") }
        print("hydrogen layers: Millo kick peak at velocity 30 \(peak(soft30)), 41 \(peak(soft41)), 42 \(peak(mid42)), 127 \(peak(hard127)); mismatch across layers \(across)")
    }

    /// VariBreaks puts its three hi-hats in mute group 0. The open hat hit at
    /// 0, then the closed one at 200 ms: subtracting the closed hat rendered
    /// alone leaves what is left of the open hat, which must be silent from
    /// 3 ms after the choke (the choke fade), where the open hat alone still
    /// rings. The kick, in no group, is not choked by the hat.
    func testAMuteGroupChokesTheOpenHiHat() throws {
        let folder = try Self.kit("VariBreaks")
        let kit = try DrumKit.load(hydrogenKitAt: folder, sampleRate: 48_000)
        let open = try XCTUnwrap(kit.pads.first { $0.name == "VariBreaks Hat 1 Op" })
        let closed = try XCTUnwrap(kit.pads.first { $0.name == "VariBreaks Hat 1 Cl" })
        XCTAssertEqual(open.chokeGroup, "mute group 0")
        XCTAssertEqual(closed.chokeGroup, "mute group 0")
        // Sixteen variations (three kicks, three snares, four hats): the kit keeps Hydrogen's 36 + position.
        XCTAssertEqual(open.note, 36 + 11)
        XCTAssertEqual(closed.note, 36 + 9)
        let choke = 9600, after = choke + 144
        func render(_ hits: [(UInt8, Int)]) throws -> [Float] {
            let harness = DrumRenderHarness(kit: try DrumKit.load(hydrogenKitAt: folder, sampleRate: 48_000))
            for (note, frame) in hits { harness.send(.noteOn(channel: 9, note: note, velocity: 127), at: frame) }
            return harness.render(frames: 48_000).left
        }
        func energy(_ samples: [Float]) -> Double { samples[after...].reduce(0) { $0 + Double($1) * Double($1) } }
        let openAlone = try render([(open.note, 0)])
        let closedAlone = try render([(closed.note, choke)])
        let both = try render([(open.note, 0), (closed.note, choke)])
        let residual = zip(both, closedAlone).map { $0 - $1 }
        let ringing = energy(openAlone), left = energy(residual)
        XCTAssertGreaterThan(ringing, 1, "the open hat alone rings on past the choke point")
        XCTAssertLessThan(left, ringing * 1e-9, "after the choke the open hat is silent")
        XCTAssertEqual(peak(residual, after..<residual.count), 0)
        print("hydrogen mute group: open hat energy after 200 ms + 3 ms: alone \(ringing), choked \(left)")

        let kick = try XCTUnwrap(kit.pad(forNote: 36))
        XCTAssertNil(kick.chokeGroup)
        let kickAlone = try render([(36, 0)])
        let hatAlone = try render([(closed.note, 2400)])
        let kickAndHat = try render([(36, 0), (closed.note, 2400)])
        let kickLeft = zip(kickAndHat, hatAlone).map { $0 - $1 }
        XCTAssertLessThan(zip(kickLeft, kickAlone).map { abs($0 - $1) }.max()!, 1e-6, "the hat leaves the kick ringing")
    }
}
