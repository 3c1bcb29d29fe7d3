import Foundation
import RenderTestSupport
import XCTest

/// `busker play` end to end on the virtual sound card: MIDI bytes written
/// into a FIFO (`--midi-in`) come out of the speaker as the right note. The
/// ALSA `file` plugin between Busker and the JACK output keeps a copy of
/// everything played.
final class PlayMIDIInTests: XCTestCase {
    private var card: VirtualSoundCardFixture?
    private let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    override func setUpWithError() throws {
        card = try VirtualSoundCardFixture(name: "busker-cli-test")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    func testANoteWrittenIntoAFIFOIsPlayedAtItsPitch() throws {
        let card = try XCTUnwrap(card)
        let fifo = card.directory.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let tap = card.directory.appendingPathComponent("played.raw").path
        let config = card.directory.appendingPathComponent("asoundrc-tap")
        try (card.asoundrc() + """

            pcm.busker_tap {
                type file
                slave.pcm "busker_out"
                file "\(tap)"
                format "raw"
            }
            """).write(to: config, atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: buskerPath)
        process.arguments = ["play", "--no-tui", "--output", "busker_tap", "--midi", "none", "--midi-in", fifo,
                             "--soundfont", smallFont, "--no-drums"]
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(config.path)"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // Wait (bounded) for the first status line: the engine is running.
        let reader = out.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("running") && Date() < deadline && process.isRunning {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(text.contains("running"), "busker play did not start: \(text)")

        // A4 for about a second, then the writer goes away.
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        writer.write(Data([0x90, 69, 100]))
        usleep(1_000_000)
        writer.write(Data([0x80, 69, 0]))
        usleep(300_000)
        try writer.close()
        usleep(300_000)
        process.interrupt()
        process.waitUntilExit()
        text += String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        XCTAssertTrue(text.contains("stopped by SIGINT"), text)

        // What was played: stereo FLOAT_LE frames (the virtual card's format).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: tap))
        let left: [Float] = bytes.withUnsafeBytes { raw in
            stride(from: 0, to: raw.count / 8 * 8, by: 8).map { raw.loadUnaligned(fromByteOffset: $0, as: Float.self) }
        }
        let onset = try XCTUnwrap(left.firstIndex { abs($0) > 1e-4 }, "the note was played")
        XCTAssertGreaterThan(left.count, onset + 4_800 + 24_000)
        let window = left[(onset + 4_800)..<(onset + 4_800 + 24_000)]
        let peak = try XCTUnwrap(ToneAnalysis.strongestFrequency(in: window, among: stride(from: 400.0, through: 480, by: 2),
                                                                 sampleRate: 48_000))
        XCTAssertEqual(peak, 440, accuracy: 4.4, "A4 within 1 %")
        // The note ended: the last 0.2 s played are silent (released, then the writer left).
        XCTAssertLessThan(left.suffix(9_600).map { abs($0) }.max() ?? 1, 1e-3)
    }
}
