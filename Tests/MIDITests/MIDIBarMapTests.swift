import MIDI
import XCTest

/// Bars and beats from time signatures, and frames back to ticks: the
/// arithmetic a seek by bar and the screen's bar and beat stand on.
final class MIDIBarMapTests: XCTestCase {
    private func map(_ signatures: [(Int, UInt8, UInt8)], ppqn: Int = 480) -> MIDIBarMap {
        MIDIBarMap(division: .ticksPerQuarterNote(ppqn), timeSignatures: signatures.map { ($0.0, $0.1, $0.2) })!
    }

    func testASongWithoutTimeSignatureIsInFourFour() {
        let bars = map([])
        XCTAssertEqual(bars.tick(atBar: 1), 0)
        XCTAssertEqual(bars.tick(atBar: 3), 2 * 4 * 480)
        XCTAssertEqual(bars.position(atTick: 3839), MIDIBarMap.Position(bar: 2, beat: 4, beatsPerBar: 4))
        XCTAssertEqual(bars.position(atTick: 3840), MIDIBarMap.Position(bar: 3, beat: 1, beatsPerBar: 4))
        XCTAssertEqual(bars.position(atTick: -5), MIDIBarMap.Position(bar: 1, beat: 1, beatsPerBar: 4))
        XCTAssertNil(bars.tick(atBar: 0))
        XCTAssertNil(bars.tick(atBar: -3))
    }

    /// 3/4 for two bars, then 6/8 (a beat is an eighth: 240 ticks).
    func testSignatureChangesCountBarsOfEachStretch() {
        let bars = map([(0, 3, 2), (2 * 1440, 6, 3)])
        XCTAssertEqual(bars.tick(atBar: 2), 1440)
        XCTAssertEqual(bars.tick(atBar: 3), 2880)
        XCTAssertEqual(bars.tick(atBar: 4), 2880 + 6 * 240)
        XCTAssertEqual(bars.position(atTick: 1440 + 960), MIDIBarMap.Position(bar: 2, beat: 3, beatsPerBar: 3))
        XCTAssertEqual(bars.position(atTick: 2880 + 4 * 240), MIDIBarMap.Position(bar: 3, beat: 5, beatsPerBar: 6))
        XCTAssertEqual(bars.barCount(endTick: 2880), 2, "a song ending on a bar line has the bars before it")
        XCTAssertEqual(bars.barCount(endTick: 2881), 3)
        XCTAssertEqual(bars.barCount(endTick: 0), 1)
    }

    /// A signature inside a bar ends that bar short and starts bar 2 at its tick.
    func testASignatureInsideABarStartsANewBar() {
        let bars = map([(0, 4, 2), (1000, 3, 2)])
        XCTAssertEqual(bars.tick(atBar: 2), 1000)
        XCTAssertEqual(bars.tick(atBar: 3), 1000 + 1440)
        XCTAssertEqual(bars.position(atTick: 999).bar, 1)
        XCTAssertEqual(bars.position(atTick: 1000), MIDIBarMap.Position(bar: 2, beat: 1, beatsPerBar: 3))
    }

    func testTheLastOfSignaturesAtOneTickWinsAndDamagedOnesAreIgnored() {
        let bars = map([(0, 5, 2), (0, 2, 2), (480, 0, 2), (960, 3, 200)])
        XCTAssertEqual(bars.tick(atBar: 2), 960)
        XCTAssertEqual(bars.tick(atBar: 5), 4 * 960, "2/4 throughout")
    }

    /// 25 ticks per quarter in 3/8: a beat is 12.5 ticks. Each beat starts on
    /// the first tick at or after its exact place, and every tick's bar is the
    /// one whose start is at or before it and whose successor's is after it.
    func testFractionalBeatsStayConsistent() {
        let bars = map([(0, 3, 3)], ppqn: 25)
        XCTAssertEqual(bars.tick(atBar: 2), 38, "ceil(37.5)")
        XCTAssertEqual(bars.tick(atBar: 3), 75)
        XCTAssertEqual(bars.position(atTick: 12).beat, 1)
        XCTAssertEqual(bars.position(atTick: 13).beat, 2)
        for tick in 0..<2000 {
            let bar = bars.position(atTick: tick).bar
            let start = bars.tick(atBar: bar)!, next = bars.tick(atBar: bar + 1)!
            XCTAssertTrue(start <= tick && tick < next, "tick \(tick) in bar \(bar) [\(start), \(next))")
        }
    }

    func testHugeBarNumbersDoNotTrap() {
        let bars = map([(0, 255, 0)], ppqn: 32767)
        XCTAssertNil(bars.tick(atBar: Int.max))
        XCTAssertEqual(bars.position(atTick: Int.max - 1).beatsPerBar, 255)
    }

    func testSMPTETimeHasNoBars() {
        XCTAssertNil(MIDIBarMap(division: .smpte(.fps25, ticksPerFrame: 40), timeSignatures: [(0, 4, 2)]))
    }

    /// The tempo track's signatures; another track's when it has none.
    func testAFileTakesItsTempoTracksSignatures() {
        func file(_ first: [MIDIFileEvent], _ second: [MIDIFileEvent]) -> StandardMIDIFile {
            StandardMIDIFile(format: .simultaneousTracks, division: .ticksPerQuarterNote(96),
                             tracks: [MIDIFileTrack(events: first), MIDIFileTrack(events: second)])
        }
        let threeFour = MIDIFileEvent(tick: 0, kind: .meta(.timeSignature(numerator: 3, denominatorPowerOfTwo: 2, clocksPerClick: 24, thirtySecondNotesPerQuarter: 8)))
        let sixEight = MIDIFileEvent(tick: 0, kind: .meta(.timeSignature(numerator: 6, denominatorPowerOfTwo: 3, clocksPerClick: 36, thirtySecondNotesPerQuarter: 8)))
        XCTAssertEqual(file([threeFour], [sixEight]).barMap()?.tick(atBar: 2), 3 * 96)
        XCTAssertEqual(file([], [sixEight]).barMap()?.tick(atBar: 2), 6 * 48)
        XCTAssertEqual(file([], []).barMap()?.tick(atBar: 2), 4 * 96)
    }

    /// `lastTick(atOrBeforeSampleFrame:)` inverts `sampleFrame(atTick:)` across a tempo change.
    func testFramesGoBackToTheirTicks() {
        let tempo = MIDITempoMap(division: .ticksPerQuarterNote(480), tempoChanges: [(0, 500_000), (960, 333_333), (2000, 1_234_567)])
        for tick in stride(from: 0, to: 5000, by: 7) {
            let frame = tempo.sampleFrame(atTick: tick, sampleRate: 44_100)
            let back = tempo.lastTick(atOrBeforeSampleFrame: frame, sampleRate: 44_100)
            XCTAssertGreaterThanOrEqual(back, tick)
            XCTAssertEqual(tempo.sampleFrame(atTick: back, sampleRate: 44_100), frame, "tick \(tick)")
            XCTAssertGreaterThan(tempo.sampleFrame(atTick: back + 1, sampleRate: 44_100), frame)
        }
        XCTAssertEqual(tempo.lastTick(atOrBeforeSampleFrame: -10, sampleRate: 44_100), 0)
        // A tempo of 0 puts every tick at frame 0: the search stops instead of running forever.
        let frozen = MIDITempoMap(division: .ticksPerQuarterNote(480), tempoChanges: [(0, 0)])
        XCTAssertGreaterThan(frozen.lastTick(atOrBeforeSampleFrame: 10, sampleRate: 48_000), 1 << 40)
    }
}
