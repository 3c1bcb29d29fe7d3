import Foundation
import RenderTestSupport
import XCTest

/// Every message says what is so: a text file named as a song is called
/// text, a take on a capture device talks of that device alone, an option a
/// command does not take is neither offered nor blamed on another, a usage
/// error prints only itself (no start-up line first), a typo gets "did you
/// mean", an instrument is found by part of its name. Each runs the built
/// `busker` and checks the words and the exit status.
final class TrueMessagesCLITests: XCTestCase {
    private var work: URL!
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws { work = try makeWorkFolder("busker-messages") }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    /// A one-note song (A4 for a quarter second at 120 bpm), a Standard MIDI
    /// File with no program change: the instrument asked for plays it.
    private func writeSong(_ name: String) throws -> String {
        let track: [UInt8] = [0x00, 0x90, 69, 100, 0x81, 0x70, 0x80, 69, 0, 0x00, 0xFF, 0x2F, 0x00]
        let bytes = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
            + Array("MTrk".utf8) + withUnsafeBytes(of: UInt32(track.count).bigEndian, Array.init) + track
        let p = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    /// A stereo float WAV of `frames` frames of a quiet tone.
    private func writeWAV(_ name: String, frames: Int = 4800) throws -> String {
        var data = Data()
        func add<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); add(UInt32(36 + frames * 8)); data.append(contentsOf: Array("WAVE".utf8))
        data.append(contentsOf: Array("fmt ".utf8)); add(UInt32(16)); add(UInt16(3)); add(UInt16(2)); add(UInt32(48000))
        add(UInt32(48000 * 8)); add(UInt16(8)); add(UInt16(32))
        data.append(contentsOf: Array("data".utf8)); add(UInt32(frames * 8))
        for i in 0..<frames {
            let sample = Float(0.1 * sin(2 * Double.pi * 440 * Double(i) / 48000))
            add(sample.bitPattern); add(sample.bitPattern)
        }
        let p = path(name)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    func testAFileThatIsNeitherSongNorSoundFontIsCalledWhatItIs() throws {
        let song = try writeSong("song.mid")
        let fake = path("fake.wav")
        try "this is not audio\n".write(toFile: fake, atomically: true, encoding: .utf8)
        let r = try runBusker(["render", song, fake, "-o", path("x.wav"), "--soundfont", smallFont])
        assertOneLineError(r, status: 2, mentioning: "'\(fake)' is neither a MIDI file nor a SoundFont: it is text")
        XCTAssertFalse(r.stderr.contains("both MIDI files"), r.stderr)
        // Either order; and a WAV file is called a WAV file.
        let wav = try writeWAV("real.wav")
        assertOneLineError(try runBusker(["render", wav, song, "-o", path("x.wav")]), status: 2,
                           mentioning: "'\(wav)' is neither a MIDI file nor a SoundFont: it is a WAV sound file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
        // Two real songs are still two songs.
        let other = try writeSong("other.mid")
        assertOneLineError(try runBusker(["render", song, other, "-o", path("x.wav")]), status: 2, mentioning: "are both MIDI files")
    }

    func testStemsOnFilesAreBlamedOnStemsNotOnRecord() throws {
        let input = try writeWAV("in.wav")
        let r = try runBusker(["live", "--input", "file:" + input, "--output", "file:" + path("y.wav"), "--stems"])
        assertOneLineError(r, status: 2, mentioning: "--stems is for takes on devices")
        XCTAssertFalse(r.stderr.contains("--record is for"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        let record = try runBusker(["live", "--input", "file:" + input, "--output", "file:" + path("y.wav"), "--record"])
        assertOneLineError(record, status: 2, mentioning: "--record is for devices")
    }

    func testPlayNeitherOffersNorTakesStemsAndLiveDoes() throws {
        let playHelp = try runBusker(["play", "-h"])
        XCTAssertEqual(playHelp.status, 0)
        XCTAssertFalse(playHelp.stdout.contains("--stems"), "busker play -h offers no --stems")
        XCTAssertTrue(try runBusker(["live", "-h"]).stdout.contains("--stems"))
        let r = try runBusker(["play", "--stems", "--record", path("t.wav")])
        assertOneLineError(r, status: 2, mentioning: "unknown option '--stems'")
        XCTAssertEqual(r.stdout, "", "nothing before the usage error")
        let completion = try runBusker(["help", "--completion"])
        let playOptions = completion.stdout.split(separator: "\n").first { $0.contains("play) words=") }
        let line = try XCTUnwrap(playOptions, "the completion lists play's options")
        XCTAssertTrue(line.contains("--record"), String(line))
        XCTAssertFalse(line.contains("--stems"), String(line))
        let liveOptions = completion.stdout.split(separator: "\n").first { $0.contains("live) words=") }
        XCTAssertTrue(try XCTUnwrap(liveOptions).contains("--stems"))
    }

    func testUsageAndFileErrorsPrintOnlyThemselves() throws {
        let cases: [(arguments: [String], status: Int32, text: String)] = [
            (["play", path("nosuch.mid")], 1, "nosuch.mid"),
            (["play", "--volum", "0.2"], 2, "unknown option '--volum' (did you mean --volume?)"),
            (["play", "--instrument", "kazoo", "--soundfont", smallFont], 2, "unknown instrument 'kazoo'"),
            (["play", "--soundfont", path("nosuch.sf2")], 1, "nosuch.sf2"),
            (["live", "--volum", "0.2"], 2, "unknown option '--volum' (did you mean --volume?)"),
            (["record", "--duraton", "2", path("t.wav")], 2, "unknown option '--duraton' (did you mean --duration?)"),
        ]
        for (arguments, status, text) in cases {
            let r = try runBusker(arguments)
            assertOneLineError(r, status: status, mentioning: text)
            XCTAssertEqual(r.stdout, "", "busker \(arguments.joined(separator: " ")) prints nothing before its error")
        }
        // A take that exists (no --force) is refused before the start-up line too.
        let existing = path("take.wav")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: existing))
        let take = try runBusker(["record", "-D", "null", "-d", "1", existing])
        XCTAssertEqual(take.status, 1, take.stderr)
        XCTAssertEqual(take.stdout, "", "no start-up line before a refused take")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: existing)), Data("keep".utf8))
    }

    func testDidYouMeanFindsTheClosestDeclaredOption() throws {
        let cases: [(arguments: [String], hint: String)] = [
            (["live", "--voluem", "0.2"], "(did you mean --volume?)"),
            (["live", "--reverbb", "20"], "(did you mean --reverb?)"),
            (["render", "--temp", "2"], "(did you mean --tempo?)"),
            (["live", "--prest", "gig"], "(did you mean --preset?)"),
        ]
        for (arguments, hint) in cases {
            assertOneLineError(try runBusker(arguments), status: 2, mentioning: "unknown option '\(arguments[1])' \(hint)")
        }
        // Nothing close: no guess.
        let far = try runBusker(["live", "--loudness", "11"])
        assertOneLineError(far, status: 2, mentioning: "unknown option '--loudness'")
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)
    }

    func testAnInstrumentIsFoundByPartOfItsNameAndAnAmbiguousOneListsTheCandidates() throws {
        let song = try writeSong("song.mid")
        let ambiguous = try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "Acoustic Guitar"])
        assertOneLineError(ambiguous, status: 2,
                           mentioning: "instrument 'Acoustic Guitar' could be any of 2: \"Acoustic Guitar (nylon)\", \"Acoustic Guitar (steel)\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
        // A unique start or part of a name plays that program: the same bytes as asking for it by number.
        // TimGM6mb's own name for program 23 (General MIDI's "Tango Accordion") is "Bandoneon".
        for (given, program) in [("acoustic guitar (n", 24), ("nylon", 24), ("Church", 19), ("bandoneon", 23)] {
            let byName = path("name-\(program)-\(given.count).wav"), byNumber = path("program-\(program).wav")
            let named = try runBusker(["render", song, "-o", byName, "--soundfont", smallFont, "--instrument", given, "--no-progress"])
            XCTAssertEqual(named.status, 0, "\(given): \(named.stderr)")
            let numbered = try runBusker(["render", song, "-o", byNumber, "--soundfont", smallFont, "--program", String(program), "--no-progress"])
            XCTAssertEqual(numbered.status, 0, numbered.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: byName)), try Data(contentsOf: URL(fileURLWithPath: byNumber)),
                           "--instrument \(given) is program \(program)")
        }
        // The programs differ (the comparison can fail).
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: path("program-24.wav"))),
                          try Data(contentsOf: URL(fileURLWithPath: path("program-19.wav"))))
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "kazoo"]), status: 2,
                           mentioning: "unknown instrument 'kazoo'")
        // Neither General MIDI nor the font has it by number either: --program disagreeing with a font name is refused.
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "bandoneon",
                                          "--program", "5"]), status: 2, mentioning: "disagree")
    }

    /// What the instruments' chain refuses reaches the user in the command
    /// line's words: the option that asked, and exit status 2 for a request
    /// that cannot be, 1 for a file that cannot be read.
    func testAnInstrumentOrKitTheChainRefusesIsReportedByTheOptionThatAskedForIt() throws {
        let song = try writeSong("song.mid")
        let bank = try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "bandoneon", "--bank", "5"])
        assertOneLineError(bank, status: 2, mentioning: "--instrument bandoneon is bank 0 and --bank says 5: give one of them")
        let unknown = try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--instrument", "kazoo"])
        assertOneLineError(unknown, status: 2, mentioning: "unknown instrument 'kazoo'")
        XCTAssertTrue(unknown.stderr.hasSuffix("; busker instruments lists the SoundFont's own names\n"), unknown.stderr)
        let kit = try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", smallFont, "--kit", "no-such-kit"])
        assertOneLineError(kit, status: 2, mentioning: "no drum kit 'no-such-kit'")
        let font = path("broken.sf2")
        try Data("junk\n".utf8).write(to: URL(fileURLWithPath: font))
        assertOneLineError(try runBusker(["render", song, "-o", path("x.wav"), "--soundfont", font]), status: 1,
                           mentioning: "is not a SoundFont (SF2/SF3)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
    }

    /// The capture device runs at 48 kHz (the virtual card's JACK server);
    /// 44.1 kHz asked for: the error names the capture device and its rate,
    /// and no playback device, since none was asked for.
    func testARecordAtARateTheCaptureDeviceRefusesTalksOfThatDeviceAlone() throws {
        let card = try VirtualSoundCardFixture(name: "busker-rate")
        defer { try? card.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        environment["JACK_DEFAULT_SERVER"] = card.serverName
        environment["JACK_NO_START_SERVER"] = "1"
        let take = path("t.wav")
        let r = try runBusker(["record", "-D", "busker_in", "-d", "2", "-c", "2", "-r", "44100", take], environment: environment)
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertEqual(r.stderr, "busker: capture device 'busker_in' runs at 48000 Hz, not the 44100 Hz asked for; record at -r 48000\n")
        XCTAssertFalse(r.stderr.contains("playback"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: take))
        // At the rate it says, the take is made.
        let good = try runBusker(["record", "-D", "busker_in", "-d", "1", "-c", "2", "-r", "48000", take], environment: environment)
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: take))
    }
}
