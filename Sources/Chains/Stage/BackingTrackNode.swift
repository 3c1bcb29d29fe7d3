import AudioFiles
import Engine
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An audio backing track as a stereo source of the render graph: a file
/// streamed from disk by a `SoundFileStream` (its reader thread reads,
/// resamples and fills a ring ahead), played with a transport.
///
/// The transport (control thread): `play`, `pause`, `resume`, `stop`,
/// `rewind`, `seek(toSeconds:)`, `setLoop(fromSeconds:toSeconds:)`,
/// `clearLoop`; `positionSeconds`, `isPlaying`, `hasEnded`. Pause, resume
/// and every seek ramp the gain over `rampSeconds` with a raised cosine, so
/// no sample step is larger than the music's own: a pause fades out over
/// the next 10 ms of the track and stops there, a resume fades in from
/// there; a seek fades the old place out, drops every frame read before it
/// (a generation number in the ring says which), and fades the new place in
/// from its exact first frame once the reader has it, usually within a block
/// or two. A loop wraps in the reader, frame-exact, with the resampler
/// running on across the seam.
///
/// An underrun (the disk slower than the track) fades out what there is,
/// plays silence, counts it (`underrunCount`), and fades in when frames come
/// back; the audio thread never waits. With `Pacing.offline` (a file render,
/// which has no deadline) `render` waits for the reader instead.
public final class BackingTrackNode: AudioNode, @unchecked Sendable {
    /// How `render` treats a reader that is behind.
    public enum Pacing: Sendable {
        /// Never wait: an underrun plays silence (live drivers).
        case realtime
        /// Wait for the reader, up to 2 s a block (offline renders, tests).
        case offline
    }

    /// The ramp of pause, resume and seeks: short enough to feel at once,
    /// long enough (a raised cosine over 480 frames at 48 kHz) that the
    /// ramp's own step is far below a tone's.
    public static let rampSeconds = 0.010
    /// Shorter loops are a buzz, and cost the reader a seek every pass.
    public static let shortestLoopSeconds = 0.010
    /// The longest an offline render waits for the reader in one block.
    static let offlineWaitMicroseconds = 2_000_000

    public let stream: SoundFileStream
    public let pacing: Pacing

    // MARK: Shared (atomics)
    private let playRequested = Atomic<Bool>(false)
    private let requestedGeneration = Atomic<Int>(0)
    private let underruns = Atomic<Int>(0)
    private let underrunFrameCount = Atomic<Int>(0)

    // MARK: Audio thread only
    /// The generation last committed to the stream.
    private var committed = 0
    /// Where the gain is on its ramp: 0 silent … `rampFrames` full.
    private var phase = 0
    private var starving = false

    // MARK: Set in allocate (control thread, before any plan holds the node); read by the audio thread
    private var rampFrames = 1
    /// `rampFrames + 1` gains, raised cosine from 0 to 1.
    private var ramp: UnsafeMutablePointer<Float>?
    /// One block of interleaved stereo frames from the stream.
    private var scratch: UnsafeMutablePointer<Float>?
    private var ratesAgree = false

    // MARK: Control thread only
    private var generation = 0
    /// The track frame a seek asked for, shown until the audio thread lands there.
    private var requestedPosition = 0
    private var loopFrames: Range<Int64>?
    /// The loop in seconds, as asked (the end within the track).
    public private(set) var loop: Range<Double>?

    /// Opens `path` for a session at `sampleRate` and starts reading it.
    /// Prepare the node at the same rate (at another it plays silence).
    /// - Throws: `AudioFileError` naming the file (see `SoundFileStream.init`).
    /// - Thread: control
    /// - Realtime: unsafe (opens a file, allocates, starts the reader thread)
    public init(path: String, sampleRate: Int, pacing: Pacing = .realtime, name: String = "song") throws(AudioFileError) {
        stream = try SoundFileStream(path: path, sampleRate: sampleRate)
        self.pacing = pacing
        super.init(name: name)
    }

    deinit {
        ramp?.deallocate()
        scratch?.deallocate()
    }

    // MARK: Node contract

    public override var inputBusCount: Int { 0 }

    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    /// - Realtime: unsafe (allocates). Control thread.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        ratesAgree = spec.sampleRate == Double(stream.sampleRate)
        rampFrames = max(1, Int((Self.rampSeconds * spec.sampleRate).rounded()))
        ramp?.deallocate()
        let table = UnsafeMutablePointer<Float>.allocate(capacity: rampFrames + 1)
        for i in 0...rampFrames { table[i] = Float(0.5 - 0.5 * cos(Double.pi * Double(i) / Double(rampFrames))) }
        ramp = table
        scratch?.deallocate()
        scratch = .allocate(capacity: 2 * spec.maximumBlockSize)
    }

    // MARK: Control thread: the transport

    /// Plays from the position; from the start after the track has ended.
    /// - Thread: control
    /// - Realtime: unsafe (may ask the reader to seek)
    public func play() {
        if hasEnded { rewind() }
        playRequested.store(true, ordering: .releasing)
    }

    /// Fades out over `rampSeconds` and holds the position.
    /// - Thread: control
    /// - Realtime: safe (an atomic store)
    public func pause() { playRequested.store(false, ordering: .releasing) }

    /// Fades in from where `pause` stopped. The same as `play`.
    /// - Thread: control
    /// - Realtime: unsafe (see `play`)
    public func resume() { play() }

    /// Pauses and goes back to the start.
    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    public func stop() {
        pause()
        rewind()
    }

    /// Seeks to the start. - Returns: see `seek(toSeconds:)`.
    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    @discardableResult
    public func rewind() -> Bool { seek(toSeconds: 0) }

    /// Moves to `seconds` into the track (within 0 and its length), playing
    /// or paused as before (stopped after the end); a loop stays set.
    /// - Returns: false when `seconds` is not finite or the reader has not
    ///   taken the last 64 commands (nothing changed).
    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    @discardableResult
    public func seek(toSeconds seconds: Double) -> Bool {
        guard seconds.isFinite else { return false }
        return seek(toFileFrame: stream.fileFrame(seconds: seconds))
    }

    /// Loops `start`…`end` seconds (an end past the track's is its end):
    /// when the track reaches `end` it goes on at `start`, frame-exact; from
    /// a place before `start` it plays on into the loop. Set while the reader
    /// has not yet read as far as `end`, it starts with no gap; otherwise the
    /// track refills from where it is (from `start` when it is past `end`),
    /// with a seek's fades.
    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    public func setLoop(fromSeconds start: Double, toSeconds end: Double) throws(BackingTrackError) {
        let length = durationSeconds
        guard start.isFinite, end.isFinite, start >= 0, start < end, start < length else {
            throw .loopOutsideTrack(start: start, end: end, length: length)
        }
        let clippedEnd = min(end, length)
        guard clippedEnd - start >= Self.shortestLoopSeconds else { throw .loopTooShort(seconds: clippedEnd - start) }
        let frames = stream.fileFrame(seconds: start)..<stream.fileFrame(seconds: clippedEnd)
        try changeLoop(to: frames)
        loop = start..<clippedEnd
    }

    /// Plays on past the loop's end from the next pass the reader reads
    /// (at once, with a seek's fade, when it has read a pass still to play).
    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    public func clearLoop() throws(BackingTrackError) {
        guard loopFrames != nil else { return }
        try changeLoop(to: nil)
        loop = nil
    }

    // MARK: Control thread: what the screen shows

    /// The track's frame (session rate) playing now; after a seek, where it goes.
    /// - Thread: control
    /// - Realtime: safe (atomic loads)
    public var positionFrames: Int {
        stream.landedGeneration == generation ? stream.position : requestedPosition
    }

    /// - Thread: control
    /// - Realtime: safe
    public var positionSeconds: Double { Double(positionFrames) / Double(stream.sampleRate) }

    /// The track's length at the session's rate.
    /// - Thread: any
    /// - Realtime: safe
    public var durationFrames: Int { stream.frameCount }

    /// - Thread: any
    /// - Realtime: safe
    public var durationSeconds: Double { Double(stream.fileFrameCount) / Double(stream.fileSampleRate) }

    /// Whether the track plays (asked to, and not at its end).
    /// - Thread: control
    /// - Realtime: safe (atomic loads)
    public var isPlaying: Bool { playRequested.load(ordering: .acquiring) && !hasEnded }

    /// Whether the last frame has played (and no seek since).
    /// - Thread: control
    /// - Realtime: safe (an atomic load)
    public var hasEnded: Bool { stream.endedGeneration == generation }

    /// Times the reader fell behind while the track played (each a run of
    /// starved blocks), and the frames played as silence for it.
    /// - Thread: any
    /// - Realtime: safe (atomic loads)
    public var underrunCount: Int { underruns.load(ordering: .relaxed) }
    public var underrunFrames: Int { underrunFrameCount.load(ordering: .relaxed) }

    /// Waits until the reader has filled the ring at the present place (or
    /// read to the end): for tests and offline starts. After a seek, render
    /// a block first (the audio thread drops the old frames).
    /// - Thread: control
    /// - Realtime: unsafe (sleeps)
    public func waitUntilBuffered(timeoutSeconds: Double = 5) -> Bool {
        stream.waitUntilFilled(generation: generation, timeoutSeconds: timeoutSeconds)
    }

    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    private func seek(toFileFrame frame: Int64) -> Bool {
        // After the end the track has stopped: a seek (or a loop) moves the
        // place, and `play` starts it.
        if hasEnded { pause() }
        guard let next = stream.requestSeek(toFileFrame: frame, loop: loopFrames) else { return false }
        generation = next
        requestedPosition = stream.position(ofFileFrame: frame)
        requestedGeneration.store(next, ordering: .releasing)
        return true
    }

    /// - Thread: control
    /// - Realtime: unsafe (signals the reader)
    private func changeLoop(to frames: Range<Int64>?) throws(BackingTrackError) {
        let here = stream.fileFrame(position: positionFrames)
        let previous = loopFrames
        loopFrames = frames
        if stream.loopCanChangeWithoutGap(to: frames, generation: generation, atFileFrame: here) && stream.requestLoop(frames) {
            return
        }
        let target = frames.map { here < $0.upperBound ? here : $0.lowerBound } ?? here
        guard seek(toFileFrame: target) else {
            loopFrames = previous
            throw .readerBehind
        }
    }

    // MARK: Audio thread

    /// Silences at once (the ramp back to 0); the place in the track stays.
    /// - Thread: audio, control
    /// - Realtime: safe
    public override func reset() { phase = 0 }

    /// Renders the block: the track's frames under the transport's ramp.
    /// - Thread: audio
    /// - Realtime: safe (wait-free ring and queues, preallocated buffers; with
    ///   `Pacing.offline` it sleeps while the reader is behind)
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.clear()
        guard ratesAgree, let scratch, let ramp else { return }
        let requested = requestedGeneration.load(ordering: .acquiring)
        var seekPending = requested != committed
        if phase == 0 && seekPending {
            // Silent (faded out, paused or never started): the seek can take over.
            stream.commit(generation: requested)
            committed = requested
            seekPending = false
        }
        let audible = playRequested.load(ordering: .acquiring) && !seekPending
        if phase == 0 && !audible {
            stream.discardStale()
            return
        }
        // Fading out, only the frames up to silence are taken: a pause holds
        // the position exactly where the fade ended.
        let need = audible ? output.frameCount : min(output.frameCount, phase)
        var got = stream.read(into: scratch, frames: need)
        if got < need && pacing == .offline { got = waitForReader(got: got, need: need, seekPending: seekPending) }
        let left = output[0], right = output[1]
        Self.applyRamp(scratch, left: left, right: right, frames: got, ramp: ramp, rampFrames: rampFrames,
                       phase: &phase, rising: audible)
        if got < need { endEarly(left: left, right: right, got: got, need: need, seekPending: seekPending) }
        else { starving = false }
    }

    /// The stream gave fewer frames than the block needs: the track ended,
    /// the old place ran out during a seek's fade, or the reader is behind
    /// (counted). Fades out what there is, so the cut does not click.
    /// - Thread: audio
    /// - Realtime: safe
    private func endEarly(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, got: Int, need: Int, seekPending: Bool) {
        if stream.isAtEnd {
            phase = 0
            return
        }
        if let ramp, phase > 0 { Self.fadeTail(left: left, right: right, frames: got, ramp: ramp, rampFrames: rampFrames) }
        phase = 0
        if seekPending || stream.isAwaitingGeneration { return }
        if !starving { underruns.add(1, ordering: .relaxed) }
        starving = true
        underrunFrameCount.add(need - got, ordering: .relaxed)
    }

    /// Deinterleaves `frames` frames under the ramp, moving `phase` one
    /// step a frame towards full (`rising`) or silence.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic only.
    @_noLocks
    private static func applyRamp(_ source: UnsafePointer<Float>, left: UnsafeMutablePointer<Float>,
                                  right: UnsafeMutablePointer<Float>, frames: Int, ramp: UnsafePointer<Float>,
                                  rampFrames: Int, phase: inout Int, rising: Bool) {
        var at = phase
        for i in 0..<frames {
            at = rising ? min(at + 1, rampFrames) : max(at - 1, 0)
            let gain = ramp[at]
            left[i] = source[2 * i] * gain
            right[i] = source[2 * i + 1] * gain
        }
        phase = at
    }

    /// Fades the last frames (up to a ramp's length) of `frames` down to 0.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic only.
    @_noLocks
    private static func fadeTail(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int,
                                 ramp: UnsafePointer<Float>, rampFrames: Int) {
        let span = min(frames, rampFrames)
        for j in 0..<span {
            let gain = ramp[(span - 1 - j) * rampFrames / span]
            left[frames - span + j] *= gain
            right[frames - span + j] *= gain
        }
    }

    /// Offline: waits for the reader, in 100 µs naps, until the block's
    /// frames are there, the track ends or the old place runs out.
    /// - Thread: audio (offline renders only)
    /// - Realtime: unsafe (sleeps; an offline render has no deadline)
    private func waitForReader(got: Int, need: Int, seekPending: Bool) -> Int {
        guard let scratch else { return got }
        var got = got
        var waited = 0
        while got < need && waited < Self.offlineWaitMicroseconds {
            if stream.isAtEnd || (seekPending && stream.reachedNewerGeneration) { break }
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
            waited += 100
            got += stream.read(into: scratch + 2 * got, frames: need - got)
        }
        return got
    }
}
