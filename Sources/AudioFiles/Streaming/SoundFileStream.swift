import Dispatch
import Engine
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An audio file streamed from disk as stereo frames at the session's rate,
/// for a backing track: a reader thread (`StreamReader`, named
/// `backing-reader`) reads the file (anything libsndfile reads: WAV, FLAC,
/// Ogg, MP3, …), takes its first two channels (a mono file's one twice),
/// resamples it with libsamplerate when its rate differs, and keeps a
/// lock-free ring (`SampleRing`) of about `ringSeconds` full; the audio
/// thread reads the ring.
///
/// Seeks and loops: the control thread asks for them (`requestSeek`,
/// `requestLoop`), the reader carries them out. Every seek starts a new
/// generation; a marker in ring order (`StreamMarker`) says where its frames
/// start, where a loop wraps and where the track ends, so that the audio
/// thread, once it has `commit`ted a generation, drops every older frame and
/// plays the new one from its exact first frame. The position it publishes
/// is the track's frame (at the session's rate) it plays next.
///
/// Threads: the initializer and `request…` on the control thread; `commit`,
/// `read`, `discardStale` and `is…` on the audio thread (the ring's one
/// consumer); the counters from any thread.
public final class SoundFileStream: @unchecked Sendable {
    public static let readerThreadName = "backing-reader"
    /// About 1.5 s of read-ahead: a disk that stalls for a second (a spinning
    /// disk waking, a busy SD card) is not heard.
    public static let defaultRingSeconds = 1.5

    public let path: String
    /// The file's own rate, channel count and frames.
    public let fileSampleRate: Int
    public let fileChannelCount: Int
    public let fileFrameCount: Int64
    /// The session's rate: what `read` delivers.
    public let sampleRate: Int
    /// The track's length in frames at `sampleRate`.
    public let frameCount: Int
    /// The ring's size in stereo frames.
    public let ringFrames: Int
    /// Session rate / file rate.
    public let ratio: Double
    /// Frames of a new generation the ring holds before the audio thread
    /// plays it (all of them when the generation ends sooner): 2,048, 43 ms
    /// at 48 kHz, a few periods of any driver while the reader writes more.
    public let landingFrames: Int

    private let shared: StreamShared
    private let reader: StreamReader
    private let thread: RealtimeThread

    // MARK: Audio thread only
    /// Frames taken out of the ring (read or dropped) since the stream began.
    private var consumed = 0
    /// The generation the audio thread wants, and the one it plays (−1 before the first).
    private var committed = 0
    private var playing = -1
    private var playedPosition = 0
    private var playedWraps = 0
    private var atEnd = false

    // MARK: Control thread only
    private var lastGeneration = 0

    /// Opens `path` and starts its reader thread, which begins reading from
    /// the start (generation 0) at once.
    /// - Parameters:
    ///   - sampleRate: the session's rate.
    ///   - ringSeconds: the read-ahead.
    /// - Throws: `AudioFileError` naming the file: missing, not a regular file,
    ///   not a format libsndfile reads, no audio, more than 8 channels, or a
    ///   rate that cannot be converted to `sampleRate`.
    /// - Thread: control
    /// - Realtime: unsafe (opens a file, allocates, starts a thread)
    public init(path: String, sampleRate: Int, ringSeconds: Double = SoundFileStream.defaultRingSeconds,
                threadName: String = SoundFileStream.readerThreadName) throws(AudioFileError) {
        precondition(sampleRate > 0 && ringSeconds > 0)
        self.path = path
        if let problem = Self.notARegularFile(path) { throw .cannotOpen(path: path, reason: problem) }
        let file = try SoundFileReader(path: path, acceptsTruncation: true)
        guard (1...8).contains(file.channelCount) else {
            throw .unsupported(path: path, reason: "\(file.channelCount) channels; a backing track has 1 to 8")
        }
        guard file.frameCount > 0 else { throw .unsupported(path: path, reason: "holds no audio") }
        var resampler: Resampler?
        if file.sampleRate != sampleRate {
            do { resampler = try Resampler(fromRate: file.sampleRate, toRate: sampleRate, channelCount: 2) } catch {
                throw .unsupported(path: path, reason: "its rate of \(file.sampleRate) Hz cannot be converted to \(sampleRate) Hz")
            }
        }
        fileSampleRate = file.sampleRate
        fileChannelCount = file.channelCount
        fileFrameCount = file.frameCount
        self.sampleRate = sampleRate
        ratio = Double(sampleRate) / Double(file.sampleRate)
        frameCount = Int((Double(file.frameCount) * ratio).rounded())
        ringFrames = max(1024, Int((ringSeconds * Double(sampleRate)).rounded(.up)))
        landingFrames = min(2_048, ringFrames / 4)
        let shared = StreamShared(ringFrames: ringFrames)
        let reader = StreamReader(reader: file, resampler: resampler, shared: shared, ratio: ratio, ringFrames: ringFrames)
        self.shared = shared
        self.reader = reader
        shared.landedGeneration.store(-1, ordering: .relaxed)
        thread = RealtimeThread(name: threadName) { reader.run() }
    }

    /// Stops and joins the reader thread.
    /// - Thread: control
    /// - Realtime: unsafe (joins a thread, frees)
    deinit {
        shared.running.store(false, ordering: .releasing)
        shared.wake.signal()
        thread.join()
    }

    private static func notARegularFile(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFDIR: return "is a directory"
        case S_IFIFO: return "is a FIFO, not a file"
        default: return "is not a regular file"
        }
    }

    // MARK: Control thread

    /// The file frame for `seconds` into the track, within the file.
    /// - Thread: any
    /// - Realtime: safe
    public func fileFrame(seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        return max(0, min(fileFrameCount, Int64((seconds * Double(fileSampleRate)).rounded())))
    }

    /// The file frame that the track's frame `position` (session rate) plays.
    /// - Thread: any
    /// - Realtime: safe
    public func fileFrame(position: Int) -> Int64 {
        max(0, min(fileFrameCount, Int64((Double(position) / ratio).rounded())))
    }

    /// The track's frame at the session's rate that the file's `frame` plays.
    /// - Thread: any
    /// - Realtime: safe
    public func position(ofFileFrame frame: Int64) -> Int { Int((Double(frame) * ratio).rounded()) }

    /// Asks the reader to read from the file's `frame` on, looping `loop`,
    /// as a new generation; the audio thread plays it once it `commit`s it.
    /// - Returns: the new generation, or nil when the reader has 64 commands
    ///   it has not taken yet (nothing was asked).
    /// - Thread: control (the command queue's one producer)
    /// - Realtime: unsafe (signals a semaphore)
    public func requestSeek(toFileFrame frame: Int64, loop: Range<Int64>?) -> Int? {
        let generation = lastGeneration + 1
        guard shared.commands.push(.seek(generation: generation, frame: frame, loop: loop)) else { return nil }
        lastGeneration = generation
        shared.wake.signal()
        return generation
    }

    /// Asks the reader to loop `loop` (nil: to stop looping) from the frames
    /// it reads next, leaving the frames already read; see `loopCanChangeWithoutGap`.
    /// - Returns: false when the command queue is full (nothing was asked).
    /// - Thread: control (the command queue's one producer)
    /// - Realtime: unsafe (signals a semaphore)
    public func requestLoop(_ loop: Range<Int64>?) -> Bool {
        guard shared.commands.push(.loop(loop)) else { return false }
        shared.wake.signal()
        return true
    }

    /// Whether `requestLoop(loop)` changes the loop with no gap for a part
    /// playing `generation` at the file's `frame`: the reader has not yet
    /// read a pass of the old loop that is still to play, has not read to
    /// the track's end, and (for a new loop) `frame` is before the loop's
    /// end and the reader at least a chunk short of it. Otherwise the part
    /// seeks to where it is, with the new loop.
    /// - Thread: control
    /// - Realtime: safe (atomic loads)
    public func loopCanChangeWithoutGap(to loop: Range<Int64>?, generation: Int, atFileFrame frame: Int64) -> Bool {
        guard shared.landedGeneration.load(ordering: .acquiring) == generation,
              shared.readerGeneration.load(ordering: .acquiring) == generation,
              shared.readerEndedGeneration.load(ordering: .acquiring) != generation,
              shared.readerWraps.load(ordering: .acquiring) == shared.playedWraps.load(ordering: .acquiring) else { return false }
        guard let loop else { return true }
        return frame < loop.upperBound && Int64(shared.readerFrame.load(ordering: .acquiring) + reader.chunkFrames) <= loop.upperBound
    }

    /// Waits until the reader has filled the ring for `generation` or
    /// reached its end: for tests and offline runs that start at a known fill.
    /// - Returns: false after `timeoutSeconds`.
    /// - Thread: control
    /// - Realtime: unsafe (sleeps)
    public func waitUntilFilled(generation: Int, timeoutSeconds: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeoutSeconds) * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            let reading = shared.readerGeneration.load(ordering: .acquiring) == generation && shared.commands.count == 0
            let full = shared.readerEndedGeneration.load(ordering: .acquiring) == generation
                || shared.ring.availableToWrite < reader.samplesNeededForChunk
            if reading && full { return true }
            usleep(1000)
        }
        return false
    }

    // MARK: Any thread

    /// The generation whose first frame the audio thread has reached (−1 before the first).
    /// - Thread: any
    /// - Realtime: safe
    public var landedGeneration: Int { shared.landedGeneration.load(ordering: .acquiring) }

    /// The track's frame (session rate) the audio thread plays next, in `landedGeneration`.
    /// - Thread: any
    /// - Realtime: safe
    public var position: Int { shared.position.load(ordering: .acquiring) }

    /// The generation whose last frame the audio thread has played (−1: none).
    /// - Thread: any
    /// - Realtime: safe
    public var endedGeneration: Int { shared.endedGeneration.load(ordering: .acquiring) }

    /// Frames in the ring, of any generation.
    /// - Thread: any
    /// - Realtime: safe
    public var bufferedFrames: Int { shared.ring.availableToRead / 2 }

    /// Samples of the file that were NaN, ±Inf or ±2^16 and over, played as 0.
    /// - Thread: any
    /// - Realtime: safe
    public var repairedSampleCount: Int { shared.repairedSamples.load(ordering: .relaxed) }

    /// The read error that ended the track early (a disk error, a file cut
    /// while playing), if any: what was read before it plays.
    /// - Thread: control
    /// - Realtime: unsafe (takes a lock the reader thread shares)
    public var failure: AudioFileError? { shared.failure.withLock { $0 } }

    // MARK: Audio thread

    /// Plays `generation` from now on: frames of older generations are
    /// dropped, and `read` delivers nothing until the new one's first frame
    /// is in the ring.
    /// - Thread: audio
    /// - Realtime: safe
    public func commit(generation: Int) {
        committed = generation
        settle()
    }

    /// Whether the committed generation's first frame has not arrived yet.
    /// - Thread: audio
    /// - Realtime: safe
    public var isAwaitingGeneration: Bool { committed != playing }

    /// Whether the playing generation has no more frames.
    /// - Thread: audio
    /// - Realtime: safe
    public var isAtEnd: Bool { atEnd && committed == playing }

    /// Whether the frames of the playing generation are used up because a
    /// newer generation's frames follow (a seek not yet committed).
    /// - Thread: audio
    /// - Realtime: safe
    public var reachedNewerGeneration: Bool {
        guard let marker = shared.markers.peek() else { return false }
        return committed == playing && marker.generation != playing && marker.ringFrame <= consumed
    }

    /// Reads up to `frames` interleaved stereo frames of the committed
    /// generation into `destination`. Fewer when the track has ended, the
    /// generation has not arrived, a newer one follows, or the reader is
    /// behind (an underrun).
    /// - Thread: audio (the ring's one consumer)
    /// - Realtime: safe (wait-free ring and queue; no allocation)
    public func read(into destination: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        var done = 0
        while done < frames {
            settle()
            if committed != playing || atEnd { break }
            // The ring's fill first, then the markers: a marker is pushed
            // before the frames it names are written, so it is seen here.
            var count = min(frames - done, shared.ring.availableToRead / 2)
            if let marker = shared.markers.peek() { count = min(count, marker.ringFrame - consumed) }
            if count <= 0 { break }
            let got = shared.ring.read(into: destination + 2 * done, count: 2 * count) / 2
            consumed += got
            playedPosition += got
            done += got
        }
        shared.position.store(playedPosition, ordering: .releasing)
        return done
    }

    /// Drops what the committed generation will never play and applies the
    /// markers due: called every block, also while paused, so that the
    /// reader can fill the ring with the frames that will play.
    /// - Thread: audio
    /// - Realtime: safe
    public func discardStale() { settle() }

    /// Applies every marker at or before the consumer's place in the ring.
    /// - Thread: audio
    /// - Realtime: safe
    private func settle() {
        while true {
            if committed != playing {
                let available = shared.ring.availableToRead / 2
                guard let marker = shared.markers.peek() else {
                    drop(available)
                    return
                }
                if marker.generation > committed {
                    // A later seek than the one committed: its frames wait for it.
                    drop(min(available, marker.ringFrame - consumed))
                    return
                }
                if marker.generation == committed && marker.kind == .start {
                    drop(marker.ringFrame - consumed)
                    // Land with some frames in hand, or the first block after
                    // the seek would starve on the reader's first chunk.
                    if shared.ring.availableToRead / 2 < landingFrames
                        && shared.readerEndedGeneration.load(ordering: .acquiring) != committed { return }
                    _ = shared.markers.pop()
                    land(at: marker.position)
                    continue
                }
                drop(min(available, marker.ringFrame - consumed))
                _ = shared.markers.pop()
            } else {
                guard let marker = shared.markers.peek(), marker.ringFrame <= consumed, marker.generation == playing else { return }
                _ = shared.markers.pop()
                switch marker.kind {
                case .wrap:
                    playedPosition = marker.position + (consumed - marker.ringFrame)
                    playedWraps += 1
                    shared.playedWraps.store(playedWraps, ordering: .releasing)
                    shared.position.store(playedPosition, ordering: .releasing)
                case .end:
                    atEnd = true
                    shared.endedGeneration.store(playing, ordering: .releasing)
                case .start:
                    break
                }
            }
        }
    }

    /// - Thread: audio
    /// - Realtime: safe
    private func land(at position: Int) {
        playing = committed
        playedPosition = position
        playedWraps = 0
        atEnd = false
        shared.playedWraps.store(0, ordering: .relaxed)
        shared.position.store(position, ordering: .relaxed)
        shared.landedGeneration.store(playing, ordering: .releasing)
    }

    /// - Thread: audio
    /// - Realtime: safe
    private func drop(_ frames: Int) {
        guard frames > 0 else { return }
        consumed += shared.ring.discard(count: 2 * frames) / 2
    }
}
