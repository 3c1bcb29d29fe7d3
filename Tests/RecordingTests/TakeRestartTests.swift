import Engine
import Foundation
import MIDI
import Recording
import Sequencing
import XCTest

/// A take starts from zero whatever the audio thread saw of the one before,
/// and never writes over a file that is already there.
final class TakeRestartTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("restart") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    /// Take A records ten blocks; it is stopped and take B started (with a
    /// frame limit) before the audio thread renders again, as after Ctrl-Z,
    /// Ctrl-R, Ctrl-R, fg. The audio thread sees the switch on both times, so
    /// only the take generation tells it B is new: B must count from its own
    /// first frame (three blocks, its limit), not from A's 640.
    func testATakeStartedWhileTheAudioWasOffStartsFromZero() throws {
        let tap = RecordingTap(channelCount: 1, sampleRate: 48000)
        let graph = AudioGraph(inputChannelCount: 1)
        graph.output = graph.input
        try tap.install(atEndOf: graph)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
        defer { engine.releaseAll() }
        let input = AudioBuffer(channelCount: 1, capacity: 64), output = AudioBuffer(channelCount: 1, capacity: 64)
        var block = 0
        func render(_ count: Int) {
            for _ in 0..<count {
                for i in 0..<64 { input[0][i] = Float(block * 64 + i) }
                engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
                block += 1
            }
        }
        let a = try Recorder.start(tap: tap, path: folder + "/a.wav", format: .wavFloat, sampleRate: 48000)
        render(10)
        let reportA = a.stop(audioHasStopped: true)
        XCTAssertEqual(reportA.frames, 640)

        var options = Recorder.Options()
        options.frameLimit = 3 * 64
        let b = try Recorder.start(tap: tap, path: folder + "/b.wav", format: .wavFloat, sampleRate: 48000, options: options)
        render(5)
        XCTAssertTrue(b.isComplete)
        let reportB = b.stop(audioHasStopped: true)
        XCTAssertEqual(reportB.framesRecorded, 3 * 64, "B counts its own frames, not A's")
        XCTAssertEqual(reportB.frames, 3 * 64, "B has the frames its limit asked for")
        let samples = try readSoundFile(folder + "/b.wav").samples
        XCTAssertEqual(samples.first, 640, "B starts at the first block rendered after it was started")
        XCTAssertEqual(samples.last, Float(640 + 3 * 64 - 1))
    }

    /// `busker play song.mid --record song.wav`: the take's MIDI file would be
    /// song.mid. Without force the take does not start and song.mid keeps its
    /// bytes; nothing is created.
    func testATakeNeverOverwritesAnExistingMIDIFile() throws {
        let song = folder + "/song.mid"
        let original = Data([0x4D, 0x54, 0x68, 0x64, 1, 2, 3, 4])
        try original.write(to: URL(fileURLWithPath: song))
        let tap = RecordingTap(channelCount: 1, sampleRate: 48000, midiEvents: MIDIEventBuffer(capacity: 16))
        var options = Recorder.Options()
        options.midiPath = song
        XCTAssertThrowsError(try Recorder.start(tap: tap, path: folder + "/song.wav", format: .wav16, sampleRate: 48000, options: options)) {
            XCTAssertEqual($0 as? RecordingError, .exists(path: song))
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: song)), original, "song.mid untouched")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/song.wav"), "no take was created")
        XCTAssertFalse(tap.isArmed)

        // A new .mid is there (a valid empty SMF) from the start of the take.
        options.midiPath = folder + "/take.mid"
        let recorder = try Recorder.start(tap: tap, path: folder + "/take.wav", format: .wav16, sampleRate: 48000, options: options)
        let early = try StandardMIDIFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/take.mid"))), mode: .strict)
        XCTAssertEqual(early.format, .singleTrack)
        recorder.stop(audioHasStopped: true)
    }

    /// A forced take over an old one leaves no log of the old take's losses
    /// behind: this take's log holds its own summary and nothing of the old.
    func testForceRemovesTheOldTakesLog() throws {
        let path = folder + "/take.wav"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("old take".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: path + ".log", contents: Data("dropped 4800 frames at 1.000 s\n".utf8)))
        let tap = RecordingTap(channelCount: 1, sampleRate: 48000)
        let recorder = try Recorder.start(tap: tap, path: path, format: .wav16, sampleRate: 48000, force: true)
        let started = try String(contentsOfFile: path + ".log", encoding: .utf8)
        XCTAssertFalse(started.contains("dropped 4800"), "the old log went with the old take: \(started)")
        XCTAssertTrue(started.hasPrefix("busker take log for \(path)"), "this take's log is there from its start: \(started)")
        let report = recorder.stop(audioHasStopped: true)
        XCTAssertNil(report.logPath)
        let log = try String(contentsOfFile: path + ".log", encoding: .utf8)
        XCTAssertFalse(log.contains("dropped 4800"), log)
        XCTAssertTrue(log.contains("summary: 0 frames in the file, 0 dropped in 0 gap(s), 0 xrun(s)"), log)
    }
}
