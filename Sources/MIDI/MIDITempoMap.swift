/// Turns ticks into seconds and sample frames, exactly, across tempo changes.
///
/// Internally time is kept as an integer count of "units", where one second is
/// ``unitsPerSecond`` units, so no rounding error accumulates however many
/// tempo changes a file has:
/// - metrical time (ticks per quarter note `ppqn`): a tick at tempo `t` µs per
///   quarter note lasts `t` units, and a second is `ppqn × 1 000 000` units;
/// - SMPTE time at `n/d` frames per second with `k` ticks per frame: a tick
///   lasts `d` units, and a second is `n × k` units (tempo is ignored).
///
/// Seconds and frames are only rounded at the end, once.
public struct MIDITempoMap: Equatable, Hashable, Sendable {
    /// The tempo before the first tempo event: 500 000 µs per quarter note (120 BPM), per the SMF specification.
    public static let defaultMicrosecondsPerQuarterNote: UInt32 = 500_000

    /// A stretch of constant tempo.
    struct Segment: Equatable, Hashable, Sendable {
        var startTick: Int
        /// Time at `startTick`, in units.
        var startUnits: UInt128
        var unitsPerTick: UInt128
        var microsecondsPerQuarterNote: UInt32
    }

    public let division: MIDITimeDivision
    /// How many units make one second (see the type's description).
    public let unitsPerSecond: UInt128
    /// Sorted by start tick; the first starts at tick 0.
    let segments: [Segment]

    /// A tempo map for `division` with these tempo changes (in any order; for
    /// equal ticks the last one wins, as it would in playback). Ignored for SMPTE division.
    public init(division: MIDITimeDivision, tempoChanges: [(tick: Int, microsecondsPerQuarterNote: UInt32)]) {
        self.division = division
        switch division {
        case .smpte(let rate, let ticksPerFrame):
            let fps = rate.framesPerSecond
            unitsPerSecond = UInt128(fps.numerator) * UInt128(ticksPerFrame)
            segments = [Segment(startTick: 0, startUnits: 0, unitsPerTick: UInt128(fps.denominator),
                                microsecondsPerQuarterNote: Self.defaultMicrosecondsPerQuarterNote)]
        case .ticksPerQuarterNote(let ppqn):
            unitsPerSecond = UInt128(max(ppqn, 1)) * 1_000_000
            // Stable sort by tick, so events at the same tick keep their file order.
            let sorted = tempoChanges.enumerated()
                .sorted { ($0.element.tick, $0.offset) < ($1.element.tick, $1.offset) }
                .map(\.element)
            var built = [Segment(startTick: 0, startUnits: 0, unitsPerTick: UInt128(Self.defaultMicrosecondsPerQuarterNote),
                                 microsecondsPerQuarterNote: Self.defaultMicrosecondsPerQuarterNote)]
            for change in sorted {
                let tick = max(change.tick, 0)
                let last = built[built.count - 1]
                let units = last.startUnits + UInt128(tick - last.startTick) * last.unitsPerTick
                let segment = Segment(startTick: tick, startUnits: units, unitsPerTick: UInt128(change.microsecondsPerQuarterNote),
                                      microsecondsPerQuarterNote: change.microsecondsPerQuarterNote)
                if tick == last.startTick { built[built.count - 1] = segment } else { built.append(segment) }
            }
            segments = built
        }
    }

    /// The time of `tick` in units (1 second = ``unitsPerSecond``). Negative ticks count as 0.
    public func units(atTick tick: Int) -> UInt128 {
        let tick = max(tick, 0)
        let segment = segments[segmentIndex(containing: tick)]
        return segment.startUnits + UInt128(tick - segment.startTick) * segment.unitsPerTick
    }

    /// The time of `tick` in seconds from the start.
    public func seconds(atTick tick: Int) -> Double {
        let units = units(atTick: tick)
        let whole = units / unitsPerSecond
        let remainder = units % unitsPerSecond
        return Double(whole) + Double(remainder) / Double(unitsPerSecond)
    }

    /// The sample frame at which `tick` falls at `sampleRate`, rounded to the
    /// nearest frame (halves round up). Exact: computed in integers.
    public func sampleFrame(atTick tick: Int, sampleRate: Int) -> Int {
        precondition(sampleRate > 0, "sample rate must be positive")
        // Overflow needs ticks and rates far beyond any real file; saturate rather than trap.
        let (product, overflow) = units(atTick: tick).multipliedReportingOverflow(by: UInt128(sampleRate))
        let (numerator, carry) = product.addingReportingOverflow(unitsPerSecond / 2)
        if overflow || carry { return Int.max }
        return Int(clamping: numerator / unitsPerSecond)
    }

    /// The last tick that falls at or before sample frame `frame` (the inverse
    /// of ``sampleFrame(atTick:sampleRate:)``, so a tick's own frame gives that
    /// tick or a later one at the same frame); 0 for frames before the start.
    /// A binary search on ``sampleFrame(atTick:sampleRate:)``, exact and
    /// consistent with it.
    public func lastTick(atOrBeforeSampleFrame frame: Int, sampleRate: Int) -> Int {
        precondition(sampleRate > 0, "sample rate must be positive")
        // Ticks beyond 2^62 lie past any real song; a map where they all fall at frame 0 (tempo 0) stops there.
        let limit = 1 << 62
        var low = 0, high = 1
        while sampleFrame(atTick: high, sampleRate: sampleRate) <= frame {
            low = high
            guard high < limit else { return low }
            high *= 2
        }
        // sampleFrame(low) <= frame < sampleFrame(high), or low is 0 and frame is before the start.
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if sampleFrame(atTick: mid, sampleRate: sampleRate) <= frame { low = mid } else { high = mid }
        }
        return low
    }

    /// The tempo in effect at `tick`, in microseconds per quarter note
    /// (the default 500 000 for SMPTE division, where tempo does not apply).
    public func microsecondsPerQuarterNote(atTick tick: Int) -> UInt32 {
        segments[segmentIndex(containing: max(tick, 0))].microsecondsPerQuarterNote
    }

    /// The last segment that starts at or before `tick` (binary search).
    private func segmentIndex(containing tick: Int) -> Int {
        var low = 0, high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].startTick <= tick { low = mid } else { high = mid - 1 }
        }
        return low
    }
}
