/// Bars and beats of a song in metrical time, from its time signatures.
///
/// A song with no time signature is in 4/4 (the SMF specification's default).
/// A beat is the signature's denominator note (an eighth in 6/8), so bar `n`
/// of a `num/2^d` stretch lasts `num × ppqn × 4 / 2^d` ticks; where that is not
/// a whole number of ticks, each beat starts on the first tick at or after its
/// exact place (the fraction never accumulates: every beat is computed from its
/// stretch's start). A time signature starts a new bar at its tick: one that
/// falls inside a bar (files from sequencers put them on bar lines) ends that
/// bar short.
///
/// Ticks only: turning them into frames is the tempo map's job
/// (``MIDITempoMap/sampleFrame(atTick:sampleRate:)``). SMPTE-timed files have
/// no quarter note and so no bars (``init(division:timeSignatures:)`` gives nil).
public struct MIDIBarMap: Equatable, Hashable, Sendable {
    /// A place in the song as a musician counts it.
    public struct Position: Equatable, Hashable, Sendable {
        /// 1-based bar number.
        public var bar: Int
        /// 1-based beat within the bar.
        public var beat: Int
        /// Beats in this bar (the signature's numerator).
        public var beatsPerBar: Int

        public init(bar: Int, beat: Int, beatsPerBar: Int) {
            self.bar = bar
            self.beat = beat
            self.beatsPerBar = beatsPerBar
        }
    }

    /// A stretch of one time signature.
    struct Segment: Equatable, Hashable, Sendable {
        var startTick: Int
        /// Bars before this stretch (its first bar is bar `startBar + 1`).
        var startBar: Int
        var numerator: Int
        var denominatorPowerOfTwo: Int
    }

    public let ticksPerQuarterNote: Int
    /// Sorted by start tick; the first starts at tick 0.
    let segments: [Segment]

    /// A bar map for `division` with these time signatures (in any order; for
    /// equal ticks the last one wins). Signatures with a numerator of 0 or a
    /// denominator finer than a 128th note are ignored (damaged files).
    /// Nil for SMPTE division.
    public init?(division: MIDITimeDivision, timeSignatures: [(tick: Int, numerator: UInt8, denominatorPowerOfTwo: UInt8)]) {
        guard case .ticksPerQuarterNote(let ppqn) = division else { return nil }
        let quarter = max(ppqn, 1)
        ticksPerQuarterNote = quarter
        let sorted = timeSignatures.enumerated()
            .filter { $0.element.numerator > 0 && $0.element.denominatorPowerOfTwo <= 7 }
            .sorted { (max($0.element.tick, 0), $0.offset) < (max($1.element.tick, 0), $1.offset) }
            .map(\.element)
        var built = [Segment(startTick: 0, startBar: 0, numerator: 4, denominatorPowerOfTwo: 2)]
        for signature in sorted {
            let tick = max(signature.tick, 0)
            let last = built[built.count - 1]
            var segment = Segment(startTick: tick, startBar: 0, numerator: Int(signature.numerator),
                                  denominatorPowerOfTwo: Int(signature.denominatorPowerOfTwo))
            if tick == last.startTick {
                segment.startBar = last.startBar
                built[built.count - 1] = segment
                continue
            }
            // The bar in progress at `tick` ends there, short or whole.
            let (barsBefore, beatInBar, tickInBeat) = Self.count(tick, in: last, ppqn: quarter)
            segment.startBar = barsBefore + (beatInBar == 0 && tickInBeat == 0 ? 0 : 1)
            built.append(segment)
        }
        segments = built
    }

    /// The first tick of `bar` (1-based); nil for a bar below 1 or one whose
    /// tick would not fit in an `Int`.
    public func tick(atBar bar: Int) -> Int? {
        guard bar >= 1 else { return nil }
        let index = bar - 1
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startBar <= index { low = mid } else { high = mid - 1 }
        }
        let segment = segments[low]
        return Self.tick(ofBeat: Int128(index - segment.startBar) * Int128(segment.numerator), in: segment, ppqn: ticksPerQuarterNote)
    }

    /// The bar and beat `tick` falls in (negative ticks count as 0).
    public func position(atTick tick: Int) -> Position {
        let tick = max(tick, 0)
        let segment = segments[segmentIndex(containing: tick)]
        let (bars, beat, _) = Self.count(tick, in: segment, ppqn: ticksPerQuarterNote)
        return Position(bar: bars + 1, beat: beat + 1, beatsPerBar: segment.numerator)
    }

    /// How many bars start before `endTick` (at least 1): the bars a song
    /// ending at `endTick` has.
    public func barCount(endTick: Int) -> Int {
        endTick <= 0 ? 1 : position(atTick: endTick - 1).bar
    }

    /// In `segment`: whole bars before `tick` (counting from the song's
    /// start), the beat within the bar (0-based), and ticks since that beat.
    private static func count(_ tick: Int, in segment: Segment, ppqn: Int) -> (bars: Int, beat: Int, tickInBeat: Int) {
        // Beat k of the stretch starts ceil(k × ppqn × 4 / 2^d) ticks after its
        // start, so the ticks of beat k are exactly those with floor(t × 2^d / (ppqn × 4)) = k.
        let since = Int128(tick - segment.startTick)
        let beatNumerator = Int128(ppqn) * 4
        let beats = (since << segment.denominatorPowerOfTwo) / beatNumerator
        let beatTick = Self.tick(ofBeat: beats, in: segment, ppqn: ppqn) ?? tick
        let bars = beats / Int128(segment.numerator)
        let beat = beats % Int128(segment.numerator)
        return (segment.startBar + Int(clamping: bars), Int(beat), tick - beatTick)
    }

    /// The first tick of beat `beat` (0-based) of `segment`, nil when it does not fit.
    private static func tick(ofBeat beat: Int128, in segment: Segment, ppqn: Int) -> Int? {
        let offset = (beat * Int128(ppqn) * 4 + (Int128(1) << segment.denominatorPowerOfTwo) - 1) >> segment.denominatorPowerOfTwo
        let tick = Int128(segment.startTick) + offset
        return tick <= Int128(Int.max) ? Int(tick) : nil
    }

    /// The last segment that starts at or before `tick`.
    private func segmentIndex(containing tick: Int) -> Int {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startTick <= tick { low = mid } else { high = mid - 1 }
        }
        return low
    }
}

extension StandardMIDIFile {
    /// The song's bars: from the time signatures of the track that holds the
    /// tempo map (the first; format 2: the first sequence), or, when it has
    /// none, of every track. Nil for SMPTE-timed files.
    public func barMap() -> MIDIBarMap? {
        var signatures = tracks.first?.timeSignatures ?? []
        if signatures.isEmpty && format != .independentTracks {
            signatures = tracks.flatMap(\.timeSignatures)
        }
        return MIDIBarMap(division: division, timeSignatures: signatures)
    }
}
