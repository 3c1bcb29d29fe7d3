import Engine
import MIDI
import Synchronization

/// Plays a Standard MIDI File on the audio thread, sample-accurately, with a
/// transport: play, stop, pause, resume, seek by bar or seconds, a loop
/// section, the whole song looping, a tempo scale and a transposition.
///
/// The file's channel messages are placed on the engine's timeline once, on
/// the control thread, at frames computed exactly from the tempo map. The
/// audio thread then walks them with a cursor: every event lands on its own
/// frame whatever the block size, in live playback and offline renders alike,
/// with no timer thread and no jitter. The control thread moves the transport
/// through a queue of commands the audio thread carries out at the start of a
/// cycle, in order (a seek and a resume sent together act together); what a
/// seek needs (the frame, the event to go on from, the song's state there) is
/// worked out on the control thread before it is queued. The looping flag,
/// the tempo scale and the transposition are atomics read every cycle. The
/// player tracks the notes it sent, so stopping, pausing, seeking or looping
/// never leaves a note hanging. The rules: docs/song-transport.md.
public final class MIDIFilePlayer: @unchecked Sendable {
    /// One channel message at its frame (tempo scale 1).
    struct Event {
        var frame: Int64
        var message: MIDIMessage
    }

    /// What the control thread asks of the audio thread.
    enum Command {
        case play, stop, pause, resume
        /// Go on from song frame `frame`, whose first event at or after it is `cursor`, after sending `chase`.
        case seek(frame: Int64, cursor: Int, chase: MIDIChaseState)
        /// Repeat `start ..< end`; `cursor` and `chase` as for a seek to `start`.
        case loop(start: Int64, end: Int64, cursor: Int, chase: MIDIChaseState)
        case clearLoop
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
    /// The song's tempo map: ticks to seconds and frames.
    public let tempoMap: MIDITempoMap
    /// The song's bars and beats; nil for an SMPTE-timed song, which has none.
    public let barMap: MIDIBarMap?
    /// The song's length in ticks.
    public let endTick: Int

    // MARK: Set at init, read by every thread
    let events: UnsafeMutablePointer<Event>
    /// What the song sets anywhere, for the defaults a chase sends (see `MIDIChaseState`).
    let wholeSongState: MIDIChaseState
    /// The chase for the song's start: defaults for what the song changes later.
    let startChase: MIDIChaseState
    let startChaseCount: Int

    // MARK: Shared (atomics and the command queue)
    let commands = SPSCQueue<Command>(capacity: 64)
    let looping = Atomic<Bool>(false)
    let tempoScaleBits = Atomic<UInt64>(1.0.bitPattern)
    let transposeValue = Atomic<Int>(0)
    let stateValue = Atomic<UInt8>(State.stopped.rawValue)
    /// Song frames (tempo scale 1) from the start.
    let positionValue = Atomic<Int64>(0)

    // MARK: Control thread only
    /// The loop section last asked for, in song frames; nil: none.
    public internal(set) var loopSection: Range<Int64>?

    // MARK: Audio thread only
    var cursor = 0
    /// The song position (in song frames) where the current tempo scale took
    /// effect or the last seek landed, and the output frames played since.
    /// Counting whole output frames from a base, rather than summing
    /// fractional positions, keeps every event on the same output frame
    /// whatever the block size.
    var songBase = 0.0
    var sinceBase = 0
    var scale = 1.0
    var playing = false
    /// The loop section being played: its start, end (0: none), the event at its start and its chase.
    var sectionStart: Int64 = 0
    var sectionEnd: Int64 = 0
    /// Whether the song is before the section's end, so it repeats the
    /// section on reaching it; false once a seek or the section's setting
    /// found the song past it (it then plays on to its end).
    var sectionAhead = false
    var sectionCursor = 0
    var sectionChase = MIDIChaseState()
    var sectionChaseCount = 0
    let heldNotes = HeldNotes()
    let transposer = NoteTransposer()

    /// - Realtime: unsafe (allocates). Control thread.
    public init(file: StandardMIDIFile, sampleRate: Int) {
        precondition(sampleRate > 0)
        self.sampleRate = sampleRate
        let map = file.tempoMap()
        tempoMap = map
        barMap = file.barMap()
        endTick = file.endTick
        var timed: [Event] = []
        var whole = MIDIChaseState()
        for event in file.mergedEvents() {
            guard case .message(let message) = event.kind else { continue }
            timed.append(Event(frame: Int64(map.sampleFrame(atTick: event.tick, sampleRate: sampleRate)), message: message))
            whole.observe(message)
        }
        eventCount = timed.count
        events = .allocate(capacity: max(1, timed.count))
        events.initialize(from: timed, count: timed.count)
        let end = Int64(map.sampleFrame(atTick: file.endTick, sampleRate: sampleRate))
        lengthFrames = max(end, timed.last?.frame ?? 0)
        wholeSongState = whole
        let start = MIDIChaseState().withDefaults(forWhatIsSetIn: whole)
        startChase = start
        startChaseCount = start.messageCount
    }

    deinit {
        events.deallocate()
    }

    /// The song's messages, in the order they play.
    /// - Realtime: unsafe (allocates). Control thread.
    public func messages() -> [MIDIMessage] {
        (0..<eventCount).map { events[$0].message }
    }

    // MARK: Control thread: play, stop, pause, resume

    /// Starts playing from the beginning at the next cycle, sending the song's
    /// starting state first (defaults for what the song changes later, so a
    /// second play sounds as the first).
    /// Like every transport command, dropped when 64 commands wait already
    /// (only when the engine runs no cycles: nothing would move anyway).
    /// - Thread: control (the one thread that moves the transport)
    /// - Realtime: safe (a queue push)
    public func play() { commands.push(.play) }
    /// Stops at the next cycle, ending every note the song holds, and rewinds.
    /// - Thread: control
    /// - Realtime: safe (a queue push)
    public func stop() { commands.push(.stop) }
    /// Pauses at the next cycle where the song is, ending every note the
    /// song holds with note-offs and lifting its sustain pedals, so voices
    /// release as they do at a key's release (never an All Sound Off);
    /// `resume()` goes on from there. Nothing happens unless the song is playing.
    /// - Thread: control
    /// - Realtime: safe (a queue push)
    public func pause() { commands.push(.pause) }
    /// Goes on from where the song is paused (by `pause()` or a seek while
    /// stopped); nothing happens unless it is paused. Notes the pause ended
    /// are not struck again.
    /// - Thread: control
    /// - Realtime: safe (a queue push)
    public func resume() { commands.push(.resume) }

    // MARK: Any thread (atomics)

    /// Whether the song starts again from the top when it ends.
    /// - Thread: any (the audio thread reads it at the song's end)
    /// - Realtime: safe (an atomic load or store)
    public var isLooping: Bool {
        get { looping.load(ordering: .relaxed) }
        set { looping.store(newValue, ordering: .relaxed) }
    }

    /// Playback speed: 2 plays twice as fast. Clamped to 0.125 … 8; not a number is ignored.
    /// - Thread: any (the audio thread reads it every cycle)
    /// - Realtime: safe (an atomic load or store)
    public var tempoScale: Double {
        get { Double(bitPattern: tempoScaleBits.load(ordering: .relaxed)) }
        set {
            guard newValue.isFinite else { return }
            tempoScaleBits.store(min(max(newValue, 0.125), 8).bitPattern, ordering: .relaxed)
        }
    }

    /// Stopped, playing, paused or finished, as of the last cycle.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var state: State { State(rawValue: stateValue.load(ordering: .acquiring)) ?? .stopped }

    /// Where the song is, in song frames (tempo scale 1) from its start, as of the last cycle.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var positionFrame: Int64 { positionValue.load(ordering: .relaxed) }

    /// Where the song is, in seconds of the song (tempo scale 1).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var positionSeconds: Double { Double(positionFrame) / Double(sampleRate) }
}
