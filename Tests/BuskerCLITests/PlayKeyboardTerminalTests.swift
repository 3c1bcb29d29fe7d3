import Foundation
import MIDI
import RenderTestSupport
import XCTest

/// `busker play`'s computer keyboard in a real terminal that does not speak
/// the kitty keyboard protocol (tmux): the query is answered by the device
/// attributes alone, so the timing rules play; keys whose escape sequences
/// Busker does not know (F5, Ctrl-Right, Alt-z, F1, Page Up) sound nothing.
/// What sounded is read back from the session's MIDI take.
final class PlayKeyboardTerminalTests: XCTestCase {
    func testInTmuxUnknownKeysSoundNothingAndANoteEndsByItsHold() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is not installed (apt-get install tmux)")
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let card = try VirtualSoundCardFixture(name: "busker-play-keys-test")
        defer { try? card.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-play-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let environment = "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path) JACK_DEFAULT_SERVER=\(card.serverName) JACK_NO_START_SERVER=1 TERM=xterm-256color"
        let tmux = try TmuxSession(socket: "busker-play-keys-\(getpid())", columns: 100, rows: 40,
                                   arguments: [buskerPath, "play", "--output", "busker_out", "--midi", "none", "--soundfont", font,
                                               "--no-drums", "--record=\(folder)/take.wav"],
                                   environment: environment)
        defer { tmux.stop() }

        XCTAssertTrue(tmux.waitForLine { $0.hasPrefix("BUSKER PLAY") }, "the play screen did not come up")
        usleep(1_000_000)
        for key in ["F5", "C-Right", "M-z", "F1", "PageUp"] { try tmux.sendKey(key) }
        usleep(500_000)
        try tmux.sendKey("z")
        usleep(1_500_000)
        // A take is running: Esc asks once, a second Esc quits.
        try tmux.sendKey("Escape")
        XCTAssertTrue(tmux.waitForLine { $0.contains("Esc again to quit") }, "busker play did not ask before ending the take")
        try tmux.sendKey("Escape")
        XCTAssertTrue(tmux.waitForLine { $0.contains("busker play:") }, "busker play did not quit on the second Esc")

        let file = try StandardMIDIFile(contentsOfFile: folder + "/take.mid", mode: .strict)
        var notes: [(on: Bool, note: UInt8, seconds: Double)] = []
        for event in file.timedEvents(ofTrack: 0) {
            switch event.kind {
            case .message(.noteOn(_, let note, let velocity)): notes.append((velocity > 0, note, event.seconds))
            case .message(.noteOff(_, let note, _)): notes.append((false, note, event.seconds))
            default: break
            }
        }
        XCTAssertEqual(notes.map { "\($0.on ? "on" : "off") \($0.note)" }, ["on 60", "off 60"], "only z sounded: \(notes)")
        guard notes.count == 2 else { return }
        // No release from tmux: the note ends by the timing rules' 0.6 s hold, not at Esc
        // 1.5 s later. The take's times count rendered frames, which lose what a host stall
        // costs the virtual card (an xrun drops frames), so the bounds tell the hold from
        // Esc and from an instant end rather than time the hold itself (ComputerKeyboardTests do).
        let held = notes[1].seconds - notes[0].seconds
        print(String(format: "busker play in tmux: z held %.3f s (the 0.6 s hold)", held))
        XCTAssertGreaterThan(held, 0.3, "the note sounds for the hold")
        XCTAssertLessThan(held, 1.2, "the note ends by the hold, not at Esc")
    }
}
