import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// Presets through the built `busker` binary: `--preset` starts a file render
/// with a preset's settings, options given with it win, a bad preset is one
/// line and exit status 2 with the file left as it was, and the command line
/// printed at the end renders the same bytes again.
final class PresetCLITests: XCTestCase {
    private var work: URL!
    /// The config folder the tests' busker uses (`XDG_CONFIG_HOME`), never the user's.
    private var environment: [String: String] = [:]
    private var presetFolder: String { work.path + "/config/busker" }

    override func setUpWithError() throws {
        work = try makeWorkFolder("busker-preset-cli")
        environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = work.path + "/config"
        environment["HOME"] = work.path + "/home"
    }

    override func tearDownWithError() throws { removeWorkFolder(work) }

    private func path(_ name: String) -> String { work.appendingPathComponent(name).path }

    private func live(_ arguments: [String]) throws -> BuskerRun { try runBusker(["live"] + arguments, environment: environment) }

    private func writePreset(_ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(atPath: presetFolder, withIntermediateDirectories: true)
        try text.write(toFile: presetFolder + "/\(name).preset", atomically: false, encoding: .utf8)
    }

    private func bytes(_ name: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path(name))) }

    /// Two channels, 1.5 s at 48 kHz: a voice recording on the left (ALSA's
    /// Front_Center.wav where it is installed, else a gliding tone) and a
    /// plucked 196 Hz note every 0.4 s on the right, so that every stage has
    /// something to act on.
    private func writeVoiceAndGuitar() throws -> String {
        let rate = 48000, frames = 72000
        var voice = [Float](repeating: 0, count: frames)
        if let file = try? SoundFileReader(path: "/usr/share/sounds/alsa/Front_Center.wav"), file.channelCount == 1,
           let samples = try? file.readAll() {
            for i in 0..<min(frames, samples.count) { voice[i] = samples[i] }
        } else {
            for i in 0..<frames { voice[i] = 0.3 * Float(sin(2 * Double.pi * (200 + 100 * Double(i) / Double(frames)) * Double(i) / Double(rate))) }
        }
        var samples = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let sincePluck = Double(i % 19200) / Double(rate)
            samples[2 * i] = voice[i]
            samples[2 * i + 1] = Float(0.4 * exp(-6 * sincePluck) * sin(2 * Double.pi * 196 * sincePluck))
        }
        let p = path("in.wav")
        let writer = try SoundFileWriter(path: p, sampleRate: rate, channelCount: 2, sampleFormat: .f32)
        try samples.withUnsafeBufferPointer { (b) throws(AudioFileError) in try writer.write(b.baseAddress!, frames: frames) }
        try writer.close()
        return p
    }

    /// The command line busker printed to start the same sound again.
    private func restartLine(_ run: BuskerRun, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let marker = "start the same sound again with: "
        let found = run.stdout.split(separator: "\n").first { $0.contains(marker) }
        let text = try XCTUnwrap(found, "no restart line in: \(run.stdout)", file: file, line: line)
        return String(text[text.range(of: marker)!.upperBound...])
    }

    /// Runs a printed command line through the shell as printed, with the
    /// output file `from` replaced by `to`. The line names the binary by the
    /// path that was run: no PATH finds it.
    private func rerun(_ commandLine: String, output from: String, to: String) throws -> BuskerRun {
        XCTAssertTrue(commandLine.hasPrefix(buskerPath + " live "), commandLine)
        XCTAssertTrue(commandLine.contains("file:" + from), commandLine)
        var environment = environment
        environment["PATH"] = "/usr/bin:/bin"
        return try runProgram("/bin/sh", ["-c", commandLine.replacingOccurrences(of: "file:" + from, with: "file:" + to)],
                              environment: environment)
    }

    func testThePrintedCommandLineRendersTheSameBytesAgain() throws {
        let input = try writeVoiceAndGuitar()
        let options = ["--inputs", "1,2", "--bass", "3", "--treble", "-2.5", "--reverb", "20", "--room", "hall",
                       "--volume", "0.45", "--gate", "--gate-threshold", "-55",
                       "--strip", "1:pan=-0.3,compressor=on,makeup=4", "--strip", "2:pan=0.6,gain=-3,reverb=35,high-pass=120",
                       "--period", "333", "--format", "s24"]
        let first = try live(["--input", "file:" + input, "--output", "file:" + path("a.wav")] + options)
        XCTAssertEqual(first.status, 0, first.stderr)
        let commandLine = try restartLine(first)
        XCTAssertFalse(commandLine.contains("--preset"), "no preset was loaded: every setting is spelled out: \(commandLine)")
        let again = try rerun(commandLine, output: path("a.wav"), to: path("b.wav"))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try restartLine(again), commandLine.replacingOccurrences(of: path("a.wav"), with: path("b.wav")))
        let a = try bytes("a.wav"), b = try bytes("b.wav")
        XCTAssertGreaterThan(a.count, 72000 * 6, "1.5 s of 24-bit stereo")
        XCTAssertEqual(a, b, "the printed line renders the same bytes")
        // The settings matter: without them the render differs (the comparison can fail).
        XCTAssertEqual(try live(["--input", "file:" + input, "--output", "file:" + path("plain.wav"), "--format", "s24",
                                 "--period", "333"]).status, 0)
        XCTAssertNotEqual(try bytes("plain.wav"), a)
    }

    func testAPresetStartsWithItsSettingsAndOptionsGivenWithItWin() throws {
        let input = try writeVoiceAndGuitar()
        try writePreset("gig", """
        # voice left of centre, guitar right, in a hall
        [bus]
        volume = 0.4
        room = hall

        [strip 1]
        inputs = 1
        pan = -0.3
        bass = 3
        reverb = 20

        [strip 2]
        inputs = 2
        pan = 0.6
        treble = -4
        """)
        let presetBefore = try Data(contentsOf: URL(fileURLWithPath: presetFolder + "/gig.preset"))
        let fromPreset = try live(["--preset", "gig", "--input", "file:" + input, "--output", "file:" + path("preset.wav")])
        XCTAssertEqual(fromPreset.status, 0, fromPreset.stderr)
        let spelled = try live(["--input", "file:" + input, "--output", "file:" + path("spelled.wav"), "--inputs", "1,2",
                                "--volume", "0.4", "--room", "hall", "--strip", "1:pan=-0.3,bass=3,reverb=20",
                                "--strip", "2:pan=0.6,treble=-4"])
        XCTAssertEqual(spelled.status, 0, spelled.stderr)
        XCTAssertEqual(try bytes("preset.wav"), try bytes("spelled.wav"), "the preset is exactly its settings")
        // Unchanged, the preset's name is the shortest way back.
        let commandLine = try restartLine(fromPreset)
        XCTAssertTrue(commandLine.hasSuffix("--preset gig"), commandLine)
        let again = try rerun(commandLine, output: path("preset.wav"), to: path("again.wav"))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try bytes("again.wav"), try bytes("preset.wav"))

        // An option given with the preset wins over it; the rest stays the preset's.
        let quieter = try live(["--preset", "gig", "--volume", "0.2", "--strip", "2:mute=on",
                                "--input", "file:" + input, "--output", "file:" + path("quieter.wav")])
        XCTAssertEqual(quieter.status, 0, quieter.stderr)
        let quieterSpelled = try live(["--input", "file:" + input, "--output", "file:" + path("quieter-spelled.wav"), "--inputs", "1,2",
                                       "--volume", "0.2", "--room", "hall", "--strip", "1:pan=-0.3,bass=3,reverb=20",
                                       "--strip", "2:pan=0.6,treble=-4,mute=on"])
        XCTAssertEqual(quieterSpelled.status, 0, quieterSpelled.stderr)
        XCTAssertEqual(try bytes("quieter.wav"), try bytes("quieter-spelled.wav"))
        XCTAssertNotEqual(try bytes("quieter.wav"), try bytes("preset.wav"))
        let changed = try restartLine(quieter)
        XCTAssertTrue(changed.hasSuffix(" --preset gig --strip 2:mute=on --volume 0.2"), "the preset and what changed since: \(changed)")
        let changedAgain = try rerun(changed, output: path("quieter.wav"), to: path("quieter-again.wav"))
        XCTAssertEqual(changedAgain.status, 0, changedAgain.stderr)
        XCTAssertEqual(try bytes("quieter-again.wav"), try bytes("quieter.wav"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: presetFolder + "/gig.preset")), presetBefore, "loading never writes")
    }

    /// A stage's parts come back from a preset exactly as the `--part`
    /// options that say the same make them (the same bytes), they matter
    /// (without them the bytes differ), and the printed line says only the
    /// part changed over the preset and renders the same bytes again.
    func testAStagePresetRestoresItsPartsAndTheLineSaysTheChangedOnes() throws {
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let input = try writeVoiceAndGuitar()
        var song = GMTestSong()
        for i in 0..<6 { song.note(0.25 * Double(i), channel: 0, 60 + UInt8(2 * i), length: 0.2) }
        let songPath = path("song.mid")
        try song.write(to: songPath, endSeconds: 1.5)
        let stage = ["--soundfont", font, "--instrument", "piano", "--song", songPath, "--input", "file:" + input]
        try writePreset("stage", "[bus]\nvolume = 0.5\n\n[part song]\nlevel = -6\npan = -0.5\n\n[part keys]\nmute = on\n")
        let fromPreset = try live(stage + ["--preset", "stage", "--part", "song:reverb=20", "--output", "file:" + path("a.wav")])
        XCTAssertEqual(fromPreset.status, 0, fromPreset.stderr)
        let commandLine = try restartLine(fromPreset)
        XCTAssertTrue(commandLine.hasSuffix("--preset stage --part song:reverb=20"), commandLine)
        let spelled = try live(stage + ["--volume", "0.5", "--part", "song:level=-6,pan=-0.5,reverb=20", "--part", "keys:mute=on",
                                        "--output", "file:" + path("b.wav")])
        XCTAssertEqual(spelled.status, 0, spelled.stderr)
        let spelledLine = try restartLine(spelled)
        XCTAssertTrue(spelledLine.hasSuffix("--volume 0.5 --part keys:mute=on --part song:level=-6,pan=-0.5,reverb=20"), spelledLine)
        XCTAssertGreaterThan(try bytes("a.wav").count, 72000 * 6)
        XCTAssertEqual(try bytes("a.wav"), try bytes("b.wav"), "the preset's parts sound as the options that say them")
        XCTAssertEqual(try live(stage + ["--volume", "0.5", "--output", "file:" + path("c.wav")]).status, 0)
        XCTAssertNotEqual(try bytes("a.wav"), try bytes("c.wav"), "the parts matter: without them the bytes differ")
        let again = try rerun(commandLine, output: path("a.wav"), to: path("d.wav"))
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try bytes("d.wav"), try bytes("a.wav"), "the printed line renders the same bytes again")
    }

    func testABadPresetIsOneLineNamingTheLineWithExitStatusTwoAndStaysAsItWas() throws {
        let input = try writeVoiceAndGuitar()
        let cases: [(text: String, error: String)] = [
            ("[bus]\nvolume = 0.3\n\n[strip 1]\nbass = 3\ntreble = 1\nbass = 40\n", "line 7: bass is given twice"),
            ("[strip 1]\nbass = 40\n", "line 2: bass = 40 is outside −12…12 dB"),
            ("[bus]\nvolume = loud\n", "line 2: volume = loud is not a number"),
            ("[bus]\n\n[strip 1]\nloudness = 11\n", "line 4: unknown key 'loudness' in [strip 1]"),
            ("[strip 1]\ninputs = 1\n[strip 1]\n", "line 3: [strip 1] appears twice (first on line 1)"),
            ("[bus]\nvolume\n", "line 2: 'volume' is not key = value"),
            ("[strip 1]\n[strip 3]\n", "line 2: [strip 3] but no [strip 2]"),
            ("[part keys]\nlevel = 20\n", "line 2: level = 20 is outside −60…12 dB"),
            ("[bus]\n[part bass]\nlevel = 1\n", "line 2: [part bass]: the parts are keys, drums, song"),
        ]
        for (index, (text, error)) in cases.enumerated() {
            try writePreset("bad", text)
            let before = try Data(contentsOf: URL(fileURLWithPath: presetFolder + "/bad.preset"))
            let r = try live(["--preset", "bad", "--input", "file:" + input, "--output", "file:" + path("out\(index).wav")])
            assertOneLineError(r, status: 2, mentioning: presetFolder + "/bad.preset " + error)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: presetFolder + "/bad.preset")), before, text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path("out\(index).wav")), "nothing rendered for \(text)")
        }
        // Not text at all, missing, a bad name: the same one line and exit status 2.
        try Data([0x5B, 0x62, 0x75, 0x73, 0x5D, 0x0A, 0xC3, 0x28, 0x00]).write(to: URL(fileURLWithPath: presetFolder + "/binary.preset"))
        assertOneLineError(try live(["--preset", "binary", "--input", "file:" + input, "--output", "file:" + path("x.wav")]),
                           status: 2, mentioning: "binary.preset: is not text")
        assertOneLineError(try live(["--preset", "nope", "--input", "file:" + input, "--output", "file:" + path("x.wav")]),
                           status: 2, mentioning: "nope.preset: no such preset (saved presets: bad, binary)")
        assertOneLineError(try live(["--preset", "../bad", "--input", "file:" + input, "--output", "file:" + path("x.wav")]),
                           status: 2, mentioning: "has a slash")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("x.wav")))
    }

    func testPresetsLiveInXDGConfigHomeElseInDotConfig() throws {
        let input = try writeVoiceAndGuitar()
        // Only in ~/.config/busker: found when XDG_CONFIG_HOME is unset, not when it points elsewhere.
        let home = work.path + "/home"
        try FileManager.default.createDirectory(atPath: home + "/.config/busker", withIntermediateDirectories: true)
        try "[bus]\nvolume = 0.5\n".write(toFile: home + "/.config/busker/home.preset", atomically: false, encoding: .utf8)
        var withoutXDG = environment
        withoutXDG["XDG_CONFIG_HOME"] = nil
        let found = try runBusker(["live", "--preset", "home", "--input", "file:" + input, "--output", "file:" + path("h.wav")],
                                  environment: withoutXDG)
        XCTAssertEqual(found.status, 0, found.stderr)
        assertOneLineError(try live(["--preset", "home", "--input", "file:" + input, "--output", "file:" + path("x.wav")]),
                           status: 2, mentioning: presetFolder + "/home.preset: no such preset")
        // The home folder is shown as ~ in messages.
        try FileManager.default.createDirectory(atPath: home + "/.config/busker", withIntermediateDirectories: true)
        try "[bus]\nroom = cave\n".write(toFile: home + "/.config/busker/cave.preset", atomically: false, encoding: .utf8)
        assertOneLineError(try runBusker(["live", "--preset", "cave", "--input", "file:" + input, "--output", "file:" + path("x.wav")],
                                         environment: withoutXDG),
                           status: 2, mentioning: "~/.config/busker/cave.preset line 2: room = cave must be one of small, medium, large, hall")
    }

    /// On a device (ALSA's null PCM), stopped by SIGINT: the line names the
    /// preset and what was given with it (`--osc`, a changed bass), the
    /// binary by its path, and the ALSA configuration the session ran with.
    func testOnADeviceTheLineIsPrintedWhenTheSessionStops() throws {
        try writePreset("gig", "[bus]\nvolume = 0.5\n\n[strip 1]\nbass = 4\n")
        let port = String(20000 + Int(getpid()) % 20000)
        let configuration = "/usr/share/alsa/alsa.conf"
        environment["ALSA_CONFIG_PATH"] = configuration
        // Not the JACK server a virtual card fixture of another test may have left in this process's environment.
        environment["JACK_DEFAULT_SERVER"] = nil
        environment["JACK_NO_START_SERVER"] = nil
        for (extra, expected) in [([], " live --device null --no-tui --preset gig"),
                                  (["--bass", "1", "--osc", port], " live --device null --osc \(port) --no-tui --preset gig --bass 1")] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: buskerPath)
            process.arguments = ["live", "--device", "null", "--no-tui", "--preset", "gig"] + extra
            process.environment = environment
            let out = OutputCollector(), err = OutputCollector()
            process.standardOutput = out.pipe
            process.standardError = err.pipe
            try process.run()
            // Running: its status line comes every second.
            let deadline = Date().addingTimeInterval(10)
            while !out.text.contains("running"), Date() < deadline { usleep(50_000) }
            process.interrupt()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, err.text)
            let last = out.text.split(separator: "\n").last.map(String.init)
            XCTAssertEqual(last, "busker live: start the same sound again with: ALSA_CONFIG_PATH=\(configuration) " + buskerPath + expected,
                           out.text)
        }
    }

    /// Runs `busker live` headless in `environment` until its status line
    /// says it runs, stops it with SIGINT, and returns its output.
    private func runLiveUntilRunning(_ program: String, _ arguments: [String], environment: [String: String]) throws -> String {
        let (process, out, err) = try launchProgram(program, arguments, environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(waitUntil({ out.text.contains("running mic ON") || !process.isRunning }, timeout: 20), out.text + err.text)
        // Ctrl-C reaches busker: the process itself, or busker under the shell that started it.
        let child = try runProgram("/usr/bin/pgrep", ["-P", String(process.processIdentifier), "-x", "busker"])
        if let busker = Int32(child.stdout.split(separator: "\n").first ?? "") {
            kill(busker, SIGINT)
        } else {
            process.interrupt()
        }
        XCTAssertTrue(waitUntil({ !process.isRunning }, timeout: 10))
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        return out.text
    }

    /// On the virtual sound card, with a preset, --osc and a changed volume:
    /// the printed line, run by a shell that has none of the card's
    /// environment and no busker on PATH, starts the same session (the
    /// preset, the port, the volume) and prints the same line.
    func testOnTheVirtualCardThePrintedLineRunsAsPrintedInAPlainShell() throws {
        let card = try VirtualSoundCardFixture(name: "busker-restart")
        defer { try? card.stop() }
        try writePreset("gig", "[bus]\nvolume = 0.5\n\n[strip 1]\nbass = 4\n")
        var onCard = environment
        onCard["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        onCard["JACK_DEFAULT_SERVER"] = card.serverName
        onCard["JACK_NO_START_SERVER"] = "1"
        let port = String(20000 + Int(getpid() + 7) % 20000)
        let first = try runLiveUntilRunning(buskerPath, ["live", "--input", "busker_in", "--output", "busker_out", "--no-tui",
                                                         "--preset", "gig", "--osc", port, "--volume", "0.2"], environment: onCard)
        XCTAssertTrue(first.contains("vol 0.20"), first)
        let line = try restartLine(BuskerRun(status: 0, stdout: first, stderr: ""))
        XCTAssertEqual(line, "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) "
                       + "JACK_NO_START_SERVER=1 \(buskerPath) live --input busker_in --output busker_out --osc \(port) --no-tui "
                       + "--preset gig --volume 0.2")
        var plain = environment
        for name in ["ALSA_CONFIG_PATH", "JACK_DEFAULT_SERVER", "JACK_NO_START_SERVER"] { plain[name] = nil }
        plain["PATH"] = "/usr/bin:/bin"
        let again = try runLiveUntilRunning("/bin/sh", ["-c", line], environment: plain)
        XCTAssertTrue(again.contains("vol 0.20"), again)
        XCTAssertTrue(again.contains("OSC on 127.0.0.1 port \(port) (UDP)"), again)
        XCTAssertEqual(try restartLine(BuskerRun(status: 0, stdout: again, stderr: "")), line)
    }

    func testHelpSaysHowPresetsWork() throws {
        let r = try live(["--help"])
        XCTAssertTrue(r.stdout.contains("--preset NAME"), r.stdout)
        XCTAssertTrue(r.stdout.contains("override"), r.stdout)
    }
}
