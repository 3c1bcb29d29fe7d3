import AudioFiles
import Chains
import Engine
import Foundation
import XCTest

/// The audio backing track measured as a player hears it: pitch and length
/// of a 44.1 kHz file in a 48 kHz session, a pause and a resume without a
/// click, a seek that lands where it was asked, a loop whose seam is as
/// smooth as the music, and an underrun that plays silence and is counted.
///
/// The test files are stereo: the left channel is a tone, for clicks and
/// pitch; the right channel says where it is (frame / 2^20, exact in
/// Float32 below 2^24), so a rendered frame names the file frame it played.
final class BackingTrackNodeTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-backing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Pitch and length

    /// A 2 s, 1 kHz tone at 44.1 kHz in a 48 kHz session: 96,000 frames at
    /// 1 kHz, not 88,200 frames at 1088 Hz (the file's frames played at the
    /// session's rate).
    func testA44100HzFileInA48kHzSessionPlaysAtItsPitchAndLength() throws {
        let path = try writeTrack("tone44.wav", rate: 44_100, seconds: 2, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        node.play()
        var left: [Float] = []
        while !node.hasEnded && left.count < 200_000 { left += player.render(blocks: 1).left }
        let played = node.positionFrames
        // libsamplerate turns n frames into n × ratio rounded either way: one frame.
        XCTAssertEqual(Double(played), 2 * 48_000, accuracy: 1, "frames played")
        XCTAssertEqual(node.durationFrames, 96_000)
        // Zero crossings, interpolated between samples, over 1.5 s of the
        // steady tone: their timing error is a small fraction of a frame over
        // 72,000 frames, far inside 0.1 Hz (0.17 cent; an ear tells ~5 cents).
        let frequency = zeroCrossingFrequency(Array(left[12_000..<84_000]), rate: 48_000)
        XCTAssertEqual(frequency, 1_000, accuracy: 0.1, "measured \(frequency) Hz")
        XCTAssertEqual(node.underrunCount, 0)
        print("backing track 44.1 kHz → 48 kHz: \(played) frames played (96000 expected), tone at \(String(format: "%.4f", frequency)) Hz")
    }

    // MARK: Pause and resume

    /// A pause and a resume in the middle of a tone: no step larger than the
    /// tone's own largest, the position held during the pause, and the track
    /// going on from where it stopped.
    func testPauseAndResumeAreClickFreeAndHoldThePosition() throws {
        let path = try writeTrack("tone48.wav", rate: 48_000, seconds: 3, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        node.play()
        var out = player.render(blocks: 200)
        node.pause()
        out.append(player.render(blocks: 100))
        let heldAt = node.positionFrames
        out.append(player.render(blocks: 50))
        XCTAssertEqual(node.positionFrames, heldAt, "paused, the position holds")
        XCTAssertFalse(node.isPlaying)
        let resumeIndex = out.left.count
        node.resume()
        out.append(player.render(blocks: 200))

        let own = largestStep(toneSamples(rate: 48_000, seconds: 3, frequency: 1_000))
        let step = largestStep(out.left)
        XCTAssertLessThanOrEqual(step, own, "the largest step (\(step)) is the tone's own (\(own)) or less")
        // The pause fades over 10 ms, then silence until the resume.
        let fade = Int(BackingTrackNode.rampSeconds * 48_000)
        let pauseIndex = 200 * 64
        XCTAssertEqual(out.left[(pauseIndex + fade + 1)..<resumeIndex].map(abs).max(), 0, "silent while paused")
        XCTAssertGreaterThan(out.left[pauseIndex..<(pauseIndex + fade / 2)].map(abs).max() ?? 0, 0.1, "it fades, not cuts")
        // After the resume's fade, each frame is the file frame after the one before.
        let after = resumeIndex + fade + 10
        let frame = decodedFrame(out.right[after])
        XCTAssertEqual(frame, heldAt + fade + 10, "the track goes on from where it paused")
        print("backing track pause/resume: largest step \(step), the tone's own \(own); held at frame \(heldAt)")
    }

    // MARK: Seek

    /// A seek from 0.25 s to 3 s: the old place fades out, and the first
    /// frame of the new one is file frame 144,000, within one block.
    func testSeekLandsOnTheAskedFrameWithinOneBlock() throws {
        let run = try SeekRun(rate: 48_000, pacing: .offline, before: 188, to: 3, after: 40, in: folder)
        XCTAssertEqual(run.positionRightAfterTheSeek, 144_000, "the position shows the seek at once")
        let landed = run.landedFileFrame()
        XCTAssertEqual(landed, 144_000, accuracy: 63, "one block")
        let settled = run.landing + run.fade + 5
        for i in settled..<(settled + 1_000) {
            XCTAssertEqual(decodedFrame(run.out.right[i]), decodedFrame(run.out.right[settled]) + i - settled)
        }
        XCTAssertEqual(run.staleFrames(before: 144_000 - 64), [], "nothing from before the seek once it has landed")
        XCTAssertLessThanOrEqual(largestStep(run.out.left), largestStep(toneSamples(rate: 48_000, seconds: 5, frequency: 1_000)))
        print("backing track seek to 3 s: landed on frame \(landed) (144000 asked), \(run.landing - run.seekIndex) frames after the seek (a \(run.fade)-frame fade out)")
    }

    /// Through the resampler (44.1 kHz file, 48 kHz session): a seek to 3 s
    /// plays file frame 132,300 first, within one block (64 session frames,
    /// 58.8 file frames). The right channel, resampled, still names the file
    /// frame (a ramp passes a sinc filter unchanged).
    func testASeekThroughTheResamplerLandsWithinOneBlock() throws {
        let run = try SeekRun(rate: 44_100, pacing: .offline, before: 100, to: 3, after: 60, in: folder)
        let landed = run.landedFileFrame()
        XCTAssertEqual(landed, 132_300, accuracy: 64 * 44_100 / 48_000, "landed on file frame \(landed)")
        print("backing track seek to 3 s through the resampler: landed on file frame \(String(format: "%.2f", landed)) (132300 asked)")
    }

    /// The same with the realtime node, rendered no faster than real time
    /// (a block, then a 1.33 ms sleep): the audio thread never waits for the
    /// reader, so the new place comes a few blocks later, but it is still
    /// the asked frame, nothing stale plays meanwhile, and the wait is not
    /// an underrun.
    func testARealtimeSeekLandsOnTheAskedFrame() throws {
        let run = try SeekRun(rate: 48_000, pacing: .realtime, before: 100, to: 2.5, after: 200, in: folder)
        let landed = run.landedFileFrame()
        XCTAssertEqual(landed, 120_000, accuracy: 63, "one block")
        XCTAssertEqual(run.staleFrames(before: 120_000 - 64), [], "no stale frames")
        XCTAssertEqual(run.node.underrunCount, 0, "waiting for a seek is not an underrun")
        print("backing track realtime seek to 2.5 s: landed on frame \(landed) (120000 asked), \(run.landing - run.seekIndex) frames after the seek")
    }

    /// A seek while paused moves the place and keeps the pause; play after
    /// the end starts again from the beginning.
    func testASeekWhilePausedStaysPausedAndPlayAfterTheEndRestarts() throws {
        let path = try writeTrack("short.wav", rate: 48_000, seconds: 1, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        node.play()
        _ = player.render(blocks: 100)
        node.pause()
        _ = player.render(blocks: 20)
        XCTAssertTrue(node.seek(toSeconds: 0.75))
        let paused = player.render(blocks: 50)
        XCTAssertEqual(paused.left.map(abs).max(), 0, "still paused")
        XCTAssertEqual(node.positionFrames, 36_000)
        node.resume()
        let after = player.render(blocks: 10)
        XCTAssertEqual(decodedFrame(after.right[600]), 36_600, "resumed at the new place")
        _ = player.render(blocks: 300)
        XCTAssertTrue(node.hasEnded)
        XCTAssertFalse(node.isPlaying)
        XCTAssertEqual(node.positionFrames, 48_000)
        node.play()
        let again = player.render(blocks: 20)
        XCTAssertEqual(decodedFrame(again.right[1_000]), 1_000, "from the start again")
        XCTAssertTrue(node.isPlaying)
    }

    // MARK: Loops

    /// A loop of 1.0…1.5 s (500 periods of the tone): every pass is the same
    /// frames, the wrap is frame-exact, and the seam is no step at all.
    func testALoopRepeatsFrameExactAndSeamlessly() throws {
        let path = try writeTrack("loop.wav", rate: 48_000, seconds: 4, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        try node.setLoop(fromSeconds: 1.0, toSeconds: 1.5)
        XCTAssertTrue(node.seek(toSeconds: 1.0))
        node.play()
        let out = player.render(blocks: 2_000)   // 2.67 s: five passes
        let fade = Int(BackingTrackNode.rampSeconds * 48_000)
        let frames = (fade + 64..<out.right.count).map { decodedFrame(out.right[$0]) }
        var wraps = 0
        for i in 1..<frames.count where frames[i] != frames[i - 1] + 1 {
            XCTAssertEqual(frames[i - 1], 71_999, "a pass ends on the loop's last frame")
            XCTAssertEqual(frames[i], 48_000, "and goes on at its first")
            wraps += 1
        }
        XCTAssertGreaterThanOrEqual(wraps, 4)
        XCTAssertTrue(frames.allSatisfy { (48_000..<72_000).contains($0) })
        let own = largestStep(toneSamples(rate: 48_000, seconds: 4, frequency: 1_000))
        XCTAssertLessThanOrEqual(largestStep(out.left), own)
        print("backing track loop 1.0–1.5 s: \(wraps) wraps, largest step \(largestStep(out.left)) (the tone's own \(own))")
    }

    /// A loop ahead of the place and of the reader, set while playing: no
    /// gap at all. The track plays on into the loop and wraps at its end.
    func testALoopSetAheadOfTheReaderStartsWithoutAGap() throws {
        let path = try writeTrack("ahead.wav", rate: 48_000, seconds: 6, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        node.play()
        var out = player.render(blocks: 100)
        try node.setLoop(fromSeconds: 2, toSeconds: 2.5)
        out.append(player.render(blocks: 3_000))   // to 4.1 s: the loop's end, then three passes
        let fade = Int(BackingTrackNode.rampSeconds * 48_000)
        let frames = (fade + 1..<out.right.count).map { decodedFrame(out.right[$0]) }
        var wraps = 0
        for i in 1..<frames.count where frames[i] != frames[i - 1] + 1 {
            XCTAssertEqual([frames[i - 1], frames[i]], [119_999, 96_000], "only the loop's own wrap at \(i)")
            wraps += 1
        }
        XCTAssertEqual(frames.first, fade + 1, "from the start, no seek")
        XCTAssertGreaterThanOrEqual(wraps, 3)
        print("backing track loop set while playing: no gap, \(wraps) wraps")
    }

    /// The same through the resampler: a 44.1 kHz file (441 Hz, so the loop
    /// 1…2 s is 441 whole periods) in a 48 kHz session. The resampler runs on
    /// across the seam, so the largest step near each seam is the tone's own
    /// within 1e-4 of its amplitude (libsamplerate's medium converter is good
    /// for 121 dB SNR: its error is below 1e-5 of the signal; a click is
    /// hundreds of times more).
    func testALoopThroughTheResamplerIsSeamless() throws {
        let path = try writeTrack("loop44.wav", rate: 44_100, seconds: 3, frequency: 441)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        let player = try BlockPlayer(node)
        try node.setLoop(fromSeconds: 1, toSeconds: 2)
        XCTAssertTrue(node.seek(toSeconds: 1))
        node.play()
        let out = player.render(blocks: 3_400)   // 4.5 s: four seams
        let fade = Int(BackingTrackNode.rampSeconds * 48_000)
        // The right channel (the file frame, through the resampler) falls
        // back by 44,100 at each seam, over a few frames of the sinc's ringing.
        let positions = out.right.map { Double($0) * 1_048_576 }
        var seams: [Int] = []
        for i in (fade + 64)..<positions.count where positions[i - 8] - positions[i] > 30_000 {
            if let last = seams.last, i - last < 100 { continue }
            seams.append(i)
        }
        XCTAssertGreaterThanOrEqual(seams.count, 3, "seams at \(seams)")
        var own: Float = 0, atSeams: Float = 0
        for i in (fade + 64)..<out.left.count {
            let step = abs(out.left[i] - out.left[i - 1])
            if seams.contains(where: { abs($0 - i) < 200 }) { atSeams = max(atSeams, step) } else { own = max(own, step) }
        }
        XCTAssertLessThanOrEqual(atSeams, own + 1e-4 * 0.5, "seam step \(atSeams), the tone's own \(own)")
        XCTAssertGreaterThan(own, 0.02)
        print("backing track loop through the resampler: \(seams.count) seams, largest step there \(atSeams), elsewhere \(own)")
    }

    // MARK: Underruns

    /// Rendered far faster than real time, the realtime node outruns its
    /// reader: it plays silence where frames are missing, counts it, and the
    /// frames it does play are the file's, in order.
    func testAnUnderrunPlaysSilenceAndIsCounted() throws {
        let path = try writeTrack("fast.wav", rate: 44_100, seconds: 20, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .realtime)
        let player = try BlockPlayer(node)
        XCTAssertTrue(node.waitUntilBuffered())
        node.play()
        let out = player.render(blocks: 15_000)   // 20 s of blocks in well under a second
        XCTAssertGreaterThan(node.underrunCount, 0)
        XCTAssertGreaterThan(node.underrunFrames, 0)
        let silent = out.left.filter { $0 == 0 }.count
        XCTAssertGreaterThanOrEqual(silent, node.underrunFrames, "every missing frame is silence")
        XCTAssertLessThan(node.positionFrames, 15_000 * 64, "the position counts frames played, not blocks")
        print("backing track underruns: \(node.underrunCount) runs, \(node.underrunFrames) frames of silence in \(15_000 * 64) rendered")
    }

    /// Transport requests that make no sense are refused in words.
    func testALoopOutsideTheTrackIsRefused() throws {
        let path = try writeTrack("short.wav", rate: 48_000, seconds: 1, frequency: 1_000)
        let node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: .offline)
        XCTAssertThrowsError(try node.setLoop(fromSeconds: 2, toSeconds: 3)) { error in
            XCTAssertEqual(error as? BackingTrackError, .loopOutsideTrack(start: 2, end: 3, length: 1))
            XCTAssertEqual("\(error)", "a loop from 2.000 s to 3.000 s does not fit the song (0 to 1.000 s)")
        }
        XCTAssertThrowsError(try node.setLoop(fromSeconds: 0.5, toSeconds: 0.505)) { error in
            XCTAssertEqual(error as? BackingTrackError, .loopTooShort(seconds: 0.505 - 0.5))
        }
        XCTAssertThrowsError(try node.setLoop(fromSeconds: .nan, toSeconds: 1))
        XCTAssertFalse(node.seek(toSeconds: .infinity))
        XCTAssertNil(node.loop)
    }

    // MARK: Helpers

    private func writeTrack(_ name: String, rate: Int, seconds: Double, frequency: Double) throws -> String {
        try writeTestTrack(folder.appendingPathComponent(name).path, rate: rate, seconds: seconds, frequency: frequency)
    }
}

/// Writes a stereo float WAV: left a sine at half scale, right the frame / 2^20.
func writeTestTrack(_ path: String, rate: Int, seconds: Double, frequency: Double) throws -> String {
    let tone = toneSamples(rate: rate, seconds: seconds, frequency: frequency)
    var interleaved = [Float](repeating: 0, count: tone.count * 2)
    for i in 0..<tone.count {
        interleaved[2 * i] = tone[i]
        interleaved[2 * i + 1] = Float(i) / 1_048_576
    }
    let writer = try SoundFileWriter(path: path, sampleRate: rate, channelCount: 2, sampleFormat: .f32)
    try writer.write(interleaved: interleaved)
    try writer.close()
    return path
}

/// A sine at half scale, as the test files hold it.
func toneSamples(rate: Int, seconds: Double, frequency: Double) -> [Float] {
    (0..<Int(seconds * Double(rate))).map { Float(0.5 * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// The largest sample-to-sample step.
func largestStep(_ x: [Float]) -> Float {
    var largest: Float = 0
    for i in x.indices.dropFirst() { largest = max(largest, abs(x[i] - x[i - 1])) }
    return largest
}

/// The file frame a test file's right channel names.
func decodedFrame(_ value: Float) -> Int { Int((Double(value) * 1_048_576).rounded()) }

/// The frequency of a steady tone from its rising zero crossings, each
/// placed between its two samples by linear interpolation.
func zeroCrossingFrequency(_ x: [Float], rate: Double) -> Double {
    var first: Double?, last = 0.0, count = 0
    for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
        let t = Double(i - 1) + Double(-x[i - 1]) / Double(x[i] - x[i - 1])
        if first == nil { first = t }
        last = t
        count += 1
    }
    guard let first, count > 1 else { return 0 }
    return Double(count - 1) / (last - first) * rate
}

/// A 5 s test track played for `before` blocks, a seek to `seconds`, and
/// `after` blocks more; the realtime node is rendered no faster than real time.
struct SeekRun {
    let node: BackingTrackNode
    let out: BlockPlayer.Output
    let fileRate: Int
    let fade = Int(BackingTrackNode.rampSeconds * 48_000)
    /// Where the seek was asked, and where the new place's first frame
    /// played (the first sound after the old place's fade reached silence).
    let seekIndex: Int
    let landing: Int
    let positionRightAfterTheSeek: Int

    init(rate: Int, pacing: BackingTrackNode.Pacing, before: Int, to seconds: Double, after: Int, in folder: URL) throws {
        let path = try writeTestTrack(folder.appendingPathComponent("seek-\(rate).wav").path, rate: rate, seconds: 5, frequency: 1_000)
        node = try BackingTrackNode(path: path, sampleRate: 48_000, pacing: pacing)
        fileRate = rate
        let player = try BlockPlayer(node, realTime: pacing == .realtime)
        if pacing == .realtime { XCTAssertTrue(node.waitUntilBuffered()) }
        node.play()
        var out = player.render(blocks: before)
        seekIndex = out.left.count
        XCTAssertTrue(node.seek(toSeconds: seconds))
        positionRightAfterTheSeek = node.positionFrames
        out.append(player.render(blocks: after))
        self.out = out
        landing = try XCTUnwrap((seekIndex + 1..<out.right.count).first { out.right[$0 - 1] == 0 && out.right[$0] != 0 })
    }

    /// The file frame that played at `landing`, read 100 frames after the
    /// fade-in (where the gain is 1) and counted back.
    func landedFileFrame() -> Double {
        let settled = landing + fade + 100
        return Double(out.right[settled]) * 1_048_576 - Double(settled - landing) * Double(fileRate) / 48_000
    }

    /// Frames after the fade-in that name a file frame before `frame`.
    func staleFrames(before frame: Int) -> [Int] {
        (landing + fade + 5..<out.right.count).filter { decodedFrame(out.right[$0]) < frame }
    }
}

/// Renders a source node block by block on the calling thread, which is
/// then both the audio thread and the control thread (one after the other).
final class BlockPlayer {
    struct Output {
        var left: [Float] = []
        var right: [Float] = []
        mutating func append(_ other: Output) {
            left += other.left
            right += other.right
        }
    }

    let node: AudioNode
    let frames: Int
    /// Sleeps a block's time after each block (at 48 kHz): no faster than a device.
    let realTime: Bool
    private let buffer: AudioBuffer

    init(_ node: AudioNode, rate: Double = 48_000, frames: Int = 64, realTime: Bool = false) throws {
        self.node = node
        self.frames = frames
        self.realTime = realTime
        try node.prepare(NodeFormat(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: frames), inputChannelCounts: [],
                                    outputChannelCount: 2))
        buffer = AudioBuffer(channelCount: 2, capacity: frames)
    }

    func render(blocks: Int) -> Output {
        var out = Output()
        out.left.reserveCapacity(blocks * frames)
        out.right.reserveCapacity(blocks * frames)
        for _ in 0..<blocks {
            node.render(inputs: UnsafeBufferPointer(start: nil, count: 0), output: buffer.block(frames: frames))
            out.left += UnsafeBufferPointer(start: buffer[0], count: frames)
            out.right += UnsafeBufferPointer(start: buffer[1], count: frames)
            if realTime { usleep(UInt32(frames * 1_000_000 / 48_000)) }
        }
        return out
    }
}
