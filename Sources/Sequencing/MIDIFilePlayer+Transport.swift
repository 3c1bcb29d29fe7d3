import MIDI

// Seek, the loop section, transposition and the position in bars: what the
// control thread asks, checked and worked out there, then queued for the
// audio thread (MIDIFilePlayer+Render.swift carries it out).
extension MIDIFilePlayer {
    /// The transpositions `transposeSemitones` takes: two octaves down to two up.
    public static let transposeRange = -24...24

    /// How many bars the song has (bars starting before its end); nil for an
    /// SMPTE-timed song.
    /// - Thread: any
    /// - Realtime: safe
    public var barCount: Int? { barMap?.barCount(endTick: endTick) }

    /// The song's length in seconds (tempo scale 1).
    /// - Thread: any
    /// - Realtime: safe
    public var lengthSeconds: Double { Double(lengthFrames) / Double(sampleRate) }

    /// The first frame of `bar` (1-based) in song frames (tempo scale 1).
    /// - Throws: `.barOutOfRange` for a bar below 1 or past `barCount`;
    ///   `.noBarsInTimecodeSong` for an SMPTE-timed song.
    /// - Thread: control
    /// - Realtime: safe
    public func frame(ofBar bar: Int) throws(MIDITransportError) -> Int64 {
        try frame(ofBar: bar, allowingTheBarAfterTheEnd: false)
    }

    // MARK: Control thread: seek

    /// Moves the song to the first frame of `bar` (1-based) at the next
    /// cycle. See `seek(toFrame:)` for what a seek does.
    /// - Throws: `.barOutOfRange`, `.noBarsInTimecodeSong`, `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the bar)
    public func seek(toBar bar: Int) throws(MIDITransportError) {
        try seek(toFrame: frame(ofBar: bar))
    }

    /// Moves the song to `seconds` of the song (tempo scale 1; rounded to the
    /// nearest frame) at the next cycle. See `seek(toFrame:)`.
    /// - Throws: `.timeOutOfRange` for a time before 0, at or past the song's
    ///   end (0 is always allowed), or not a number; `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the place)
    public func seek(toSeconds seconds: Double) throws(MIDITransportError) {
        try seek(toFrame: frame(ofSeconds: seconds, allowingTheEnd: false))
    }

    /// Moves the song to song frame `frame` at the next cycle, after the
    /// commands queued before. The notes the song holds end there (note-offs
    /// and sustain lifted, as for a pause); then the song's state at `frame`
    /// is sent (the last bank, program, pitch bend, pitch-bend range,
    /// modulation, volume, pan, expression, reverb and chorus sends of each
    /// channel, and the sustain pedal when it is down there; defaults for
    /// what the song sets only later: `MIDIChaseState`), and the song goes on
    /// from its first event at or after `frame`, that event on the seek's own
    /// output frame. Notes struck before `frame` and still held there are not
    /// struck again: the song comes in with its next note. A playing song
    /// goes on playing; a paused one stays paused at the new place; a stopped
    /// or finished one becomes paused there (`resume()` plays from it).
    /// - Throws: `.timeOutOfRange` for a frame outside the song; `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the place)
    public func seek(toFrame frame: Int64) throws(MIDITransportError) {
        guard frame >= 0 && (frame < lengthFrames || frame == 0) else {
            throw .timeOutOfRange(seconds: Double(frame) / Double(sampleRate), lengthSeconds: lengthSeconds)
        }
        let cursor = firstEvent(atOrAfter: frame)
        guard commands.push(.seek(frame: frame, cursor: cursor, chase: chase(before: cursor))) else { throw .commandQueueFull }
    }

    // MARK: Control thread: the loop section

    /// Repeats bars `startBar` up to `endBar` (1-based, `endBar` not
    /// included): when the song reaches the first frame of `endBar` it goes
    /// on, on that same output frame, from the first frame of `startBar`,
    /// ending its held notes and sending its state there as a seek does. So
    /// bars 5 to 8 are `startBar: 5, endBar: 9`. `endBar` may be the bar after
    /// the last (`barCount + 1`): the section then ends with the song. See
    /// `setLoopSection(fromFrame:toFrame:)`.
    /// - Throws: `.barOutOfRange`, `.emptyLoopSection` (`endBar` not after
    ///   `startBar`), `.noBarsInTimecodeSong`, `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the section's start)
    public func setLoopSection(startBar: Int, endBar: Int) throws(MIDITransportError) {
        let start = try frame(ofBar: startBar)
        let end = try frame(ofBar: endBar, allowingTheBarAfterTheEnd: true)
        guard endBar > startBar, end > start else { throw .emptyLoopSection(start: "bar \(startBar)", end: "bar \(endBar)") }
        try setLoopSection(fromFrame: start, toFrame: end)
    }

    /// Repeats the song from `start` up to `end` seconds (tempo scale 1,
    /// rounded to frames; `end` may be the song's end). See `setLoopSection(fromFrame:toFrame:)`.
    /// - Throws: `.timeOutOfRange`, `.emptyLoopSection`, `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the section's start)
    public func setLoopSection(startSeconds: Double, endSeconds: Double) throws(MIDITransportError) {
        let start = try frame(ofSeconds: startSeconds, allowingTheEnd: false)
        let end = try frame(ofSeconds: endSeconds, allowingTheEnd: true)
        guard end > start else { throw .emptyLoopSection(start: "\(startSeconds) s", end: "\(endSeconds) s") }
        try setLoopSection(fromFrame: start, toFrame: end)
    }

    /// Repeats song frames `start ..< end` from the next cycle on. The
    /// section takes over whenever the song reaches `end` from before it
    /// (it repeats until cleared, whether `isLooping` is on or not); a song
    /// that is past `end` when the section is set, or seeks past it, plays
    /// on to its end, and the section takes over when the song comes round
    /// again (`isLooping`) or is moved before `end`. A new section replaces the old.
    /// - Throws: `.timeOutOfRange` for frames outside the song, `.emptyLoopSection`, `.commandQueueFull`.
    /// - Thread: control
    /// - Realtime: unsafe (reads the song up to the section's start)
    public func setLoopSection(fromFrame start: Int64, toFrame end: Int64) throws(MIDITransportError) {
        guard start >= 0, start < lengthFrames else {
            throw .timeOutOfRange(seconds: Double(start) / Double(sampleRate), lengthSeconds: lengthSeconds)
        }
        guard end <= lengthFrames else {
            throw .timeOutOfRange(seconds: Double(end) / Double(sampleRate), lengthSeconds: lengthSeconds)
        }
        guard end > start else {
            throw .emptyLoopSection(start: "\(Double(start) / Double(sampleRate)) s", end: "\(Double(end) / Double(sampleRate)) s")
        }
        let cursor = firstEvent(atOrAfter: start)
        guard commands.push(.loop(start: start, end: end, cursor: cursor, chase: chase(before: cursor))) else { throw .commandQueueFull }
        loopSection = start..<end
    }

    /// Ends the loop section at the next cycle: the song plays on past it.
    /// Dropped, like every transport command, only when 64 commands wait.
    /// - Thread: control
    /// - Realtime: safe (a queue push)
    public func clearLoopSection() {
        if commands.push(.clearLoop) { loopSection = nil }
    }

    // MARK: Any thread: transposition and position

    /// Semitones every note of the song is shifted by, but the drum
    /// channel's (10): clamped to `transposeRange` (−24 … +24). A change
    /// applies from the next note-on; a note sounding keeps its pitch and its
    /// note-off ends it. Notes shifted out of 0 … 127 are not played.
    /// - Thread: any (the audio thread reads it every cycle)
    /// - Realtime: safe (an atomic load or store)
    public var transposeSemitones: Int {
        get { transposeValue.load(ordering: .relaxed) }
        set { transposeValue.store(min(max(newValue, Self.transposeRange.lowerBound), Self.transposeRange.upperBound), ordering: .relaxed) }
    }

    /// The bar and beat the song is at, as of the last cycle (from the tempo
    /// map and the time signatures); nil for an SMPTE-timed song.
    /// - Thread: any (for the screen)
    /// - Realtime: safe, not allocating; not meant for the audio thread (a binary search of the maps)
    public var barPosition: MIDIBarMap.Position? { barPosition(atFrame: positionFrame) }

    /// The bar and beat of song frame `frame` (tempo scale 1), for showing a
    /// loop section's bounds; nil for an SMPTE-timed song.
    /// - Thread: any
    /// - Realtime: safe, not allocating; not meant for the audio thread (a binary search of the maps)
    public func barPosition(atFrame frame: Int64) -> MIDIBarMap.Position? {
        guard let barMap else { return nil }
        return barMap.position(atTick: tempoMap.lastTick(atOrBeforeSampleFrame: Int(clamping: frame), sampleRate: sampleRate))
    }

    // MARK: Control thread: the arithmetic

    /// The first frame of `bar`, which may be `barCount + 1` (the song's end) when asked.
    /// - Thread: control
    /// - Realtime: safe
    private func frame(ofBar bar: Int, allowingTheBarAfterTheEnd: Bool) throws(MIDITransportError) -> Int64 {
        guard let barMap else { throw .noBarsInTimecodeSong }
        let count = barMap.barCount(endTick: endTick)
        let last = allowingTheBarAfterTheEnd ? count + 1 : count
        guard bar >= 1, bar <= last, let tick = barMap.tick(atBar: bar) else { throw .barOutOfRange(bar: bar, barCount: count) }
        return min(Int64(tempoMap.sampleFrame(atTick: tick, sampleRate: sampleRate)), lengthFrames)
    }

    /// `seconds` as a song frame; before the end (or at 0), or up to the end when asked.
    /// - Thread: control
    /// - Realtime: safe
    private func frame(ofSeconds seconds: Double, allowingTheEnd: Bool) throws(MIDITransportError) -> Int64 {
        let frames = seconds * Double(sampleRate)
        guard frames.isFinite, frames >= 0, frames <= Double(lengthFrames) + 0.5 else {
            throw .timeOutOfRange(seconds: seconds, lengthSeconds: lengthSeconds)
        }
        let frame = min(Int64(frames.rounded()), lengthFrames)
        guard allowingTheEnd || frame < lengthFrames || frame == 0 else {
            throw .timeOutOfRange(seconds: seconds, lengthSeconds: lengthSeconds)
        }
        return frame
    }

    /// The index of the first event at or after `frame` (binary search).
    /// - Thread: control
    /// - Realtime: safe
    func firstEvent(atOrAfter frame: Int64) -> Int {
        var low = 0, high = eventCount
        while low < high {
            let mid = (low + high) / 2
            if events[mid].frame < frame { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The song's state after its first `cursor` events, with defaults for
    /// what it sets only later.
    /// - Thread: control
    /// - Realtime: unsafe (reads up to the whole song)
    func chase(before cursor: Int) -> MIDIChaseState {
        var state = MIDIChaseState()
        for index in 0..<cursor { state.observe(events[index].message) }
        return state.withDefaults(forWhatIsSetIn: wholeSongState)
    }
}
