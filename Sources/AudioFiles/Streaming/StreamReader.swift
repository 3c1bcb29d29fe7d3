import Dispatch
import Synchronization

/// The reader thread of a `SoundFileStream`: reads the file in chunks,
/// repairs non-finite samples, takes the first two channels (a mono file's
/// one channel twice), resamples to the session's rate, and writes the
/// frames into the ring with the markers that say what they are. It wraps
/// at a loop's end (the resampler goes on across the seam, so the seam is
/// as smooth as the file there) and restarts at a seek.
///
/// It sleeps on `StreamShared.wake` when the ring is full or the track has
/// ended: the control thread signals it after a command, and the wait times
/// out every `pollMilliseconds` so that it tops up what the audio thread
/// has played (the audio thread signals nothing).
final class StreamReader: @unchecked Sendable {
    /// How long the reader sleeps before it looks at the ring again: a
    /// small part of the ring's 1.5 s, and long enough that an idle reader
    /// costs nothing to speak of.
    static let pollMilliseconds = 5
    /// A sample this large (+96 dBFS) or not finite is damage, not sound:
    /// the engine would silence the whole block (`AudioBlock.holdsFault`).
    static let largestSample: Float = 65_536

    private let reader: SoundFileReader
    private let resampler: Resampler?
    private let shared: StreamShared
    /// Session rate / file rate.
    private let ratio: Double
    /// File frames read at a time.
    let chunkFrames: Int
    /// Ring samples that must be free before a chunk is read: its frames
    /// after resampling, and what a flush at the end may add.
    let samplesNeededForChunk: Int
    private let fileChunk: UnsafeMutablePointer<Float>
    private let stereoChunk: UnsafeMutablePointer<Float>

    // MARK: Reader thread only
    private var generation = 0
    /// The next file frame to read.
    private var frame: Int64 = 0
    private var loop: Range<Int64>?
    /// Frames written to the ring since the stream began.
    private var written = 0
    /// Where the frames read since the last seek or wrap begin: in the ring
    /// (fractional, so that many passes of a loop do not drift) and in the file.
    private var segmentRingStart = 0.0
    private var segmentFileStart: Int64 = 0
    private var wraps = 0
    private var ended = false
    /// The start marker of `generation` is still to be pushed.
    private var startPending = true
    /// A seek came while a chunk waited for room: the rest of it is stale.
    private var abandoned = false

    /// - Realtime: unsafe (allocates). Control thread, before the thread starts.
    init(reader: SoundFileReader, resampler: Resampler?, shared: StreamShared, ratio: Double, ringFrames: Int) {
        self.reader = reader
        self.resampler = resampler
        self.shared = shared
        self.ratio = ratio
        // A chunk's output fills at most a quarter of the ring, so the reader
        // tops it up in several steps rather than waiting for it to empty.
        chunkFrames = max(16, min(4096, Int(Double(ringFrames / 4) / max(ratio, 1))))
        samplesNeededForChunk = 2 * (Int((Double(chunkFrames) * ratio).rounded(.up)) + 64 + Int(512 * ratio))
        fileChunk = .allocate(capacity: chunkFrames * reader.channelCount)
        stereoChunk = .allocate(capacity: chunkFrames * 2)
    }

    deinit {
        fileChunk.deallocate()
        stereoChunk.deallocate()
    }

    // MARK: Reader thread

    /// The thread's body: until the stream is released.
    /// - Thread: reader
    /// - Realtime: unsafe (file I/O, sleeps)
    func run() {
        while shared.running.load(ordering: .acquiring) {
            applyCommands()
            if startPending {
                guard push(.start, ringFrame: written, position: position(of: frame)) else { sleep(); continue }
                startPending = false
                segmentRingStart = Double(written)
                segmentFileStart = frame
            }
            if ended || shared.ring.availableToWrite < samplesNeededForChunk || shared.markers.count > shared.markers.capacity - 4 {
                sleep()
                continue
            }
            readChunk()
        }
    }

    /// - Thread: reader
    /// - Realtime: unsafe (file I/O)
    private func applyCommands() {
        while let command = shared.commands.pop() {
            switch command {
            case let .seek(newGeneration, to, newLoop):
                generation = newGeneration
                loop = newLoop
                frame = max(0, min(to, reader.frameCount))
                ended = false
                wraps = 0
                startPending = true
                resampler?.reset()
                do { try reader.seek(toFrame: frame) } catch { fail(error) }
                shared.readerWraps.store(0, ordering: .relaxed)
                shared.readerFrame.store(Int(frame), ordering: .relaxed)
                shared.readerGeneration.store(newGeneration, ordering: .releasing)
            case let .loop(newLoop):
                loop = newLoop
                // The control thread asks for a loop without a gap only while
                // the reader is a chunk short of its end; had the reader got
                // past it meanwhile, the loop starts from here.
                if let newLoop, frame > newLoop.upperBound, !ended { wrap() }
            }
        }
    }

    /// Reads one chunk (up to the loop's end), delivers it, and wraps or ends.
    /// - Thread: reader
    /// - Realtime: unsafe (file I/O, allocates in the resampler)
    private func readChunk() {
        abandoned = false
        var want = chunkFrames
        let loopArmed = loop.map { frame < $0.upperBound } ?? false
        if loopArmed, let loop { want = min(want, Int(loop.upperBound - frame)) }
        var count = 0
        var failed = false
        do { count = try reader.read(into: fileChunk, frames: want) } catch {
            fail(error)
            failed = true
        }
        if count > 0 {
            makeStereo(count)
            frame += Int64(count)
            shared.readerFrame.store(Int(frame), ordering: .relaxed)
            deliver(stereoChunk, frames: count, endOfInput: false)
        }
        if failed {
            finish()
        } else if loopArmed, let loop, frame >= loop.upperBound || (count == 0 && frame > loop.lowerBound) {
            wrap()   // at the loop's end, or at the file's end inside the loop
        } else if count == 0 {
            finish()
        }
    }

    /// Back to the loop's start: a wrap marker where the loop's end falls in
    /// the ring, and the file read from the start again. The resampler is not
    /// reset, so it converts across the seam as across any two frames.
    /// - Thread: reader
    /// - Realtime: unsafe (file I/O)
    private func wrap() {
        guard let loop else { return }
        let seam = segmentRingStart + Double(frame - segmentFileStart) * ratio
        guard push(.wrap, ringFrame: Int(seam.rounded()), position: position(of: loop.lowerBound)) else { return }
        segmentRingStart = seam
        segmentFileStart = loop.lowerBound
        frame = loop.lowerBound
        wraps += 1
        do { try reader.seek(toFrame: frame) } catch {
            fail(error)
            finish()
        }
        shared.readerFrame.store(Int(frame), ordering: .relaxed)
        shared.readerWraps.store(wraps, ordering: .releasing)
    }

    /// The end of this generation: the resampler's last frames, then the end marker.
    /// - Thread: reader
    /// - Realtime: unsafe (allocates in the resampler)
    private func finish() {
        abandoned = false
        if resampler != nil { deliver(stereoChunk, frames: 0, endOfInput: true) }
        guard push(.end, ringFrame: written, position: position(of: frame)) else { return }
        ended = true
        shared.readerEndedGeneration.store(generation, ordering: .releasing)
    }

    /// The first two channels (one twice for mono), with damage written as 0.
    /// - Thread: reader
    /// - Realtime: safe
    private func makeStereo(_ frames: Int) {
        let channels = reader.channelCount
        var repaired = 0
        for i in 0..<frames {
            let left = fileChunk[i * channels]
            let right = channels > 1 ? fileChunk[i * channels + 1] : left
            stereoChunk[2 * i] = Self.clean(left, &repaired)
            stereoChunk[2 * i + 1] = Self.clean(right, &repaired)
        }
        if repaired > 0 { shared.repairedSamples.add(repaired, ordering: .relaxed) }
    }

    @inline(__always)
    private static func clean(_ x: Float, _ repaired: inout Int) -> Float {
        if x.isFinite && abs(x) < largestSample { return x }
        repaired += 1
        return 0
    }

    /// Resamples (when the rates differ) and writes into the ring.
    /// - Thread: reader
    /// - Realtime: unsafe (allocates in the resampler, sleeps while the ring is full)
    private func deliver(_ stereo: UnsafeMutablePointer<Float>, frames: Int, endOfInput: Bool) {
        guard let resampler else {
            write(stereo, frames: frames)
            return
        }
        do {
            try resampler.process(stereo, frames: frames, endOfInput: endOfInput) { out, count in write(out, frames: count) }
        } catch {
            fail(error)
        }
    }

    /// Writes `frames` frames, waiting for room; gives up on them when a seek
    /// is waiting (they are stale) or the stream is released.
    /// - Thread: reader
    /// - Realtime: unsafe (sleeps)
    private func write(_ source: UnsafePointer<Float>, frames: Int) {
        var done = 0
        while done < frames * 2 && !abandoned {
            done += shared.ring.write(source + done, count: frames * 2 - done)
            if done < frames * 2 {
                if !shared.running.load(ordering: .relaxed) || seekIsWaiting() {
                    abandoned = true
                } else {
                    sleep()
                }
            }
        }
        written += done / 2
    }

    /// Pushes a marker, waiting for room in the queue (the audio thread
    /// frees it every block, even paused); false when a seek or the release
    /// comes first.
    /// - Thread: reader
    /// - Realtime: unsafe (sleeps)
    private func push(_ kind: StreamMarker.Kind, ringFrame: Int, position: Int) -> Bool {
        let marker = StreamMarker(kind: kind, generation: generation, ringFrame: ringFrame, position: position)
        while !shared.markers.push(marker) {
            if !shared.running.load(ordering: .relaxed) || (kind != .start && seekIsWaiting()) { return false }
            sleep()
        }
        return true
    }

    private func seekIsWaiting() -> Bool {
        if let command = shared.commands.peek(), case .seek = command { return true }
        return false
    }

    private func fail(_ error: AudioFileError) {
        shared.failure.withLock { if $0 == nil { $0 = error } }
    }

    /// The track's frame at the session's rate for the file's `frame`.
    private func position(of frame: Int64) -> Int { Int((Double(frame) * ratio).rounded()) }

    private func sleep() {
        _ = shared.wake.wait(timeout: .now() + .milliseconds(Self.pollMilliseconds))
    }
}
