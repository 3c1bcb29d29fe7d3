import AudioFiles
import Foundation
import RenderTestSupport
import XCTest

/// `busker play --driver jack` end to end on a private JACK server (the
/// dummy driver at 64-frame cycles): jackd2's `jack_midiseq` plays A4 into
/// `busker-play:midi_in`, `jack_rec` records `busker-play:out_L`; then the
/// sender is disconnected mid-note and the output must fall silent.
final class PlayJACKMIDICLITests: XCTestCase {
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    func testNotesSentToMidiInArePlayedAndADisconnectLeavesNoneSounding() throws {
        for tool in ["jack_midiseq", "jack_rec", "jack_connect", "jack_disconnect", "jack_lsp"] {
            try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"), "\(tool) is not installed")
        }
        let card = try VirtualSoundCardFixture(name: "busker-jplay")
        defer { try? card.stop() }
        let environment = jackClientEnvironment(server: card.serverName)

        let (process, out, err) = try launchBusker(["play", "--driver", "jack", "--name", "busker-play", "--connect", "none", "--no-tui",
                                                    "--midi", "none", "--soundfont", smallFont, "--no-drums"], environment: environment)
        defer { if process.isRunning { process.terminate() } }
        XCTAssertTrue(out.waitFor("] running"), "busker play did not start: \(out.text) \(err.text)")
        XCTAssertTrue(out.text.contains("busker play: driver jack (--driver)"), out.text)
        XCTAssertTrue(out.text.contains("busker play: MIDI in on busker-play:midi_in"), out.text)
        let ports = try runProgram("/usr/bin/jack_lsp", ["-s", card.serverName]).stdout
        for port in ["busker-play:out_L", "busker-play:out_R", "busker-play:midi_in"] {
            XCTAssertTrue(ports.contains(port), "\(port) in \(ports)")
        }

        // A4 struck every second and held for 47000 of its 48000 frames.
        let sequencer = try startA4Sequencer(environment: environment)
        defer { endProcess(sequencer) }
        // Its port can be connected once its client is active.
        let deadline = Date().addingTimeInterval(10)
        var connected = false
        while !connected && Date() < deadline {
            connected = try runProgram("/usr/bin/jack_connect", ["seq:out", "busker-play:midi_in"], environment: environment).status == 0
            if !connected { usleep(50_000) }
        }
        XCTAssertTrue(connected, "jack_connect seq:out busker-play:midi_in")

        let folder = card.directory
        let held = folder.appendingPathComponent("held.wav").path
        XCTAssertEqual(try runProgram("/usr/bin/jack_rec", ["-f", held, "-d", "2", "-b", "32", "busker-play:out_L"],
                                      environment: environment).status, 0)
        let playing = try SoundFileReader(path: held).readAll()
        XCTAssertEqual(playing.count, 96_000)
        let peak = playing.map(abs).max() ?? 0
        print("busker play --driver jack, A4 from jack_midiseq: peak \(20 * log10(Double(peak))) dBFS")
        XCTAssertGreaterThan(peak, 1e-3, "the notes sent to midi_in were played")
        // The loudest half second is A4 (within 1 %).
        let loudest = stride(from: 0, to: 72_000, by: 4_800).max { a, b in
            playing[a..<(a + 24_000)].map(abs).max()! < playing[b..<(b + 24_000)].map(abs).max()!
        }!
        let window = playing[loudest..<(loudest + 24_000)]
        let pitch = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: window, among: stride(from: 400.0, through: 480, by: 2),
                                                                  sampleRate: 48_000))
        XCTAssertEqual(pitch, 440, accuracy: 4.4, "A4 within 1 %")

        // The sender leaves mid-note (it holds A4 98 % of the time): no note may keep sounding.
        XCTAssertEqual(try runProgram("/usr/bin/jack_disconnect", ["seq:out", "busker-play:midi_in"], environment: environment).status, 0)
        let after = folder.appendingPathComponent("after.wav").path
        XCTAssertEqual(try runProgram("/usr/bin/jack_rec", ["-f", after, "-d", "2", "-b", "32", "busker-play:out_L"],
                                      environment: environment).status, 0)
        let tail = try SoundFileReader(path: after).readAll()
        XCTAssertEqual(tail.count, 96_000)
        XCTAssertLessThan(tail.suffix(48_000).map(abs).max() ?? 1, 1e-4, "a note still sounds a second after its sender left")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertTrue(out.waitForEnd())
        XCTAssertEqual(process.terminationStatus, 0, err.text)
        XCTAssertTrue(out.text.contains("stopped by SIGINT"), out.text)
    }

    /// Options of the other driver, and no server: one line each, at once.
    func testOptionErrorsAndNoServerAreOneLine() throws {
        assertOneLineError(try runBusker(["play", "--driver", "jack", "--output", "hw:0"]), status: 2,
                           mentioning: "--output is for --driver alsa")
        assertOneLineError(try runBusker(["play", "--driver", "jack", "--rate", "44100"]), status: 2,
                           mentioning: "--rate is for --driver alsa")
        assertOneLineError(try runBusker(["play", "--connect", "none"]), status: 2, mentioning: "--connect is for --driver jack")
        assertOneLineError(try runBusker(["play", "--driver", "jack", "--connect", "midi_in"]), status: 2,
                           mentioning: "--connect 'midi_in'")
        let name = "busker-no-server-play-\(getpid())"
        let environment = jackClientEnvironment(server: name)
        let started = Date()
        let r = try runBusker(["play", "--driver", "jack", "--no-tui", "--midi", "none"], environment: environment)
        assertOneLineError(r, status: 1, mentioning: "no JACK server '\(name)' is running")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }
}
