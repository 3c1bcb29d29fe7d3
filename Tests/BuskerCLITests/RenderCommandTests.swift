import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker render` end to end: a MIDI file in, an audio file out, every event
/// on its frame through the whole instrument chain.
final class RenderCommandTests: XCTestCase {
    private var work: URL!
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws { work = try makeWorkFolder("busker-render") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// A format-0 file at 120 BPM, 480 ticks per quarter (1 s = 960 ticks), with `events` as (tick, bytes).
    private func writeMIDI(_ name: String, _ events: [(tick: Int, bytes: [UInt8])], endTick: Int) throws -> String {
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        var last = 0
        for event in events.sorted(by: { $0.tick < $1.tick }) {
            track += vlq(event.tick - last) + event.bytes
            last = event.tick
        }
        track += vlq(endTick - last) + [0xFF, 0x2F, 0x00]
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    private func vlq(_ value: Int) -> [UInt8] {
        var out = [UInt8(value & 0x7F)]
        var v = value >> 7
        while v > 0 {
            out.insert(UInt8(0x80 | (v & 0x7F)), at: 0)
            v >>= 7
        }
        return out
    }

    private func readLeft(_ path: String) throws -> (samples: [Float], rate: Int) {
        let reader = try SoundFileReader(path: path)
        var interleaved = [Float](repeating: 0, count: Int(reader.frameCount) * reader.channelCount)
        let n = try interleaved.withUnsafeMutableBufferPointer { (b) throws(AudioFileError) in
            try reader.read(into: b.baseAddress!, frames: Int(reader.frameCount))
        }
        return (stride(from: 0, to: n * reader.channelCount, by: reader.channelCount).map { interleaved[$0] }, reader.sampleRate)
    }

    /// Where the shipped kit's hard kick starts sounding inside its own sample.
    private func kickOnset() throws -> Int {
        let kit = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds/kit/kick-hard.wav").path
        let (samples, _) = try readLeft(kit)
        return try XCTUnwrap(samples.firstIndex { $0 != 0 })
    }

    func testADrumHitAtOneSecondStartsOnFrame48000ForEveryBlockSize() throws {
        let song = try writeMIDI("kick.mid", [(960, [0x99, 36, 127]), (1000, [0x89, 36, 0])], endTick: 1440)
        let onset = try kickOnset()
        var outputs: [[Float]] = []
        for period in ["64", "333", "1024"] {
            let out = path("kick-\(period).wav")
            let r = try runBusker(["render", song, "-o", out, "--soundfont", smallFont, "--period", period, "--format", "f32", "--no-progress"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let (samples, rate) = try readLeft(out)
            XCTAssertEqual(rate, 48000)
            let first = try XCTUnwrap(samples.firstIndex { $0 != 0 }, "the kick sounds")
            XCTAssertEqual(first, 48000 + onset, accuracy: 1, "period \(period)")
            outputs.append(samples)
        }
        // The same song renders to the same samples whatever the block size.
        for other in outputs.dropFirst() {
            XCTAssertEqual(other.count, outputs[0].count)
            let worst = zip(other, outputs[0]).map { abs($0 - $1) }.max() ?? 0
            XCTAssertLessThan(worst, 1e-4)
        }
    }

    func testAPianoA4RendersAt440Hertz() throws {
        let song = try writeMIDI("a4.mid", [(0, [0xC0, 0]), (0, [0x90, 69, 100]), (1920, [0x80, 69, 0])], endTick: 1920)
        let out = path("a4.wav")
        let r = try runBusker(["render", song, "-o", out, "--soundfont", smallFont, "--no-drums", "--no-progress"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("busker render:"), r.stdout)
        let (samples, rate) = try readLeft(out)
        let window = Array(samples[24_000..<72_000])
        let peak = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: window, among: stride(from: 400.0, through: 480, by: 1),
                                                                 sampleRate: Double(rate)))
        XCTAssertEqual(peak, 440, accuracy: 4.4, "within 1 %")
    }

    /// Where sounds start: the first sample above −60 dBFS after at least
    /// 100 ms below it (each kick here decays well within its 0.5 s spacing).
    private func onsets(_ samples: [Float], rate: Int) -> [Int] {
        let threshold: Float = 0.001, quiet = rate / 10
        var found: [Int] = [], lastLoud = -quiet
        for (index, sample) in samples.enumerated() where abs(sample) > threshold {
            if index - lastLoud >= quiet { found.append(index) }
            lastLoud = index
        }
        return found
    }

    /// Each kind of damage found in MIDI files in the wild, made from a valid
    /// song of three kicks: `busker render` plays every kick where the valid
    /// song has it and says in one warning line what it skipped.
    func testDamagedFilesRenderEveryNoteAndWarnInOneLine() throws {
        // Format 0, 480 ticks per quarter at 120 BPM (960 ticks a second): kicks at 0.5, 1 and 1.5 s,
        // their note-offs as note-ons at velocity 0 under running status.
        let tempo: [UInt8] = [0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        let kick: [UInt8] = [0x99, 36, 127], release: [UInt8] = [36, 0]
        func file(format: Int = 0, _ tracks: [[(Int, [UInt8])]]) -> [UInt8] {
            var bytes: [UInt8] = Array("MThd".utf8)
            bytes += [0, 0, 0, 6, 0, UInt8(format), 0, UInt8(tracks.count), 0x01, 0xE0]
            for events in tracks {
                var body: [UInt8] = []
                for (delta, event) in events { body += vlq(delta) + event }
                body += [0x00, 0xFF, 0x2F, 0x00]
                let length: [UInt8] = withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init)
                bytes += Array("MTrk".utf8) + length + body
            }
            return bytes
        }
        let end: (Int, [UInt8]) = (480, [0xFF, 0x01, 0x00])  // an empty text event: the song ends at 2 s
        let validEvents: [(Int, [UInt8])] = [(0, tempo), (480, kick), (40, release), (440, kick), (40, release), (440, kick), (40, release), end]
        let valid = file([validEvents])
        // Clock, song position, active sensing and tune request bytes, with and without delta times of their own.
        let stray: [(Int, [UInt8])] = [(0, tempo), (480, kick), (0, [0xF8]), (40, release), (0, [0xF2, 0x00, 0x10]),
                                       (440, [0xFE] + kick), (40, release), (440, kick), (40, [0xF6] + release), end]
        // The second kick after a text event, the third after a SysEx, both under running status.
        let runningStatus: [(Int, [UInt8])] = [(0, tempo), (480, kick), (40, release), (440, [0xFF, 0x01, 0x01, 0x41]), (0, [36, 127]),
                                               (40, release), (440, [0xF0, 0x01, 0xF7]), (0, [36, 127]), (40, release), end]
        let first: [(Int, [UInt8])] = [(0, tempo), (480, kick), (40, release)]
        let second: [(Int, [UInt8])] = [(960, kick), (40, release), (440, kick), (40, release), end]
        var damaged: [(name: String, bytes: [UInt8], says: String)] = []
        damaged.append(("stray", file([stray]), "4 stray status bytes skipped in track 1"))
        damaged.append(("running-status", file([runningStatus]), "running status carried across a meta or SysEx event 2 times"))
        damaged.append(("truncated", Array(valid.dropLast()), "track 1 ends 1 byte short"))
        damaged.append(("two-tracks", file([first, second]), "format 0 header with 2 tracks read as format 1"))
        damaged.append(("trailing", valid + [0x00, 0x00, 0x1A], "3 bytes after the last chunk ignored"))
        func render(_ name: String, _ bytes: [UInt8]) throws -> (onsets: [Int], run: BuskerRun) {
            let song = path("\(name).mid"), out = path("\(name).wav")
            try Data(bytes).write(to: URL(fileURLWithPath: song))
            let r = try runBusker(["render", song, "-o", out, "--soundfont", smallFont, "--reverb", "0", "--format", "f32", "--no-progress"])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let (samples, rate) = try readLeft(out)
            return (onsets(samples, rate: rate), r)
        }
        let reference = try render("valid", valid)
        XCTAssertEqual(reference.run.stderr, "", "a sound file gives no warning")
        XCTAssertEqual(reference.onsets.count, 3)
        for (onset, frame) in zip(reference.onsets, [24000, 48000, 72000]) {
            // Within 5 ms of its frame: the threshold is crossed early in the kick's attack.
            XCTAssertEqual(onset, frame + 120, accuracy: 120)
        }
        for (name, bytes, says) in damaged {
            let (onsets, r) = try render(name, bytes)
            XCTAssertEqual(onsets, reference.onsets, "\(name): every kick where the valid song has it")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(name): one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("busker render: warning: \(path("\(name).mid")): recovered from damage: "), r.stderr)
            XCTAssertTrue(r.stderr.contains(says), "\(name): \(r.stderr)")
        }
    }

    /// `busker play` reads the song before any device opens: a damaged song gives
    /// its warning line once, before the device's own refusal here.
    func testPlayWarnsAboutADamagedSongOnceBeforeTheDeviceOpens() throws {
        let valid = try writeMIDI("valid.mid", [(480, [0x99, 36, 127]), (520, [0x89, 36, 0])], endTick: 960)
        let damaged = path("damaged.mid")
        try Data(try Data(contentsOf: URL(fileURLWithPath: valid)).dropLast()).write(to: URL(fileURLWithPath: damaged))
        let r = try runBusker(["play", damaged, "--no-tui", "--midi", "none", "--output", "no_such_device", "--soundfont", smallFont])
        XCTAssertEqual(r.status, 1)
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, r.stderr)
        XCTAssertEqual(lines.first.map(String.init), "busker play: warning: \(damaged): recovered from damage: track 1 ends 1 byte short (the file ends at byte \(try Data(contentsOf: URL(fileURLWithPath: damaged)).count))")
        XCTAssertTrue(lines.last?.contains("no_such_device") ?? false, r.stderr)
    }

    func testBadInputsAreOneLineErrors() throws {
        let garbage = path("garbage.mid")
        try Data((0..<200).map { UInt8(($0 * 37) & 0xFF) }).write(to: URL(fileURLWithPath: garbage))
        assertOneLineError(try runBusker(["render", garbage, "-o", path("x.wav"), "--soundfont", smallFont]), status: 1, mentioning: "garbage.mid")
        let empty = path("empty.mid")
        try Data().write(to: URL(fileURLWithPath: empty))
        assertOneLineError(try runBusker(["render", empty, "-o", path("x.wav"), "--soundfont", smallFont]), status: 1, mentioning: "empty.mid: byte 0: not a Standard MIDI File")
        let song = try writeMIDI("ok.mid", [(0, [0x90, 60, 100])], endTick: 480)
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", path("missing.sf2")]), status: 1, mentioning: "missing.sf2")
        assertOneLineError(try runBusker(["render", song]), status: 2, mentioning: "-o")
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--tempo", "20"]), status: 2, mentioning: "--tempo")
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "theremin"]),
                           status: 2, mentioning: "theremin")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")), "no partial output is left behind")
    }
}
