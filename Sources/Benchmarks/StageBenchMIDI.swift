import MIDI

/// The MIDI `busker bench --stage` plays, made in memory: what a singer who
/// plays keys would play over a General MIDI backing song. Both are four bars
/// of 4/4 at 120 BPM (8 s) over C – Am – F – G, meant to loop.
public enum StageBenchMIDI {
    static let ticksPerQuarter = 480
    static let beatsPerBar = 4
    static let bars = 4
    /// The bars' chords: root and triad.
    static let chords: [(root: Int, triad: [Int])] = [(60, [0, 4, 7]), (57, [0, 3, 7]), (53, [0, 4, 7]), (55, [0, 4, 7])]
    /// The 16 keys of the held chord: C major from C2 to C7.
    public static let chordNotes: [UInt8] = [36, 40, 43, 48, 52, 55, 60, 64, 67, 72, 76, 79, 84, 88, 91, 96]
    /// Channel 10 (index 9): the drums.
    static let drumChannel: UInt8 = 9

    /// The player's part, for the keys' scheduler: on channel 1 the 16-note
    /// chord (`chordNotes`, struck again every two bars so that it never dies
    /// away) when `chord`, and a running part of 16th notes up and down a
    /// C major scale; on channel 10 the drums in 16ths (closed hi-hat on
    /// every 16th, kick on beats 1 and 3, snare on 2 and 4), which Busker's
    /// kit plays.
    /// - Realtime: unsafe (allocates). Control thread.
    public static func performance(chord: Bool) -> StandardMIDIFile {
        var events = EventList()
        if chord {
            let twoBars = 2 * beatsPerBar * ticksPerQuarter
            for start in stride(from: 0, to: bars * beatsPerBar * ticksPerQuarter, by: twoBars) {
                for note in chordNotes { events.note(at: start, length: twoBars - 10, channel: 0, note: note, velocity: 70) }
            }
        }
        let sixteenth = ticksPerQuarter / 4
        let scale = [72, 74, 76, 77, 79, 81, 83, 84]
        let run = scale + scale.reversed().dropFirst().dropLast()
        for step in 0..<(bars * beatsPerBar * 4) {
            let tick = step * sixteenth
            events.note(at: tick, length: sixteenth - 10, channel: 0, note: UInt8(run[step % run.count]), velocity: 90)
            events.note(at: tick, length: sixteenth - 10, channel: drumChannel, note: 42, velocity: step % 2 == 0 ? 90 : 60)
            if step % 8 == 0 { events.note(at: tick, length: sixteenth - 10, channel: drumChannel, note: 36, velocity: 110) }
            if step % 8 == 4 { events.note(at: tick, length: sixteenth - 10, channel: drumChannel, note: 38, velocity: 105) }
        }
        return file(events)
    }

    /// How one channel of the backing song plays each bar's chord.
    struct Line {
        var channel: UInt8
        var program: UInt8
        /// Semitones from the chord's root position.
        var transpose: Int
        /// Beats between notes, and each note's length in beats.
        var step: Double
        var length: Double
        /// True: the whole triad at each step; false: one chord tone at a time, in turn.
        var chordal: Bool
        var velocity: UInt8
    }

    /// The backing song's 15 melodic channels: a band's worth of General MIDI programs.
    static let lines: [Line] = [
        Line(channel: 0, program: 0, transpose: 0, step: 1, length: 0.9, chordal: true, velocity: 70),      // grand piano, quarters
        Line(channel: 1, program: 33, transpose: -24, step: 0.5, length: 0.45, chordal: false, velocity: 95), // finger bass, 8ths
        Line(channel: 2, program: 25, transpose: -12, step: 0.5, length: 0.45, chordal: true, velocity: 65), // steel guitar, strummed 8ths
        Line(channel: 3, program: 48, transpose: 0, step: 4, length: 3.9, chordal: true, velocity: 60),     // strings, held
        Line(channel: 4, program: 61, transpose: 0, step: 2, length: 0.4, chordal: true, velocity: 80),     // brass stabs
        Line(channel: 5, program: 73, transpose: 12, step: 1, length: 0.9, chordal: false, velocity: 75),   // flute
        Line(channel: 6, program: 65, transpose: 0, step: 1.5, length: 1.4, chordal: false, velocity: 70),  // alto sax
        Line(channel: 7, program: 16, transpose: -12, step: 4, length: 3.9, chordal: true, velocity: 55),   // drawbar organ, held
        Line(channel: 8, program: 89, transpose: 0, step: 4, length: 3.9, chordal: true, velocity: 55),     // warm pad, held
        Line(channel: 10, program: 11, transpose: 12, step: 0.5, length: 0.45, chordal: false, velocity: 70), // vibraphone, 8ths
        Line(channel: 11, program: 46, transpose: 0, step: 0.25, length: 0.5, chordal: false, velocity: 65), // harp, 16ths
        Line(channel: 12, program: 56, transpose: 0, step: 2, length: 1.9, chordal: false, velocity: 70),   // trumpet
        Line(channel: 13, program: 42, transpose: -24, step: 2, length: 1.9, chordal: false, velocity: 75), // cello, halves
        Line(channel: 14, program: 4, transpose: 0, step: 1, length: 0.4, chordal: true, velocity: 60),     // electric piano
        Line(channel: 15, program: 52, transpose: 0, step: 4, length: 3.9, chordal: true, velocity: 55),    // choir, held
    ]

    /// A 16-channel General MIDI backing song: the 15 `lines`, each with its
    /// own program, and the SoundFont's drum kit on channel 10 (kick, snare,
    /// closed hi-hat in 8ths, a crash at the top).
    /// - Realtime: unsafe (allocates). Control thread.
    public static func backingSong() -> StandardMIDIFile {
        var events = EventList()
        let beat = Double(ticksPerQuarter)
        for line in lines {
            events.add(at: 0, .programChange(channel: line.channel, program: line.program))
            events.add(at: 0, .controlChange(channel: line.channel, controller: 7, value: 90))
            for (bar, chord) in chords.enumerated() {
                let barStart = bar * beatsPerBar * ticksPerQuarter
                for (i, position) in stride(from: 0.0, to: Double(beatsPerBar), by: line.step).enumerated() {
                    let tones = line.chordal ? chord.triad : [chord.triad[i % chord.triad.count]]
                    for tone in tones {
                        events.note(at: barStart + Int(position * beat), length: Int(line.length * beat), channel: line.channel,
                                    note: UInt8(chord.root + tone + line.transpose), velocity: line.velocity)
                    }
                }
            }
        }
        let eighth = ticksPerQuarter / 2
        events.add(at: 0, .programChange(channel: drumChannel, program: 0))
        for step in 0..<(bars * beatsPerBar * 2) {
            let tick = step * eighth
            events.note(at: tick, length: eighth - 10, channel: drumChannel, note: 42, velocity: 70)
            if step % 4 == 0 { events.note(at: tick, length: eighth - 10, channel: drumChannel, note: 36, velocity: 100) }
            if step % 4 == 2 { events.note(at: tick, length: eighth - 10, channel: drumChannel, note: 38, velocity: 95) }
        }
        events.note(at: 0, length: eighth, channel: drumChannel, note: 49, velocity: 90)
        return file(events)
    }

    /// The events as one track of a format-0 file at 120 BPM, ending after `bars` bars.
    static func file(_ list: EventList) -> StandardMIDIFile {
        let end = bars * beatsPerBar * ticksPerQuarter
        var events = [MIDIFileEvent(tick: 0, kind: .meta(.tempo(microsecondsPerQuarterNote: 500_000)))]
        // At one tick, note-offs first: a note struck again is ended before it starts. A note
        // that would ring past the end ends on the last tick, so the loop starts with none held.
        events += list.events.sorted { ($0.tick, $0.order) < ($1.tick, $1.order) }
            .map { MIDIFileEvent(tick: min($0.tick, end - 1), kind: .message($0.message)) }
        events.append(MIDIFileEvent(tick: end, kind: .meta(.endOfTrack)))
        return StandardMIDIFile(format: .singleTrack, division: .ticksPerQuarterNote(ticksPerQuarter),
                                tracks: [MIDIFileTrack(events: events)])
    }

    /// Messages at ticks, with the order they keep at the same tick.
    struct EventList {
        var events: [(tick: Int, order: Int, message: MIDIMessage)] = []

        /// Program and controller changes go before the notes at their tick.
        mutating func add(at tick: Int, _ message: MIDIMessage) {
            events.append((tick, 0, message))
        }

        mutating func note(at tick: Int, length: Int, channel: UInt8, note: UInt8, velocity: UInt8) {
            events.append((tick, 2, .noteOn(channel: channel, note: note, velocity: velocity)))
            events.append((tick + length, 1, .noteOff(channel: channel, note: note, velocity: 0)))
        }
    }
}
