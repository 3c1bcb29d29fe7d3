import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// Hostile input, end to end: crafted kits, presets, WAVs and SoundFonts
/// given to the built `busker`. None may crash it, hang it, or make it play
/// silence with exit 0; each is refused or warned about in one line.
final class HostileInputCLITests: XCTestCase {
    private var work: URL!
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws { work = try makeWorkFolder("busker-hostile") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// Runs busker, killing it after `seconds`: a hang fails the test instead of stopping the suite.
    private func run(_ args: [String], environment: [String: String]? = nil, seconds: Double = 30,
                     file: StaticString = #filePath, line: UInt = #line) throws -> BuskerRun {
        let (process, out, err) = try launchBusker(args, environment: environment)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            XCTFail("busker \(args.joined(separator: " ")) still ran after \(seconds) s", file: file, line: line)
        }
        process.waitUntilExit()
        return BuskerRun(status: process.terminationStatus, stdout: out.text, stderr: err.text)
    }

    private func write(_ text: String, to name: String) throws -> String {
        let file = path(name)
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    private func makeFIFO(_ name: String) -> String {
        let file = path(name)
        XCTAssertEqual(mkfifo(file, 0o644), 0)
        return file
    }

    /// A 16-bit mono WAV of `frames` frames of a 440 Hz tone at 48 kHz, its data size `declared` (the real one when nil).
    private func toneWAV(_ name: String, frames: Int = 4800, declared: UInt32? = nil) throws -> String {
        var audio: [UInt8] = []
        for i in 0..<frames {
            let value = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / 48000))
            audio += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
        }
        var bytes = Array("RIFF".utf8) + le32(UInt32(36 + audio.count)) + Array("WAVE".utf8)
        bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(48000) + le32(96000) + le16(2) + le16(16)
        bytes += Array("data".utf8) + le32(declared ?? UInt32(audio.count)) + audio
        try FileManager.default.createDirectory(atPath: (path(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func le16(_ x: UInt16) -> [UInt8] { [UInt8(x & 0xFF), UInt8(x >> 8)] }
    private func le32(_ x: UInt32) -> [UInt8] { (0..<4).map { UInt8((x >> (8 * $0)) & 0xFF) } }
    private func le64(_ x: UInt64) -> [UInt8] { (0..<8).map { UInt8((x >> (8 * UInt64($0))) & 0xFF) } }

    /// A format-0 file at 120 BPM playing `notes` on channel `channel` (0-based), half a second apart.
    private func song(_ notes: [UInt8], channel: UInt8 = 9) throws -> String {
        var track: [UInt8] = []
        for (index, note) in notes.enumerated() {
            track += (index == 0 ? [0x00] : [0x83, 0x60]) + [0x90 | channel, note, 120]
        }
        track += [0x83, 0x60, 0xFF, 0x2F, 0x00]
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        try Data(bytes).write(to: URL(fileURLWithPath: path("song.mid")))
        return path("song.mid")
    }

    private func peak(_ file: String) throws -> Float {
        try SoundFileReader(path: file).readAll().map(abs).max() ?? 0
    }

    // MARK: Crashes

    /// A drumkit.xml nested 40,000 deep is refused in one line, named or installed.
    func testDeeplyNestedDrumKitIsRefusedNotACrash() throws {
        let depth = 40_000
        let xml = "<drumkit_info>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth) + "</drumkit_info>"
        let kit = try write(xml, to: "home/.hydrogen/data/drumkits/Deep/drumkit.xml")
        let folder = (kit as NSString).deletingLastPathComponent
        let named = try run(["kits", folder])
        assertOneLineError(named, status: 1, mentioning: "nest more than 64 deep")
        XCTAssertTrue(named.stderr.contains(kit), named.stderr)

        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = path("home")
        environment["XDG_DATA_HOME"] = path("home/.local/share")
        let listed = try run(["kits"], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("  Deep: unreadable (busker kits 'Deep' says why)"), listed.stdout)
    }

    /// An RF64 whose ds64 sizes are 2^63: repaired from the file's size, audio untouched.
    func testRepairOfAnRF64WithAbsurdDS64SizesDoesNotTrap() throws {
        let audio = (0..<2000).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        let huge = UInt64(1) << 63
        var bytes = Array("RF64".utf8) + le32(0xFFFF_FFFF) + Array("WAVE".utf8)
        bytes += Array("ds64".utf8) + le32(28) + le64(huge) + le64(huge) + le64(huge) + le32(0)
        bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(48000) + le32(96000) + le16(2) + le16(16)
        let dataStart = bytes.count + 8
        bytes += Array("data".utf8) + le32(0xFFFF_FFFF) + audio
        let file = path("huge.wav")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let r = try run(["repair", file])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains(": 1000 frames"), r.stdout)
        let after = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        XCTAssertEqual(after.count, bytes.count, "no byte of audio cut")
        XCTAssertEqual(Array(after[dataStart...]), audio, "the audio is as it was")
        XCTAssertEqual(Array(after[20..<44]), le64(UInt64(bytes.count - 8)) + le64(2000) + le64(1000), "ds64 sizes from the file")
        XCTAssertEqual(try SoundFileReader(path: file).frameCount, 1000)
    }

    /// Headers repair does not understand are refused, the file byte for byte as it was.
    func testRepairRefusesHeadersThatContradictThemselves() throws {
        let audio = [UInt8](repeating: 0x11, count: 6001)
        func wav(_ head: String, ds64: [UInt8], channels: UInt16, blockAlign: UInt16, bits: UInt16) -> [UInt8] {
            var bytes = Array(head.utf8) + le32(0xFFFF_FFFF) + Array("WAVE".utf8) + ds64
            bytes += Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(48000) + le32(48000 * UInt32(blockAlign))
            bytes += le16(blockAlign) + le16(bits)
            return bytes + Array("data".utf8) + le32(0) + audio
        }
        let shortDS64 = Array("ds64".utf8) + le32(3) + [1, 2, 3, 0]
        let cases: [(name: String, bytes: [UInt8], words: String)] = [
            ("short-ds64.wav", wav("RF64", ds64: shortDS64, channels: 1, blockAlign: 2, bits: 16), "ds64 chunk holds 3 bytes"),
            ("channels.wav", wav("RIFF", ds64: [], channels: 65535, blockAlign: 65535, bits: 16), "65535 channels"),
            ("bits.wav", wav("RIFF", ds64: [], channels: 1, blockAlign: 65535, bits: 65535), "65535-bit"),
            ("align.wav", wav("RIFF", ds64: [], channels: 1, blockAlign: 3, bits: 16), "block align 3 for 1 channel of 16 bits"),
        ]
        for item in cases {
            let file = path(item.name)
            try Data(item.bytes).write(to: URL(fileURLWithPath: file))
            let r = try run(["repair", file])
            assertOneLineError(r, status: 1, mentioning: item.words)
            XCTAssertEqual(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))), item.bytes, "\(item.name) untouched")
        }
    }

    // MARK: Hangs and limits

    /// A FIFO as a kit sample (Busker's kit.json, a Hydrogen kit), as the kit file itself, as a SoundFont or as
    /// NAME.preset is refused, not waited on.
    func testFIFOsAreRefusedAsKitSamplesAndPresets() throws {
        try FileManager.default.createDirectory(atPath: path("kit"), withIntermediateDirectories: true)
        _ = makeFIFO("kit/kick.wav")
        _ = try write(#"{"name": "Pipe", "pads": [{"note": 36, "name": "Kick", "layers": [{"velocity": [1, 127], "samples": ["kick.wav"]}]}]}"#,
                      to: "kit/kit.json")
        let drums = try song([36])
        let manifest = try run(["render", drums, "-o", path("a.wav"), "--soundfont", smallFont, "--kit", path("kit"), "--no-progress"])
        assertOneLineError(manifest, status: 1, mentioning: "is not a regular file (a FIFO)")

        _ = try write("<drumkit_info><name>Pipe</name><instrumentList><instrument><name>Kick</name>"
                      + "<layer><filename>kick.wav</filename></layer></instrument></instrumentList></drumkit_info>", to: "kit/drumkit.xml")
        let hydrogen = try run(["render", drums, "-o", path("b.wav"), "--soundfont", smallFont, "--kit", path("kit"), "--no-progress"])
        assertOneLineError(hydrogen, status: 1, mentioning: "is not a regular file (a FIFO)")

        // The kit files themselves.
        try FileManager.default.createDirectory(atPath: path("pipes"), withIntermediateDirectories: true)
        _ = makeFIFO("pipes/drumkit.xml")
        assertOneLineError(try run(["kits", path("pipes")]), status: 1, mentioning: "drumkit.xml': is a FIFO, not a file")
        try FileManager.default.removeItem(atPath: path("pipes/drumkit.xml"))
        _ = makeFIFO("pipes/kit.json")
        assertOneLineError(try run(["kits", path("pipes/kit.json")]), status: 1, mentioning: "kit.json': cannot read: is a FIFO, not a file")

        // A SoundFont.
        let font = makeFIFO("pipes/font.sf2")
        assertOneLineError(try run(["render", drums, "-o", path("d.wav"), "--soundfont", font, "--no-progress"]),
                           status: 1, mentioning: "font.sf2: cannot read it: is a FIFO, not a file")
        // A song or a SoundFont given in place (their kind is read from their first bytes).
        assertOneLineError(try run(["render", drums, font, "-o", path("e.wav"), "--no-progress"]),
                           status: 2, mentioning: "font.sf2' is a FIFO, not a file")
        let songPipe = makeFIFO("pipes/song.mid")
        assertOneLineError(try run(["render", songPipe, "-o", path("f.wav"), "--no-progress"]),
                           status: 2, mentioning: "song.mid' is a FIFO, not a file")

        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = path("config")
        try FileManager.default.createDirectory(atPath: path("config/busker"), withIntermediateDirectories: true)
        _ = makeFIFO("config/busker/pipe.preset")
        let input = try toneWAV("in.wav")
        let preset = try run(["live", "--preset", "pipe", "--input", "file:" + input, "--output", "file:" + path("c.wav")],
                             environment: environment)
        assertOneLineError(preset, status: 2, mentioning: "pipe.preset: is a FIFO, not a file")
    }

    /// A kit sample named with ../ out of the kit's folder is refused, though the file exists.
    func testKitSamplesMustLieInTheKitsFolder() throws {
        _ = try toneWAV("outside.wav")
        _ = try write(#"{"name": "Escape", "pads": [{"note": 36, "name": "Kick", "layers": [{"velocity": [1, 127], "samples": ["../outside.wav"]}]}]}"#,
                      to: "kit/kit.json")
        let r = try run(["render", try song([36]), "-o", path("a.wav"), "--soundfont", smallFont, "--kit", path("kit"), "--no-progress"])
        assertOneLineError(r, status: 1, mentioning: "lies outside the kit's folder")
    }

    /// A preset with a byte-order mark loads; a huge value is quoted cut short,
    /// control characters escaped; the size limit is named.
    func testPresetsTakeABOMAndNeverEchoAHugeValueOrAnEscape() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = path("config")
        let input = try toneWAV("in.wav")
        func live(_ name: String) throws -> BuskerRun {
            try run(["live", "--preset", name, "--input", "file:" + input, "--output", "file:" + path("\(name).wav")], environment: environment)
        }
        _ = try write("\u{FEFF}[bus]\nvolume = 0.3\n", to: "config/busker/bom.preset")
        let bom = try live("bom")
        XCTAssertEqual(bom.status, 0, bom.stderr)
        XCTAssertGreaterThan(try peak(path("bom.wav")), 0.01)

        _ = try write("[bus]\nvolume = " + String(repeating: "9", count: 500_000) + "\n", to: "config/busker/huge.preset")
        let huge = try live("huge")
        assertOneLineError(huge, status: 2, mentioning: "…")
        XCTAssertLessThan(huge.stderr.count, 400, huge.stderr)

        _ = try write("[bus]\nvolume = \u{1B}]0;owned\u{07}\u{1B}[2J\n", to: "config/busker/escape.preset")
        let escape = try live("escape")
        assertOneLineError(escape, status: 2, mentioning: "\\x1b]0;owned\\x07\\x1b[2J")
        XCTAssertFalse(escape.stderr.contains("\u{1B}"), "no raw ESC reaches the terminal")

        _ = try write("[bus]\n" + String(repeating: "# padding\n", count: 110_000), to: "config/busker/big.preset")
        assertOneLineError(try live("big"), status: 2, mentioning: "is over 1 MiB, the most a preset may hold")
    }

    // MARK: Silent outputs

    /// Hydrogen levels of 1e308, 1e30 and -1 (outside 0…5) play at the default level, each named in a warning.
    func testAbsurdHydrogenLevelsAreReplacedAndSaid() throws {
        _ = try toneWAV("kit/tone.wav", frames: 24000)
        let levels = [("<volume>1e308</volume>", "<gain>1</gain>"), ("<volume>-1</volume>", "<gain>1</gain>"),
                      ("<volume>1</volume>", "<gain>1e30</gain>")]
        for (index, (volume, gain)) in levels.enumerated() {
            _ = try write("<drumkit_info><name>Loud</name><instrumentList><instrument><name>Tone</name>\(volume)"
                          + "<layer><filename>tone.wav</filename>\(gain)</layer></instrument></instrumentList></drumkit_info>",
                          to: "kit/drumkit.xml")
            let out = path("loud\(index).wav")
            let r = try run(["render", try song([36, 60], channel: 9), "-o", out, "--soundfont", smallFont, "--kit", path("kit"), "--no-progress"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let field = volume.contains("<volume>1<") ? "<gain> '1e30'" : (volume.contains("-1") ? "<volume> '-1'" : "<volume> '1e308'")
            XCTAssertTrue(r.stderr.contains("drumkit.xml line 1: \(field) is outside 0…5; used 1"), r.stderr)
            let level = try peak(out)
            XCTAssertGreaterThan(level, 0.05, "\(volume) \(gain): the kit sounds")
            XCTAssertTrue(level.isFinite && level <= 1, "\(level)")
        }
    }

    /// A WAV whose header declares no data but holds a tone: live plays what the header says and says how to recover the rest.
    func testLiveWarnsOfAudioTheHeaderLeavesOut() throws {
        let input = try toneWAV("crashed.wav", frames: 48000, declared: 0)
        let r = try run(["live", "--input", "file:" + input, "--output", "file:" + path("out.wav")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("warning: \(input): header says 0 frames, the file holds 96000 more bytes: busker repair \(input) recovers them"),
                      r.stderr)
        XCTAssertEqual(try runBusker(["repair", input]).status, 0)
        let again = try run(["live", "--input", "file:" + input, "--output", "file:" + path("out.wav")])
        XCTAssertEqual(again.stderr, "", "a repaired file plays without a warning")
        XCTAssertGreaterThan(try peak(path("out.wav")), 0.05)
    }

    /// A SoundFont whose sample headers FluidSynth would play as silence is named, with the samples and presets.
    func testSoundFontSamplesThatWouldBeSilentAreNamed() throws {
        guard FileManager.default.fileExists(atPath: smallFont) else { throw XCTSkip("no \(smallFont)") }
        var font = try [UInt8](Data(contentsOf: URL(fileURLWithPath: smallFont)))
        let shdr = try XCTUnwrap(Self.find(Array("shdr".utf8), in: font))
        let records = Int(font[shdr + 4]) | Int(font[shdr + 5]) << 8 | Int(font[shdr + 6]) << 16
        // Every sample header but the terminal one: end 0.
        for record in 0..<(records / 46 - 1) {
            let end = shdr + 8 + record * 46 + 24
            font.replaceSubrange(end..<(end + 4), with: [0, 0, 0, 0])
        }
        let broken = path("broken.sf2")
        try Data(font).write(to: URL(fileURLWithPath: broken))
        let r = try run(["render", try song([60], channel: 0), "-o", path("a.wav"), "--soundfont", broken, "--no-progress", "--no-drums"])
        let warning = r.stderr.split(separator: "\n").first { $0.contains("SoundFont '\(broken)'") }
        XCTAssertNotNil(warning, r.stderr)
        XCTAssertTrue(warning?.contains("FluidSynth plays as silence (") == true, r.stderr)
        XCTAssertTrue(warning?.contains("end 0 is not after start") == true, r.stderr)
        XCTAssertTrue(warning?.contains("presets that play nothing: ") == true, r.stderr)

        let listed = try run(["instruments", broken])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.hasPrefix("busker instruments: warning: SoundFont '\(broken)': "), listed.stderr)

        let clean = try run(["render", try song([60], channel: 0), "-o", path("b.wav"), "--soundfont", smallFont, "--no-progress", "--no-drums"])
        XCTAssertEqual(clean.status, 0, clean.stderr)
        XCTAssertFalse(clean.stderr.contains("SoundFont"), "a sound font is not named: \(clean.stderr)")
    }

    // MARK: The fuzz script

    /// `Tools/fuzz-inputs --quick` on repair and presets (seconds): nothing crashes, hangs, plays silence or damages a file.
    func testQuickFuzzOfRepairAndPresetsFindsNothing() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/fuzz-inputs").path
        var environment = ProcessInfo.processInfo.environment
        environment["BUSKER"] = buskerPath
        let r = try runProgram("/usr/bin/env", ["python3", script, "--quick", "--classes", "repair,preset", "--keep", path("fuzz")],
                               environment: environment)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let rows = r.stdout.split(separator: "\n").filter { $0.hasPrefix("repair ") || $0.hasPrefix("preset ") }
        XCTAssertEqual(rows.count, 2, r.stdout)
        for row in rows {
            let counts = row.split(separator: " ").dropFirst().compactMap { Int($0) }
            // runs ok warned refused crash hang silent violation seconds
            XCTAssertEqual(counts.count, 9, String(row))
            XCTAssertEqual(counts[0], row.hasPrefix("repair") ? 40 : 10, String(row))
            XCTAssertEqual(Array(counts[4...7]), [0, 0, 0, 0], String(row))
        }
    }

    /// `Tools/fuzz-inputs --quick --classes osc --seed 25` (3000 datagrams, the OSC class seeded 31):
    /// a loud, clipped signal played into the virtual card's capture while
    /// fuzzed OSC moves the gains and volume, recorded as a take. Nothing
    /// crashes or hangs, and the take's summary says a true peak of at most
    /// −1.0 dBTP (the limiter's promise) for a take that heard the signal.
    func testQuickFuzzOfOSCKeepsTheTakeAtMostMinus1dBTP() throws {
        for tool in ["/usr/bin/jackd", "/usr/bin/jack-play"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is not installed")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tools/fuzz-inputs").path
        var environment = ProcessInfo.processInfo.environment
        environment["BUSKER"] = buskerPath
        let r = try runProgram("/usr/bin/env", ["python3", script, "--quick", "--classes", "osc", "--seed", "25", "--keep", path("fuzz")],
                               environment: environment)
        print(r.stdout)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let row = r.stdout.split(separator: "\n").first { $0.hasPrefix("osc ") }.map(String.init) ?? ""
        let counts = row.split(separator: " ").dropFirst().compactMap { Int($0) }
        // runs ok warned refused crash hang silent violation seconds
        XCTAssertEqual(counts.count, 9, row)
        XCTAssertEqual(counts.first, 1, row)
        XCTAssertEqual(Array(counts.dropFirst(4).prefix(4)), [0, 0, 0, 0], row)
        let summary = r.stdout.split(separator: "\n").first { $0.hasPrefix("osc: 3000 datagrams") }.map(String.init) ?? ""
        let figures = summary.firstMatch(of: /take (-?[0-9.]+) LUFS integrated, true peak (-?[0-9.]+) dBTP/)
        let lufs = try XCTUnwrap(figures.flatMap { Double($0.1) }, summary)
        let truePeak = try XCTUnwrap(figures.flatMap { Double($0.2) }, summary)
        XCTAssertLessThanOrEqual(truePeak, -1.0, summary)
        XCTAssertGreaterThan(lufs, -30, "the loud signal never reached the take: \(summary)")
        // Noise 3.5 dB into clipping, +12 dB of gain, volume 1: the output must have reached the
        // limiter's ceiling at some point, or the bound above was never put to the test.
        XCTAssertGreaterThan(truePeak, -3.0, "the limiter was never driven: \(summary)")
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).last { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
