import AudioFiles
import CommandLineInterface
import Foundation
import MIDI
import RenderTestSupport
import XCTest

/// `busker record`, `busker repair` and `--record` from the outside: one-line
/// errors before any audio starts, a bit-exact offline take, and on the
/// virtual sound card a `kill -9` mid-take and a file-size limit mid-take.
final class RecordCommandTests: XCTestCase {
    private var folder = ""
    private let voice = "/usr/share/sounds/alsa/Front_Center.wav"

    override func setUpWithError() throws { folder = try makeWorkFolder("busker-rec-cli").path }

    override func tearDownWithError() throws { removeWorkFolder(atPath: folder) }

    // MARK: Bad input: one line, nothing recorded, nothing started

    func testBadRecordingRequestsAreOneLineErrors() throws {
        let existing = folder + "/taken.wav"
        XCTAssertTrue(FileManager.default.createFile(atPath: existing, contents: Data("keep".utf8)))
        let unwritable = getuid() == 0 ? "/sys" : folder + "/locked"
        if getuid() != 0 {
            try FileManager.default.createDirectory(atPath: unwritable, withIntermediateDirectories: true)
            chmod(unwritable, 0o500)
        }
        defer { chmod(folder + "/locked", 0o700) }
        let input = "file:\(voice)"
        assertOneLineError(try runBusker(["record", folder + "/a.wav", "--input", input, "--format", "mp3"]), status: 2, mentioning: "unknown recording format 'mp3'")
        assertOneLineError(try runBusker(["record", existing, "--input", input]), status: 1, mentioning: "'\(existing)' already exists (use --force")
        XCTAssertEqual(try String(contentsOfFile: existing, encoding: .utf8), "keep", "never overwritten")
        assertOneLineError(try runBusker(["record", unwritable + "/a.wav", "--input", input]), status: 1, mentioning: "cannot record into '\(unwritable)'")
        assertOneLineError(try runBusker(["record", folder + "/no/such/a.wav", "--input", input]), status: 1, mentioning: "no such folder")
        assertOneLineError(try runBusker(["record", folder + "/a.flac", "--format", "wav16", "--input", input]), status: 2, mentioning: "names a .flac file")
        assertOneLineError(try runBusker(["record", folder + "/a.mp3", "--input", input]), status: 2, mentioning: "records .wav, .flac or .ogg")
        assertOneLineError(try runBusker(["record", folder + "/a.wav", "--duration", "-1", "--input", input]), status: 2, mentioning: "--duration")
        // busker live and play check the take before any device opens: the same lines, whatever the devices.
        assertOneLineError(try runBusker(["live", "--no-tui", "--record", existing]), status: 1, mentioning: "already exists")
        assertOneLineError(try runBusker(["live", "--no-tui", "--record", unwritable + "/take.wav"]), status: 1, mentioning: "cannot record into")
        assertOneLineError(try runBusker(["live", "--no-tui", "--record", "--record-format", "aiff"]), status: 2, mentioning: "unknown recording format 'aiff'")
        assertOneLineError(try runBusker(["play", "--no-tui", "--record=\(existing)"]), status: 1, mentioning: "already exists")
        assertOneLineError(try runBusker(["live", "--input", input, "--output", "file:\(folder)/o.wav", "--record"]), status: 2, mentioning: "--record is for devices")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "taken.wav" && $0 != "locked" }, [],
                       "no take was started")
    }

    func testRepairErrorsAreOneLine() throws {
        let notWAV = folder + "/song.txt"
        try Data("not audio".utf8).write(to: URL(fileURLWithPath: notWAV))
        assertOneLineError(try runBusker(["repair", notWAV]), status: 1, mentioning: "not a WAV file")
        assertOneLineError(try runBusker(["repair", folder + "/missing.wav"]), status: 1, mentioning: "cannot repair")
        assertOneLineError(try runBusker(["repair"]), status: 2, mentioning: "repair needs a WAV file")
    }

    // MARK: Offline

    func testRecordingAFileIsBitExact() throws {
        let take = folder + "/voice.wav"
        let r = try runBusker(["record", take, "--input", "file:\(voice)", "--format", "wav16"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("recorded \(take)"), r.stdout)
        let source = try SoundFileReader(path: voice), copy = try SoundFileReader(path: take)
        XCTAssertEqual(copy.frameCount, source.frameCount, "as long as the input, no tail")
        XCTAssertEqual(copy.sampleRate, source.sampleRate)
        XCTAssertEqual(try copy.readAll(), try source.readAll(), "16-bit in, 16-bit out: every sample")
    }

    /// `busker play song.mid --record song.wav`: the take's MIDI file would be
    /// song.mid, the song itself: refused with or without --force, in one
    /// line, before any device opens, and song.mid keeps every byte. Another
    /// existing .mid is refused as an existing WAV is (unless --force).
    func testPlayNeverRecordsOverTheSong() throws {
        let song = folder + "/song.mid"
        let track: [UInt8] = [0x00, 0x90, 60, 100, 0x83, 0x60, 0x80, 60, 0, 0x00, 0xFF, 0x2F, 0x00]
        let bytes = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track
        try Data(bytes).write(to: URL(fileURLWithPath: song))
        assertOneLineError(try runBusker(["play", song, "--no-tui", "--record", folder + "/song.wav"]), status: 1,
                           mentioning: "'\(song)' is what is being played")
        // Another MIDI file next to the take's name is kept the WAV's way: it exists, --force to replace it.
        let other = folder + "/other.mid"
        try Data("other".utf8).write(to: URL(fileURLWithPath: other))
        assertOneLineError(try runBusker(["play", song, "--no-tui", "--record", folder + "/other.wav"]), status: 1,
                           mentioning: "'\(other)' already exists (use --force")
        assertOneLineError(try runBusker(["play", song, "--no-tui", "--record", folder + "/song.wav", "--force"]), status: 1,
                           mentioning: "'\(song)' is what is being played")
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: song))), bytes, "the song keeps every byte")
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), "other")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["other.mid", "song.mid"], "no take was started")
    }

    /// Ctrl-C during an offline recording (an input far too long to finish
    /// first: a sparse 4 GiB WAV of silence) stops it cleanly: one line says
    /// so, and the take is finalized, its header counting every frame in it.
    func testCtrlCFinalizesAnOfflineTake() throws {
        let input = folder + "/long.wav"
        let dataBytes = try writeSparseWAV(at: input)
        let take = folder + "/cut.wav"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: buskerPath)
        process.arguments = ["record", take, "--input", "file:\(input)", "--format", "wav16"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Once the take holds a megabyte, the recording is under way.
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline,
              ((try? FileManager.default.attributesOfItem(atPath: take)[.size] as? Int) ?? 0) < 1 << 20 { usleep(10_000) }
        XCTAssertTrue(process.isRunning, "still recording")
        process.interrupt()
        process.waitUntilExit()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, "SIGINT is caught, not fatal")
        assertOneLineError(BuskerRun(status: process.terminationStatus, stdout: text, stderr: errors), status: 1, mentioning: "stopped by SIGINT")
        XCTAssertTrue(text.contains("recorded \(take)"), text)
        let frames = framesLibsndfileReads(take)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: take)[.size] as? Int)
        XCTAssertGreaterThanOrEqual(frames, (1 << 20) / 2 - 100)
        XCTAssertLessThan(frames, Int(dataBytes / 2))
        XCTAssertLessThan(size - frames * 2, 200, "finalized: the header counts every frame in the file")
        print("Ctrl-C on an offline take: \(frames) frames kept, \(size) bytes")
    }

    // MARK: In real time, on the virtual sound card

    /// Starts busker with `arguments` under the virtual sound card's ALSA configuration.
    private func startBusker(_ arguments: [String], card: VirtualSoundCardFixture, fileSizeLimitKiB: Int? = nil) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        if let limit = fileSizeLimitKiB {
            // bash's ulimit -f counts 1024-byte blocks; busker ignores SIGXFSZ itself.
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "ulimit -f \(limit); exec \"$0\" \"$@\"", buskerPath] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: buskerPath)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    /// Reads status lines until one says at least `frames` frames were recorded
    /// (bounded: 60 s). Returns everything read and the last frame count seen.
    private func readUntilRecorded(_ frames: Int, from pipe: Pipe, process: Process) -> (text: String, recorded: Int) {
        var text = ""
        var recorded = 0
        let deadline = Date().addingTimeInterval(60)
        while recorded < frames && Date() < deadline && process.isRunning {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            recorded = Self.lastFrameCount(in: text) ?? recorded
        }
        return (text, recorded)
    }

    /// The frame count of the last complete status line ("… 144128 frames …").
    static func lastFrameCount(in text: String) -> Int? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for line in lines.reversed() {
            let words = line.split(separator: " ")
            if let i = words.firstIndex(of: "frames"), i > 0, let n = Int(words[i - 1]) { return n }
        }
        return nil
    }

    private func framesLibsndfileReads(_ path: String) -> Int {
        guard let reader = try? SoundFileReader(path: path) else { return -1 }
        return Int(reader.frameCount)
    }

    private func soxiSamples(_ path: String) throws -> Int? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/soxi") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/soxi")
        p.arguments = ["-s", path]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// kill -9 after about three seconds: libsndfile and sox read a WAV at
    /// least as long as what busker had reported recorded, minus one second;
    /// busker repair then restores every whole frame that reached the file.
    func testKillNineLeavesAPlayableWAVAndRepairRestoresTheRest() throws {
        let card = try VirtualSoundCardFixture(name: "busker-rec-kill")
        defer { try? card.stop() }
        let take = folder + "/killed.wav"
        let (process, out, _) = try startBusker(["record", take, "--input", "busker_in"], card: card)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let (text, recorded) = readUntilRecorded(3 * 48000, from: out, process: process)
        XCTAssertGreaterThanOrEqual(recorded, 3 * 48000, "busker record reported three seconds: \(text)")
        XCTAssertEqual(kill(process.processIdentifier, SIGKILL), 0)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        // The take's log was written from its start: a kill leaves it beside the take, with no summary.
        let log = try String(contentsOfFile: take + ".log", encoding: .utf8)
        XCTAssertTrue(log.hasPrefix("busker take log for \(take)"), log)
        XCTAssertFalse(log.contains("summary:"), "a take cut short has no summary: \(log)")

        let afterKill = framesLibsndfileReads(take)
        XCTAssertGreaterThanOrEqual(afterKill, recorded - 48000, "libsndfile: \(afterKill) frames, \(recorded) reported recorded")
        if let sox = try soxiSamples(take) {
            XCTAssertEqual(sox, afterKill, "sox reads what libsndfile reads")
        }
        let repair = try runBusker(["repair", take])
        XCTAssertEqual(repair.status, 0, repair.stderr)
        let repaired = framesLibsndfileReads(take)
        XCTAssertGreaterThanOrEqual(repaired, afterKill)
        XCTAssertGreaterThanOrEqual(repaired, recorded - 48000)
        // Every whole frame on disk is in the repaired file: 2 channels × 3 bytes.
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: take)[.size] as? Int)
        XCTAssertLessThan(size - repaired * 6, 200, "only the header (and a pad byte) besides the frames")
        print("kill -9 after \(recorded) frames reported: the header said \(afterKill) frames; repaired: \(repaired) frames")
    }

    /// An offline take stopped by a full disk (a 1 MB tmpfs) says what was
    /// kept, and for FLAC that its end may not decode: only WAV takes are
    /// crash-safe. The same take as WAV makes no such claim.
    func testAFullTakeSaysWhetherItsEndDecodes() throws {
        let input = folder + "/voice.wav"
        let frames = 48_000 * 20
        let writer = try SoundFileWriter(path: input, sampleRate: 48_000, channelCount: 1, sampleFormat: .s16)
        var seed: UInt32 = 5
        try writer.write(interleaved: (0..<frames).map { _ in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return 0.3 * Float(Int32(bitPattern: seed)) / Float(Int32.max)
        })
        try writer.close()
        let disk = try mountSmallDisk(in: folder)
        defer { unmount(disk) }
        for (name, encoded) in [("full.flac", true), ("full.wav", false)] {
            let take = disk + "/" + name
            let r = try runBusker(["record", take, "--input", "file:\(input)"])
            assertOneLineError(r, status: 1, mentioning: "s kept in \(take)")
            XCTAssertEqual(r.stderr.contains("its last frames may not decode"), encoded, r.stderr)
            try FileManager.default.removeItem(atPath: take)
            try? FileManager.default.removeItem(atPath: take + ".log")
        }
    }

    /// A file-size limit (ulimit -f, as a full disk would) mid-take: the take
    /// stops with the reason in one line, busker live goes on playing (its
    /// status lines keep coming, state running), and the file is valid with
    /// every whole frame written before the limit.
    func testAFileSizeLimitStopsTheTakeButNotTheLiveAudio() throws {
        let card = try VirtualSoundCardFixture(name: "busker-rec-full")
        defer { try? card.stop() }
        let take = folder + "/full.wav"
        let limitKiB = 300  // about one second of 48 kHz stereo 24-bit
        let (process, out, err) = try startBusker(["live", "--input", "busker_in", "--output", "busker_out", "--no-tui", "--record", take],
                                                  card: card, fileSizeLimitKiB: limitKiB)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Wait for the failure to show on the status line, then for two more status lines.
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        var linesAfterFailure = 0
        while linesAfterFailure < 3 && Date() < deadline && process.isRunning {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            linesAfterFailure = text.split(separator: "\n").filter { $0.contains("REC FAILED") }.count
        }
        XCTAssertGreaterThanOrEqual(linesAfterFailure, 3, text)
        let failedLines = text.split(separator: "\n").filter { $0.contains("REC FAILED") }
        XCTAssertTrue(failedLines.allSatisfy { $0.contains("] running mic ON") }, "the live audio goes on: \(failedLines)")
        XCTAssertTrue(failedLines.allSatisfy { $0.contains("File too large") }, "\(failedLines)")
        process.interrupt()
        process.waitUntilExit()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        text += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 1, "a take stopped early: \(errors)")
        let errorLines = errors.split(separator: "\n")
        XCTAssertEqual(errorLines.count, 2, errors)
        XCTAssertTrue(errorLines.first?.contains("recording stopped: writing '\(take)' failed: File too large") ?? false, errors)
        XCTAssertTrue(errorLines.last?.hasPrefix("busker: a take stopped early") ?? false, errors)
        XCTAssertTrue(text.contains("stopped by SIGINT"), text)

        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: take)[.size] as? Int)
        XCTAssertLessThanOrEqual(size, limitKiB * 1024)
        let frames = framesLibsndfileReads(take)
        XCTAssertGreaterThan(frames, 0)
        XCTAssertLessThan(size - frames * 6, 200, "the header counts every whole frame in the file")
        if let sox = try soxiSamples(take) { XCTAssertEqual(sox, frames) }
        let log = try String(contentsOfFile: take + ".log", encoding: .utf8)
        XCTAssertTrue(log.contains("recording stopped at") && log.contains("File too large"), log)
        print("file-size limit \(limitKiB) KiB: the take stopped at \(frames) frames (\(size) bytes); the audio went on")
    }

    /// A file-size limit with --stems: the master (stereo), the dry-mic stem
    /// (stereo here) and the strip's stem (mono, so it is the last to reach
    /// the limit) are one take: whichever fails first,
    /// the whole take ends at once: the status line says REC FAILED (never a
    /// master still counting on a stopped switch), and each file's summary
    /// says it stopped early or ended with the one that failed.
    func testAFailedStemOrMasterEndsTheWholeTake() throws {
        let card = try VirtualSoundCardFixture(name: "busker-rec-stemfail")
        defer { try? card.stop() }
        let take = folder + "/both.wav"
        let (process, out, err) = try startBusker(["live", "--input", "busker_in", "--output", "busker_out", "--no-tui", "--record", take, "--stems"],
                                                  card: card, fileSizeLimitKiB: 300)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while text.split(separator: "\n").filter({ $0.contains("REC FAILED") }).count < 2 && Date() < deadline && process.isRunning {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertGreaterThanOrEqual(text.split(separator: "\n").filter { $0.contains("REC FAILED") }.count, 2, text)
        process.interrupt()
        process.waitUntilExit()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        text += String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 1, errors)
        XCTAssertTrue(errors.hasPrefix("busker live: recording stopped: "), errors)
        let summaries = text.split(separator: "\n").filter { $0.hasPrefix("busker live: recorded ") }
        XCTAssertEqual(summaries.count, 3, text)
        XCTAssertTrue(summaries.allSatisfy { $0.contains("STOPPED EARLY") || $0.contains("ENDED EARLY: its ") }, "\(summaries)")
        for (path, bytesPerFrame) in [(take, 6), (folder + "/both-mic.wav", 6), (folder + "/both-strip1.wav", 3)] {
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let frames = framesLibsndfileReads(path)
            XCTAssertGreaterThan(frames, 0)
            XCTAssertLessThan(size - frames * bytesPerFrame, 200, "\(path): finalized")
        }
        print("stem/master file-size limit: \(summaries.joined(separator: " | "))")
    }

    /// busker play --record over a short song on the virtual sound card: the
    /// take and its MIDI file share one timeline. Each note-on in TAKE.mid is
    /// where its sound starts in TAKE.wav (FluidSynth starts notes on its
    /// 64-frame grid, and a piano needs a moment to pass −60 dBFS), and the
    /// notes keep the song's spacing exactly.
    func testPlayRecordsTheMIDIAlongsideTheAudio() throws {
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "TimGM6mb is not installed (timgm6mb-soundfont)")
        let card = try VirtualSoundCardFixture(name: "busker-rec-play")
        defer { try? card.stop() }
        // 480 ticks a quarter at 120 BPM: C4 at 0.5 s for 0.5 s, E4 at 1.25 s for 0.5 s.
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20]
        track += [0x83, 0x60, 0x90, 60, 100, 0x83, 0x60, 0x80, 60, 0, 0x81, 0x70, 0x90, 64, 100, 0x83, 0x60, 0x80, 64, 0, 0x00, 0xFF, 0x2F, 0x00]
        let song = folder + "/song.mid"
        try Data(Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8)
                 + [0, 0, 0, UInt8(track.count)] + track).write(to: URL(fileURLWithPath: song))
        let take = folder + "/played.wav"
        let (process, out, err) = try startBusker(["play", song, "--no-tui", "--output", "busker_out", "--midi", "none",
                                                   "--soundfont", font, "--no-drums", "--record", take], card: card)
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        XCTAssertTrue(text.contains("the song ended"), text)

        let midiPath = folder + "/played.mid"
        let file = try StandardMIDIFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: midiPath))), mode: .strict)
        var noteOns: [Int] = []
        for event in file.timedEvents(ofTrack: 0) {
            if case .message(.noteOn(_, _, let velocity)) = event.kind, velocity > 0 { noteOns.append(Int((event.seconds * 48000).rounded())) }
        }
        XCTAssertEqual(noteOns.count, 2, "\(file)")
        guard noteOns.count == 2 else { return }
        XCTAssertEqual(Double(noteOns[1] - noteOns[0]), 0.75 * 48000, accuracy: 25, "the song's spacing, to a tick")

        let audio = try SoundFileReader(path: take).readAll()  // stereo, interleaved
        func onset(after frame: Int) -> Int? {
            var i = frame
            while i * 2 + 1 < audio.count {
                if abs(audio[i * 2]) > 1e-3 { return i }
                i += 1
            }
            return nil
        }
        let first = try XCTUnwrap(onset(after: 0), "the take holds the song")
        XCTAssertGreaterThanOrEqual(first - noteOns[0], 0, "the sound starts after its note-on, never before")
        XCTAssertLessThanOrEqual(first - noteOns[0], 256, "and within 5.3 ms of it")
        print("play --record: note-on at frame \(noteOns[0]) in the MIDI file, sound from frame \(first) in the WAV (\(first - noteOns[0]) frames later)")
    }

    /// busker live --record --stems: the master, the dry mic stem and the strip's
    /// stem have the same length (one switch, one block); the strip's is mono.
    func testLiveStemsStartAndStopWithTheMaster() throws {
        let card = try VirtualSoundCardFixture(name: "busker-rec-stems")
        defer { try? card.stop() }
        let take = folder + "/stems.wav"
        let (process, out, err) = try startBusker(["live", "--input", "busker_in", "--output", "busker_out", "--no-tui", "--record", take, "--stems"],
                                                  card: card)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let (text, recorded) = readUntilRecorded(48000, from: out, process: process)
        XCTAssertGreaterThanOrEqual(recorded, 48000, text)
        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        let master = framesLibsndfileReads(take), mic = framesLibsndfileReads(folder + "/stems-mic.wav")
        XCTAssertGreaterThanOrEqual(master, recorded)
        XCTAssertEqual(mic, master, "the stem starts and stops with the master")
        let strip = try SoundFileReader(path: folder + "/stems-strip1.wav")
        XCTAssertEqual(strip.channelCount, 1)
        XCTAssertEqual(framesLibsndfileReads(folder + "/stems-strip1.wav"), master, "the strip's stem starts and stops with the master")
    }

    /// Ctrl-R on busker live's screen (in a pseudo-terminal, through script(1))
    /// when the music folder cannot be created: the screen says why, the live
    /// audio goes on (the state stays running), and q still quits cleanly.
    func testACtrlRTakeThatCannotStartLeavesTheAudioRunning() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed (bsdutils)")
        let card = try VirtualSoundCardFixture(name: "busker-rec-key")
        defer { try? card.stop() }
        let unwritable = getuid() == 0 ? "/sys/busker-music" : folder + "/locked/music"
        if getuid() != 0 {
            try FileManager.default.createDirectory(atPath: folder + "/locked", withIntermediateDirectories: true)
            chmod(folder + "/locked", 0o500)
        }
        defer { chmod(folder + "/locked", 0o700) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfc", "\(buskerPath) live --input busker_in --output busker_out", "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(card.asoundrcURL.path)"
        environment["XDG_MUSIC_DIR"] = unwritable
        environment["TERM"] = "xterm"
        process.environment = environment
        let keys = Pipe(), screen = Pipe()
        process.standardInput = keys
        process.standardOutput = screen
        process.standardError = screen
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        func readScreen(until text: String, after start: String.Index? = nil, into buffer: inout String) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && process.isRunning {
                if let from = start ?? buffer.startIndex as String.Index?, buffer[from...].contains(text) { return true }
                let chunk = screen.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                buffer += String(decoding: chunk, as: UTF8.self)
            }
            return buffer.contains(text)
        }
        var buffer = ""
        XCTAssertTrue(readScreen(until: "\u{1B}[32mstate running", into: &buffer), "the live screen came up: \(buffer.suffix(500))")
        keys.fileHandleForWriting.write(Data([0x12]))  // Ctrl-R
        XCTAssertTrue(readScreen(until: "cannot record: cannot record into", into: &buffer), String(buffer.suffix(800)))
        if let range = buffer.range(of: "cannot record: ") { print("Ctrl-R: " + buffer[range.lowerBound...].prefix(100)) }
        let afterFailure = buffer.endIndex
        usleep(300_000)
        XCTAssertTrue(readScreen(until: "\u{1B}[32mstate running", after: afterFailure, into: &buffer), "redrawn, still running")
        // The mic is on: q asks, a second q quits.
        keys.fileHandleForWriting.write(Data("q".utf8))
        XCTAssertTrue(readScreen(until: "q again to quit", after: afterFailure, into: &buffer), String(buffer.suffix(500)))
        keys.fileHandleForWriting.write(Data("q".utf8))
        process.waitUntilExit()
        buffer += String(decoding: screen.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, String(buffer.suffix(500)))
        XCTAssertTrue(buffer.contains("busker live: stopped (q)"), String(buffer.suffix(500)))
    }
}
