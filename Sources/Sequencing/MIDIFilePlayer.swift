import MIDI
import Synchronization

/// Plays a Standard MIDI File on the audio thread, sample-accurately.
///
/// The file's channel messages are placed on the engine's timeline once, on
/// the control thread, at frames computed exactly from the tempo map. The
/// audio thread then walks them with a cursor: every event lands on its own
/// frame whatever the block size, in live playback and offline renders alike,
/// with no timer thread and no jitter. Play, stop, pause, resume, looping and
/// the tempo scale are atomics the control thread sets; the player's own notes
/// are tracked, so stopping, pausing or looping never leaves a note hanging.
public final class MIDIFilePlayer: @unchecked Sendable {
    /// One channel message at its frame (tempo scale 1).
    struct Event {
        var frame: Int64
        var message: MIDIMessage
    }

    /// What the player is doing, as the control thread sees it.
    public enum State: UInt8, Sendable {
        case stopped, playing, finished, paused
    }

    public let sampleRate: Int
    /// The song's length (its last track end) in frames at tempo scale 1.
    public let lengthFrames: Int64
    /// How many channel messages the song holds.
    public let eventCount: Int

    // MARK: Shared (atomics)
    /// 0 nothing asked, 1 play from the start, 2 stop, 3 pause, 4 resume.
    private let request = Atomic<UInt8>(0)
    private let looping = Atomic<Bool>(false)
    private let tempoScaleBits = Atomic<UInt64>(1.0.bitPattern)
    private let stateValue = Atomic<UInt8>(State.stopped.rawValue)
    private let positionValue = Atomic<Int64>(0)

    // MARK: Audio thread only
    private let events: UnsafeMutablePointer<Event>
    private var cursor = 0
    /// The song position (in song frames) where the current tempo scale took
    /// effect, and the output frames played since. Counting whole output
    /// frames from a base, rather than summing fractional positions, keeps
    /// every event on the same output frame whatever the block size.
    private var songBase = 0.0
    private var sinceBase = 0
    private var scale = 1.0
    private var playing = false
    let heldNotes = HeldNotes()

    /// - Realtime: unsafe (allocates). Control thread.
    public init(file: StandardMIDIFile, sampleRate: Int) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        let map = file.tempoMap()
        var timed: [Event] = []
        for event in file.mergedEvents() {
            guard case .message(let message) = event.kind else { continue }
            timed.append(Event(frame: Int64(map.sampleFrame(atTick: event.tick, sampleRate: sampleRate)), message: message))
        }
        eventCount = timed.count
        events = .allocate(capacity: max(1, timed.count))
        events.initialize(from: timed, count: timed.count)
        let end = Int64(map.sampleFrame(atTick: file.endTick, sampleRate: sampleRate))
        lengthFrames = max(end, timed.last?.frame ?? 0)
    }

    deinit {
        events.deallocate()
    }

    /// The song's messages, in the order they play.
    /// - Realtime: unsafe (allocates). Control thread.
    public func messages() -> [MIDIMessage] {
        (0..<eventCount).map { events[$0].message }
    }

    // MARK: Any thread (atomics; the control thread sets them)

    /// Starts playing from the beginning at the next cycle.
    /// - Thread: any
    /// - Realtime: safe (an atomic store)
    public func play() { request.store(1, ordering: .releasing) }
    /// Stops at the next cycle, ending every note the song holds, and rewinds.
    /// - Thread: any
    /// - Realtime: safe (an atomic store)
    public func stop() { request.store(2, ordering: .releasing) }
    /// Pauses at the next cycle where the song is, ending every note the
    /// song holds (and lifting its sustain); `resume()` goes on from there.
    /// Nothing happens unless the song is playing.
    /// - Thread: any
    /// - Realtime: safe (an atomic store)
    public func pause() { request.store(3, ordering: .releasing) }
    /// Goes on from where `pause()` left the song; nothing happens unless it is paused.
    /// - Thread: any
    /// - Realtime: safe (an atomic store)
    public func resume() { request.store(4, ordering: .releasing) }

    /// Whether the song starts again from the top when it ends.
    /// - Thread: any (the audio thread reads it at the song's end)
    /// - Realtime: safe (an atomic load or store)
    public var isLooping: Bool {
        get { looping.load(ordering: .relaxed) }
        set { looping.store(newValue, ordering: .relaxed) }
    }

    /// Playback speed: 2 plays twice as fast. Clamped to 0.125 … 8.
    /// - Thread: any (the audio thread reads it every cycle)
    /// - Realtime: safe (an atomic load or store)
    public var tempoScale: Double {
        get { Double(bitPattern: tempoScaleBits.load(ordering: .relaxed)) }
        set {
            guard newValue.isFinite else { return }
            tempoScaleBits.store(min(max(newValue, 0.125), 8).bitPattern, ordering: .relaxed)
        }
    }

    /// Stopped, playing or finished, as of the last cycle.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var state: State { State(rawValue: stateValue.load(ordering: .acquiring)) ?? .stopped }

    /// Where the song is, in seconds of the song (tempo scale 1).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var positionSeconds: Double { Double(positionValue.load(ordering: .relaxed)) / Double(sampleRate) }

    // MARK: Audio thread

    /// Places the song's events that fall in the next `frameCount` frames into
    /// `buffer`, and notes them in `heldNotes`.
    /// - Parameter cycleStart: the cycle's first frame on the engine timeline.
    /// - Thread: audio
    /// - Realtime: safe
    func renderCycle(frameCount: Int, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        switch request.exchange(0, ordering: .acquiring) {
        case 1:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            rewind()
            playing = true
            stateValue.store(State.playing.rawValue, ordering: .releasing)
        case 2:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            rewind()
            playing = false
            stateValue.store(State.stopped.rawValue, ordering: .releasing)
        case 3 where playing:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            playing = false
            stateValue.store(State.paused.rawValue, ordering: .releasing)
        case 4 where state == .paused:
            playing = true
            stateValue.store(State.playing.rawValue, ordering: .releasing)
        default:
            break
        }
        guard playing else { return }
        let requestedScale = tempoScale
        if requestedScale != scale {
            // A new tempo scale takes effect from where the song is now.
            songBase += Double(sinceBase) * scale
            sinceBase = 0
            scale = requestedScale
        }
        var done = 0
        while done < frameCount {
            // Output frames (counted from the base) where this cycle ends and where the song ends.
            let cycleEnd = sinceBase + (frameCount - done)
            let songEnd = Int(((Double(lengthFrames) - songBase) / scale).rounded(.up))
            let reachesEnd = songEnd < cycleEnd
            var bufferFull = false
            // Events at the very last frame (final note-offs) still belong to this pass.
            while cursor < eventCount {
                let event = events[cursor]
                let due = Int(((Double(event.frame) - songBase) / scale).rounded(.down))
                if reachesEnd ? due > songEnd : due >= cycleEnd { break }
                // Keep room for the release at the song's end; what does not fit comes next cycle, late but whole.
                guard buffer.freeSpace > heldNotes.count + 17 else {
                    bufferFull = true
                    break
                }
                let offset = min(frameCount - 1, done + max(0, due - sinceBase))
                heldNotes.observe(event.message, at: cycleStart + Int64(offset))
                buffer.insert(event.message, at: offset)
                cursor += 1
            }
            guard reachesEnd && !bufferFull else {
                sinceBase = cycleEnd
                break
            }
            let endOffset = done + max(0, songEnd - sinceBase)
            releaseHeld(at: min(endOffset, frameCount - 1), cycleStart: cycleStart, into: buffer)
            rewind()
            if !isLooping || lengthFrames == 0 {
                playing = false
                stateValue.store(State.finished.rawValue, ordering: .releasing)
                break
            }
            // The next pass starts on the frame where this one ended. It makes
            // progress: the song is at least one frame long, so a pass that
            // starts at the song's start ends at least one output frame later.
            done = endOffset
        }
        positionValue.store(Int64(songBase + Double(sinceBase) * scale), ordering: .relaxed)
    }

    /// Back to the song's start.
    /// - Thread: audio
    /// - Realtime: safe
    private func rewind() {
        cursor = 0
        songBase = 0
        sinceBase = 0
        positionValue.store(0, ordering: .relaxed)
    }

    /// Note-offs (and sustain lifts) at `offset` for every note the song holds.
    /// - Thread: audio
    /// - Realtime: safe
    func releaseHeld(at offset: Int, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        heldNotes.releaseAll { buffer.insert($0, at: offset) }
    }
}
