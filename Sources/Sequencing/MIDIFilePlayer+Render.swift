import MIDI

// MARK: Audio thread
extension MIDIFilePlayer {
    /// Room every cycle keeps beyond the held notes: a sustain lift for each
    /// channel, and the two messages one event can become (a re-struck note
    /// under a new transposition).
    private static var releaseMargin: Int { 16 + 2 }

    /// Carries out the waiting transport commands, then places the song's
    /// events that fall in the next `frameCount` frames into `buffer`, and
    /// notes them in `heldNotes`.
    /// - Parameter cycleStart: the cycle's first frame on the engine timeline.
    /// - Thread: audio
    /// - Realtime: safe
    func renderCycle(frameCount: Int, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        applyCommands(cycleStart: cycleStart, into: buffer)
        guard playing else { return }
        let requestedScale = tempoScale
        if requestedScale != scale {
            // A new tempo scale takes effect from where the song is now.
            songBase += Double(sinceBase) * scale
            sinceBase = 0
            scale = requestedScale
        }
        let semitones = transposeValue.load(ordering: .relaxed)
        var done = 0
        while done < frameCount {
            // The section repeats when the song reaches its end from before it.
            let inSection = sectionEnd > 0 && sectionAhead
            let passEnd = inSection ? min(sectionEnd, lengthFrames) : lengthFrames
            // Events on the song's last frame (final note-offs) belong to this
            // pass; those on a section's end frame belong to the bar after it.
            let includesEnd = passEnd == lengthFrames
            // Output frames (counted from the base) where this cycle ends and where the pass ends.
            let cycleEnd = sinceBase + (frameCount - done)
            let endDue = Int(((Double(passEnd) - songBase) / scale).rounded(.up))
            let reachesEnd = endDue < cycleEnd
            let wraps = inSection || isLooping
            // (At most half the buffer, so a small buffer still plays the song.)
            let reserve = min(heldNotes.count + Self.releaseMargin + (wraps ? max(sectionChaseCount, startChaseCount) : 0),
                              buffer.capacity / 2)
            var bufferFull = false
            while cursor < eventCount {
                let event = events[cursor]
                if event.frame > passEnd || (event.frame == passEnd && !includesEnd) { break }
                let due = Int(((Double(event.frame) - songBase) / scale).rounded(.down))
                if due >= cycleEnd { break }
                // Keep room for the release at the pass's end; what does not fit comes next cycle, late but whole.
                guard buffer.freeSpace > reserve else {
                    bufferFull = true
                    break
                }
                let offset = min(frameCount - 1, done + max(0, due - sinceBase))
                send(event.message, at: offset, semitones: semitones, cycleStart: cycleStart, into: buffer)
                cursor += 1
            }
            guard reachesEnd && !bufferFull else {
                sinceBase = cycleEnd
                break
            }
            let endOffset = done + max(0, endDue - sinceBase)
            guard goOn(afterPassEndingAt: min(endOffset, frameCount - 1), inSection: inSection, cycleStart: cycleStart, into: buffer) else { break }
            // The next pass starts on the frame where this one ended. It makes
            // progress: a pass starts before its end (a section's start is
            // before its end; the song is at least one frame long), so it ends
            // at least one output frame later.
            done = endOffset
        }
        positionValue.store(Int64(songBase + Double(sinceBase) * scale), ordering: .relaxed)
    }

    /// Sends one of the song's messages at `offset`, transposed, noted in
    /// `heldNotes`; a note-off for a note the player did not start (a seek
    /// landed after its note-on) is not sent: it would end someone else's.
    /// - Thread: audio
    /// - Realtime: safe
    private func send(_ message: MIDIMessage, at offset: Int, semitones: Int, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        transposer.translate(message, semitones: semitones) { message in
            switch message {
            case .noteOff(let channel, let note, _), .noteOn(let channel, let note, 0):
                guard heldNotes.isHeld(channel: channel, note: note) else { return }
            default:
                break
            }
            heldNotes.observe(message, at: cycleStart + Int64(offset))
            buffer.insert(message, at: offset)
        }
    }

    /// At the end of a pass (the section's end or the song's), at `offset`:
    /// ends the held notes and goes on from the section's start or the
    /// song's (looping), or finishes.
    /// - Returns: whether the song goes on.
    /// - Thread: audio
    /// - Realtime: safe
    private func goOn(afterPassEndingAt offset: Int, inSection: Bool, cycleStart: Int64, into buffer: MIDIEventBuffer) -> Bool {
        releaseHeld(at: offset, cycleStart: cycleStart, into: buffer)
        if inSection {
            jump(to: sectionStart, cursor: sectionCursor, chase: sectionChase, at: offset, cycleStart: cycleStart, into: buffer)
        } else if isLooping && lengthFrames > 0 {
            jump(to: 0, cursor: 0, chase: startChase, at: offset, cycleStart: cycleStart, into: buffer)
        } else {
            rewind()
            playing = false
            stateValue.store(State.finished.rawValue, ordering: .releasing)
            return false
        }
        return true
    }

    /// Note-offs (and sustain lifts) at `offset` for every note the song holds.
    /// - Thread: audio
    /// - Realtime: safe
    func releaseHeld(at offset: Int, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        heldNotes.releaseAll { buffer.insert($0, at: offset) }
        transposer.clear()
    }

    /// Carries out the queued commands at the cycle's first frame, in order,
    /// while the buffer has room for what each sends; the rest wait a cycle.
    /// - Thread: audio
    /// - Realtime: safe
    private func applyCommands(cycleStart: Int64, into buffer: MIDIEventBuffer) {
        while let command = commands.peek() {
            let chaseCount: Int
            switch command {
            case .play: chaseCount = startChaseCount
            case .seek(_, _, let chase): chaseCount = chase.messageCount
            default: chaseCount = 0
            }
            // What can never fit waits for an empty cycle and goes then, its excess dropped and counted.
            guard buffer.freeSpace >= min(heldNotes.count + Self.releaseMargin + chaseCount, buffer.capacity) else { return }
            _ = commands.pop()
            apply(command, cycleStart: cycleStart, into: buffer)
        }
    }

    /// - Thread: audio
    /// - Realtime: safe
    private func apply(_ command: Command, cycleStart: Int64, into buffer: MIDIEventBuffer) {
        switch command {
        case .play:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            jump(to: 0, cursor: 0, chase: startChase, at: 0, cycleStart: cycleStart, into: buffer)
            playing = true
            stateValue.store(State.playing.rawValue, ordering: .releasing)
        case .stop:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            rewind()
            playing = false
            stateValue.store(State.stopped.rawValue, ordering: .releasing)
        case .pause where playing:
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            playing = false
            stateValue.store(State.paused.rawValue, ordering: .releasing)
        case .resume where state == .paused:
            playing = true
            stateValue.store(State.playing.rawValue, ordering: .releasing)
        case .seek(let frame, let cursor, let chase):
            releaseHeld(at: 0, cycleStart: cycleStart, into: buffer)
            jump(to: frame, cursor: cursor, chase: chase, at: 0, cycleStart: cycleStart, into: buffer)
            if !playing { stateValue.store(State.paused.rawValue, ordering: .releasing) }
        case .loop(let start, let end, let cursor, let chase):
            sectionAhead = songBase + Double(sinceBase) * scale < Double(end)
            sectionStart = start
            sectionEnd = end
            sectionCursor = cursor
            sectionChase = chase
            sectionChaseCount = chase.messageCount
        case .clearLoop:
            sectionEnd = 0
        case .pause, .resume:
            break
        }
    }

    /// Goes on from song frame `frame` (event `cursor`), sending `chase` at
    /// `offset` first (noted in `heldNotes`: a pedal it puts down is lifted
    /// like the song's own).
    /// - Thread: audio
    /// - Realtime: safe
    private func jump(to frame: Int64, cursor: Int, chase: MIDIChaseState, at offset: Int, cycleStart: Int64,
                      into buffer: MIDIEventBuffer) {
        chase.forEachMessage { message in
            heldNotes.observe(message, at: cycleStart + Int64(offset))
            buffer.insert(message, at: offset)
        }
        self.cursor = cursor
        songBase = Double(frame)
        sinceBase = 0
        sectionAhead = frame < sectionEnd
        positionValue.store(frame, ordering: .relaxed)
    }

    /// Back to the song's start, sending nothing.
    /// - Thread: audio
    /// - Realtime: safe
    private func rewind() {
        cursor = 0
        songBase = 0
        sinceBase = 0
        sectionAhead = true
        positionValue.store(0, ordering: .relaxed)
    }
}
