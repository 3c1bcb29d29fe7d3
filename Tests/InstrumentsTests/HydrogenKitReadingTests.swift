import AudioFiles
import Foundation
import InstrumentTestSupport
import Instruments
import RenderTestSupport
import XCTest

/// Reading `drumkit.xml` (both layouts), the note map, where kits are found,
/// and a damaged kit: what loads, and the one line per thing skipped.
final class HydrogenKitReadingTests: XCTestCase {
    private var work: URL!

    override func setUpWithError() throws { work = try makeWorkFolder("busker-hydrogen") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    // MARK: XML

    func testTheXMLReaderTakesWhatKitFilesHold() throws {
        let text = """
        \u{FEFF}<?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment <with> markup -->
        <drumkit_info xmlns="http://www.hydrogen-music.org/drumkit">
          <name>A &amp; B &lt;kit&gt; &#233;&#x41;</name>
          <exclude />
          <info><![CDATA[<b>bold</b>]]></info>
          <instrumentList><instrument id="1"><name>Kick</name></instrument></instrumentList>
        </drumkit_info>
        """
        let root = try HydrogenXMLElement.parse(Array(text.utf8))
        XCTAssertEqual(root.name, "drumkit_info")
        XCTAssertEqual(root.text(of: "name"), "A & B <kit> éA")
        XCTAssertEqual(root.text(of: "exclude"), "")
        XCTAssertEqual(root.text(of: "info"), "<b>bold</b>")
        XCTAssertEqual(root.child("instrumentList")?.children("instrument").first?.text(of: "name"), "Kick")
        XCTAssertEqual(root.child("instrumentList")?.line, 7)

        for (broken, line, words) in [("<a>\n<b>\n</a>", 3, "</a> closes <b>"), ("<a>\n<b>x</b>\n", 3, "no end tag"),
                                      ("<a>&bogus;</a>", 1, "unknown entity"), ("", 1, "no root"), ("<a/><b/>", 1, "second root")] {
            XCTAssertThrowsError(try HydrogenXMLElement.parse(Array(broken.utf8)), broken) { error in
                let error = error as! HydrogenXMLError
                XCTAssertEqual(error.line, line, broken)
                XCTAssertTrue(error.reason.contains(words), "\(broken): \(error.reason)")
            }
        }
    }

    // MARK: Notes

    func testNamesGiveGeneralMIDINotes() {
        let cases: [(String, Int?)] = [
            ("Kick", 36), ("Pearl Kick", 36), ("BassDrum", 36), ("c3 - bass drum 1", 36), ("Snare1", 38), ("Snare Rock", 38),
            ("Pearl Snare Rimshot", 40), ("Pearl Side Stick", 37), ("Hand Clap", 39), ("Closed HH", 42), ("Sabian Hat Closed", 42),
            ("Pedal HH", 44), ("VariBreaks Hat 1 Pd", 44), ("Open HH", 46), ("Hi-Hat Open (Paiste)", 46), ("Sabian Hat Semi-Open", nil),
            ("Tom Floor", 41), ("Tom Low", 45), ("Tom Mid", 47), ("Tom Hi", 50), ("tomhi2", 50), ("Paiste Ride", 51),
            ("Paiste Bell", 53), ("Ride Bell", 53), ("Sabian Crash", 49), ("crash16inch", 49), ("China (Paiste Alpha 18\")", 52),
            ("Zildjian Splash", 55), ("Cowbell", 56), ("Tambourine", 54), ("Maraca", 70), ("Clave", 75), ("Woodblock Lo", 77),
            ("Bongo Hi", 60), ("Bongo Lo", 61), ("Agogo Low", 68), ("Sample: beats_01-39.flac", nil), ("Finger Snaps", nil),
        ]
        for (name, note) in cases { XCTAssertEqual(HydrogenNoteMap.gmNotes(name: name).first, note, name) }
    }

    /// The Black Pearl orders its hats and toms unlike the GM map; names put
    /// them on their GM notes, the rest keep Hydrogen's 36 + position, and
    /// every instrument gets a note of its own.
    func testNotesFollowNamesThenTheKitsOrder() {
        let names = ["Kick", "Side Stick", "Snare", "Clap", "Snare Rimshot", "Tom Floor", "Hat Closed", "Tom 2", "Hat Pedal",
                     "Tom 1", "Hat Semi-Open", "Hat Open", "Swish", "Ride", "Whatever", "Explicit"]
        var instruments = names.enumerated().map { HydrogenInstrument(id: $0.offset, name: $0.element, layers: [HydrogenLayer(file: "x.wav")], position: $0.offset) }
        instruments[15].midiInNote = 42
        let notes = HydrogenNoteMap.notes(for: instruments)
        // One name of twelve finds its GM notes taken (Hat Closed's 42): the names choose.
        XCTAssertTrue(HydrogenNoteMap.followsNames(instruments))
        // 1. <midiInNote>: Explicit 42. 2. Names: Kick 36 … Hat Open 46, Ride 51 (Hat Closed's 42 is taken).
        // 3. 36 + position to those without: Whatever 50 (Hat Closed's 42, Semi-Open's 46 and Swish's 48 are taken).
        // 4. Other GM notes where free: 35, 43, 47, 59 (40 and 50 are taken). 5. The lowest free notes: 49, 52, 53.
        let expected: [[UInt8]] = [[36, 35], [37], [38], [39], [40], [41, 43], [49], [45, 47], [44],
                                   [48], [52], [46], [53], [51, 59], [50], [42]]
        XCTAssertEqual(notes, expected)
        let all = notes.flatMap { $0 }
        XCTAssertEqual(all.count, Set(all).count, "a note plays one instrument")
        XCTAssertFalse(notes.contains { $0.isEmpty }, "every instrument has a note")
    }

    /// A kit of variations (six kicks) keeps Hydrogen's order, 36 + position;
    /// names only add free notes (35 to the first kick).
    func testAKitOfVariationsKeepsItsOrder() {
        let names = ["Kick 1", "Kick 2", "Kick 3", "Kick 4", "Kick 5", "Kick 6", "Snare 1", "Snare 2", "Clap"]
        let instruments = names.enumerated().map { HydrogenInstrument(id: $0.offset, name: $0.element, layers: [HydrogenLayer(file: "x.wav")], position: $0.offset) }
        XCTAssertFalse(HydrogenNoteMap.followsNames(instruments), "four kicks of six find 36 and 35 taken")
        XCTAssertEqual(HydrogenNoteMap.notes(for: instruments), [[36, 35], [37], [38], [39], [40], [41], [42], [43], [44]])
    }

    // MARK: Where kits are found

    /// A copy of an installed kit's folder in `parent` (samples linked, drumkit.xml copied so it can be edited).
    private func copyKit(_ name: String, to parent: URL, as newName: String? = nil) throws -> URL {
        let source = URL(fileURLWithPath: try HydrogenKitTests.kit(name))
        let target = parent.appendingPathComponent(newName ?? name)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for entry in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            let from = source.appendingPathComponent(entry), to = target.appendingPathComponent(entry)
            if entry == "drumkit.xml" {
                try FileManager.default.copyItem(at: from, to: to)
            } else {
                try FileManager.default.createSymbolicLink(at: to, withDestinationURL: from)
            }
        }
        return target
    }

    func testKitsAreFoundByPathAndByName() throws {
        let home = work.appendingPathComponent("home")
        let user = home.appendingPathComponent(".hydrogen/data/drumkits")
        let mine = try copyKit("VariBreaks", to: user, as: "My Breaks")
        let xdg = try copyKit("VariBreaks", to: work.appendingPathComponent("xdg/hydrogen/data/drumkits"), as: "Millo_MultiLayered3")
        let catalog = DrumKitCatalog(environment: ["HOME": home.path, "XDG_DATA_HOME": work.appendingPathComponent("xdg").path])
        let kits = catalog.installed()
        let mineListed = try XCTUnwrap(kits.first { $0.name == "My Breaks" })
        XCTAssertEqual(mineListed.origin, .hydrogenUser)
        XCTAssertEqual(mineListed.reference, .hydrogen(folder: mine.path))
        XCTAssertTrue(kits.contains { $0.name == "ColomboAcousticDrumkit" && $0.origin == .hydrogenSystem })
        XCTAssertEqual(kits.first?.origin, .busker, "the shipped kit comes first")

        XCTAssertEqual(try catalog.resolve("my breaks"), .hydrogen(folder: mine.path), "names match without case")
        XCTAssertEqual(try catalog.resolve("Millo_MultiLayered3"), .hydrogen(folder: xdg.path), "a user kit shadows a system kit")
        XCTAssertEqual(try catalog.resolve("ColomboAcousticDrumkit"), .hydrogen(folder: "\(HydrogenKitTests.systemFolder)/ColomboAcousticDrumkit"))
        XCTAssertEqual(try catalog.resolve(mine.path), .hydrogen(folder: mine.path))
        XCTAssertEqual(try catalog.resolve(mine.appendingPathComponent("drumkit.xml").path), .hydrogen(folder: mine.path))
        let shipped = DrumKitLocation.sourceCheckoutKitFolder
        XCTAssertEqual(try catalog.resolve(shipped), .manifest(path: "\(shipped)/kit.json"))
        XCTAssertThrowsError(try catalog.resolve("No Such Kit")) { error in
            XCTAssertEqual("\(error)", "no drum kit 'No Such Kit': not a kit folder, kit.json or installed kit name (busker kits lists them)")
        }
    }

    // MARK: Damage

    /// A copy of Millo_MultiLayered3 with the kick's second layer sample
    /// deleted, a layer's <min> made "abc", a layer's <filename> removed, and
    /// Snare Rock's samples deleted: the kit loads every other pad, the
    /// kick's lost velocities play the nearest layer, and each thing skipped
    /// is one line naming what and where.
    func testADamagedKitLoadsTheRestAndSaysWhatItSkipped() throws {
        let kit = try copyKit("Millo_MultiLayered3", to: work)
        let original = try DrumKit.load(hydrogenKitAt: kit.path, sampleRate: 48_000)
        XCTAssertEqual(original.problems, [])
        let xml = kit.appendingPathComponent("drumkit.xml")
        var text = try String(contentsOf: xml, encoding: .utf8)
        // Stick's second layer: <min> broken.
        let stick = try XCTUnwrap(text.range(of: "<filename>rs_02.flac</filename>"))
        let minimum = try XCTUnwrap(text.range(of: "<min>", range: stick.upperBound..<text.endIndex))
        let end = try XCTUnwrap(text.range(of: "</min>", range: minimum.upperBound..<text.endIndex))
        text.replaceSubrange(minimum.upperBound..<end.lowerBound, with: "abc")
        // Kick's third layer: no file name.
        text = text.replacingOccurrences(of: "<filename>bd_03.flac</filename>", with: "")
        try text.write(to: xml, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(at: kit.appendingPathComponent("bd_02.flac"))
        let snareFiles = try HydrogenKit.load(folder: kit.path).instruments.first { $0.name == "Snare Rock" }!.layers.map(\.file)
        for file in Set(snareFiles) { try FileManager.default.removeItem(at: kit.appendingPathComponent(file)) }

        let damaged = try DrumKit.load(hydrogenKitAt: kit.path, sampleRate: 48_000)
        XCTAssertEqual(damaged.pads.count, original.pads.count - 1, "only Snare Rock is lost")
        XCTAssertNil(damaged.pads.first { $0.name == "Snare Rock" })
        let lines = damaged.problems.map(\.description)
        print("hydrogen damaged kit:\n" + lines.joined(separator: "\n"))
        XCTAssertEqual(lines.count, 3 + Set(snareFiles).count, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("pad 'Stick' (note 37): drumkit.xml line ") && $0.hasSuffix("<min> 'abc' is not a number; used 0") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("pad 'Kick' (note 36): drumkit.xml line ") && $0.hasSuffix("<layer> has no <filename>; layer skipped") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("pad 'Kick' (note 36): ") && $0.contains("bd_02.flac") && $0.hasSuffix("play the nearest layer") }, "\(lines)")
        XCTAssertEqual(lines.filter { $0.hasPrefix("pad 'Snare Rock'") && $0.hasSuffix("pad skipped") }.count, Set(snareFiles).count, "\(lines)")
        let kick = try XCTUnwrap(damaged.pad(forNote: 36))
        XCTAssertEqual(kick.layerCount, 2, "bd_01 and bd_04 are left")
        // Every velocity of the kick still sounds.
        for velocity: UInt8 in [1, 41, 60, 100, 127] {
            let harness = DrumRenderHarness(kit: try DrumKit.load(hydrogenKitAt: kit.path, sampleRate: 48_000))
            harness.send(.noteOn(channel: 9, note: 36, velocity: velocity), at: 0)
            XCTAssertGreaterThan(harness.render(frames: 4800).left.map(abs).max()!, 0, "velocity \(velocity)")
        }
    }

    func testAKitThatIsNotOneIsAOneLineError() throws {
        let folder = work.appendingPathComponent("bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func error(_ xml: String?) -> String {
            if let xml { try? xml.write(to: folder.appendingPathComponent("drumkit.xml"), atomically: true, encoding: .utf8) }
            do {
                _ = try DrumKit.load(hydrogenKitAt: folder.path, sampleRate: 48_000)
                return "loaded"
            } catch {
                return error.description
            }
        }
        let path = folder.appendingPathComponent("drumkit.xml").path
        XCTAssertEqual(error(nil), "Hydrogen drum kit '\(path)': no such file")
        XCTAssertEqual(error("<drumkit_info>\n<name>x</name>\n<instrumentList>"), "Hydrogen drum kit '\(path)': line 3: <instrumentList> (line 3) has no end tag")
        XCTAssertEqual(error("<song></song>"), "Hydrogen drum kit '\(path)': line 1: the root element is <song>, not <drumkit_info>")
        XCTAssertEqual(error("<drumkit_info><name>x</name></drumkit_info>"), "Hydrogen drum kit '\(path)': no <instrumentList>")
        let missing = error("<drumkit_info><instrumentList><instrument><name>K</name><filename>gone.wav</filename></instrument></instrumentList></drumkit_info>")
        XCTAssertTrue(missing.hasPrefix("drum kit '\(path)': no sample could be loaded: "), missing)
        XCTAssertTrue(missing.contains("gone.wav"), missing)
        XCTAssertFalse(missing.contains("\n"))
    }

    // MARK: Gain, pan, pitch

    /// A kit written here on a known tone (0.4 × sin, 300 Hz, 0.2 s): the pad
    /// gain is volume × gain (0.8 × 0.5), the layer's gain multiplies it (×1.5),
    /// pan_L 1, pan_R 0.5 is pan −0.5 (constant power: cos and sin of 3π/16),
    /// and a layer pitched +12 semitones plays an octave up, in half the time.
    func testGainPanAndPitchFollowTheKit() throws {
        let folder = work.appendingPathComponent("Tone Kit")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let tone = (0..<9600).map { Float(0.4 * sin(2 * Double.pi * 300 * Double($0) / 48_000)) }
        let writer = try SoundFileWriter(path: folder.appendingPathComponent("tone.wav").path, sampleRate: 48_000, channelCount: 1, sampleFormat: .f32)
        try writer.write(interleaved: tone)
        try writer.close()
        let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <drumkit_info><name>Tone Kit</name><instrumentList>
          <instrument><id>0</id><name>Kick</name><volume>0.8</volume><gain>0.5</gain><pan_L>1</pan_L><pan_R>0.5</pan_R>
            <layer><filename>tone.wav</filename><min>0</min><max>1</max><gain>1.5</gain><pitch>0</pitch></layer></instrument>
          <instrument><id>1</id><name>Up</name><volume>1</volume>
            <layer><filename>tone.wav</filename><min>0</min><max>1</max><gain>1</gain><pitch>12</pitch></layer></instrument>
        </instrumentList></drumkit_info>
        """
        try xml.write(to: folder.appendingPathComponent("drumkit.xml"), atomically: true, encoding: .utf8)
        let kit = try DrumKit.load(hydrogenKitAt: folder.path, sampleRate: 48_000)
        XCTAssertEqual(kit.problems, [])
        XCTAssertEqual(kit.pads.map(\.name), ["Kick", "Up"])
        XCTAssertEqual(kit.pads[0].pan, -0.5, accuracy: 1e-12)
        XCTAssertEqual(kit.pads[0].gainDB, 20 * log10(0.4), accuracy: 1e-9)

        let harness = DrumRenderHarness(kit: kit)
        harness.send(.noteOn(channel: 9, note: 36, velocity: 127), at: 0)
        let out = harness.render(frames: 9600)
        let angle = 0.5 * Double.pi / 4
        XCTAssertEqual(Double(out.left.map(abs).max()!), 0.4 * 0.4 * 1.5 * cos(angle), accuracy: 1e-4)
        XCTAssertEqual(Double(out.right.map(abs).max()!), 0.4 * 0.4 * 1.5 * sin(angle), accuracy: 1e-4)

        let up = try XCTUnwrap(kit.pads.first { $0.name == "Up" })
        let pitched = DrumRenderHarness(kit: try DrumKit.load(hydrogenKitAt: folder.path, sampleRate: 48_000))
        pitched.send(.noteOn(channel: 9, note: up.note, velocity: 127), at: 0)
        let left = pitched.render(frames: 9600).left
        let last = try XCTUnwrap(left.lastIndex { abs($0) > 1e-4 })
        XCTAssertEqual(Double(last), 4800, accuracy: 48, "half the length (within 1 ms)")
        // Upward zero crossings over the first 4000 frames: 600 Hz gives 50.
        var crossings = 0
        for t in 1..<4000 where left[t - 1] < 0 && left[t] >= 0 { crossings += 1 }
        XCTAssertEqual(crossings, 50, accuracy: 1, "an octave up: 600 Hz")
    }
}
