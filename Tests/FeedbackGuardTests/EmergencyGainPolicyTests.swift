import FeedbackGuard
import XCTest

/// The emergency gain's rules, one table row each: a sequence of per-hop observations in, the
/// policy's decisions out. Each row is built so that only its rule can fire: taking the rule
/// out of `EmergencyGainPolicy` fails the row.
///
/// Time: 48 kHz, 512-sample hops (10.67 ms); hop `i` of a row ends at sample `(i + 1) · 512`.
/// Levels are dBFS, RMS before the gain; a hop's peak is its level + 3 dB unless a row says
/// otherwise. The default criteria: step 6 dB, maximum 30 dB, interval 0.1 s (10 hops), hold 1 s,
/// release 6 dB/s, margin 3 dB, climb 6 dB, climb floor −30 dBFS, return 12 dB, check 0.2 s
/// (19 hops), relief 3 dB, rise 3 dB, evidence 0.5 s (47 hops), loud −10 dBFS, pinned 0.3 s
/// (29 hops), pinned peak −3 dBFS, tonal 0.5, 5 gap hops, burst 4 within 1 s (94 hops),
/// floor hold 30 s, floor release 0.2 dB/s.
final class EmergencyGainPolicyTests: XCTestCase {
    private typealias Policy = EmergencyGainPolicy
    private typealias Triggers = EmergencyGainPolicy.Triggers
    private static let rate = 48_000.0
    private static let hopSize = 512

    /// One hop's observation, without its time (the row's position gives it).
    private struct Seen {
        var level: Float
        var peak: Float?
        var detected = false
        var placed = 0
        var exhausted = false
        var tonal: Float = 0
        var mayStep = true
    }

    /// `count` hops at `level`.
    private static func hops(_ count: Int, _ level: Float, peak: Float? = nil, tonal: Float = 0) -> [Seen] {
        Array(repeating: Seen(level: level, peak: peak, tonal: tonal), count: count)
    }

    /// A hop in which the detector found a howl.
    private static func found(_ level: Float, placed: Int = 0, exhausted: Bool = false, mayStep: Bool = true) -> Seen {
        Seen(level: level, detected: true, placed: placed, exhausted: exhausted, mayStep: mayStep)
    }

    /// A rule and the hops that exercise it. `steps`: every hop at which the gain steps, with the
    /// triggers there (no other hop may step). `reductions` and `floors`: the decision's values after
    /// those hops. `triggered`: triggers asked for at hops that must not step (waiting or not allowed).
    private struct Row {
        var rule: String
        var hops: [Seen]
        var steps: [Int: Triggers]
        var reductions: [Int: Float] = [:]
        var floors: [Int: Float] = [:]
        var triggered: [Int: Triggers] = [:]
        var criteria = EmergencyGainCriteria()
    }

    private static func names(_ triggers: Triggers) -> [String] {
        let all: [(Triggers, String)] = [(.exhaustedNotches, "exhausted notches"), (.notchBurst, "notch burst"), (.climb, "climb"),
                                         (.returning, "returning"), (.noRelief, "no relief"), (.pinned, "pinned")]
        return all.filter { triggers.contains($0.0) }.map(\.1)
    }

    private static func run(_ seen: [Seen], criteria: EmergencyGainCriteria = EmergencyGainCriteria()) -> [Policy.Decision] {
        var policy = Policy(criteria: criteria, sampleRate: rate, hopSize: hopSize)
        return seen.enumerated().map { i, s in
            policy.update(Policy.Hop(now: (i + 1) * hopSize, levelDB: s.level, peakDB: s.peak ?? s.level + 3, detected: s.detected,
                                     notchesPlaced: s.placed, notchesExhausted: s.exhausted, tonalFraction: s.tonal, mayStep: s.mayStep))
        }
    }

    private func check(_ rows: [Row], file: StaticString = #filePath, line: UInt = #line) {
        for row in rows {
            let decisions = Self.run(row.hops, criteria: row.criteria)
            var steps: [Int: Triggers] = [:]
            for (i, d) in decisions.enumerated() where d.stepped { steps[i] = d.triggers }
            XCTAssertEqual(steps.keys.sorted(), row.steps.keys.sorted(), "\(row.rule): the hops that step", file: file, line: line)
            for (i, triggers) in row.steps where i < decisions.count {
                XCTAssertEqual(Self.names(decisions[i].triggers), Self.names(triggers), "\(row.rule): triggers at hop \(i)", file: file, line: line)
            }
            for (i, triggers) in row.triggered {
                XCTAssertFalse(decisions[i].stepped, "\(row.rule): no step at hop \(i)", file: file, line: line)
                XCTAssertEqual(Self.names(decisions[i].triggers), Self.names(triggers), "\(row.rule): triggers at hop \(i)", file: file, line: line)
            }
            for (i, reduction) in row.reductions {
                XCTAssertEqual(decisions[i].reductionDB, reduction, accuracy: 1e-4, "\(row.rule): reduction after hop \(i)", file: file, line: line)
            }
            for (i, floor) in row.floors {
                XCTAssertEqual(decisions[i].floorDB, floor, accuracy: 1e-4, "\(row.rule): floor after hop \(i)", file: file, line: line)
            }
        }
    }

    func testEachStepTrigger() {
        check([
            Row(rule: "exhausted notches step the gain 6 dB at once and set the floor: the reduction that howled (0 dB) plus the 3 dB margin",
                hops: Self.hops(1, -60) + [Self.found(-40, exhausted: true)] + Self.hops(10, -60),
                steps: [1: .exhaustedNotches], reductions: [1: 6, 11: 6], floors: [1: 3]),
            Row(rule: "a detection the notches can take (deepened) steps nothing",
                hops: Self.hops(1, -60) + [Self.found(-40)] + Self.hops(10, -60),
                steps: [:]),
            Row(rule: "no relief: 0.2 s after a howl found over −30 dBFS the level has not fallen 3 dB: a step at the check (hop 1 + 19), no floor (a level test)",
                hops: [Self.found(-20)] + Self.hops(30, -19),
                steps: [19: .noRelief], reductions: [19: 6], floors: [19: 0]),
            Row(rule: "relief: the level fell 3 dB by the check, no step",
                hops: [Self.found(-20)] + Self.hops(30, -23.5),
                steps: [:]),
            Row(rule: "no relief needs the howl found over the climb floor (−30 dBFS): found at −32, nothing is checked",
                hops: [Self.found(-32)] + Self.hops(30, -31),
                steps: [:]),
            Row(rule: "climb: 6 dB over the bout's level (the hop the howl was found in), over −30 dBFS, within 0.5 s of it",
                hops: [Self.found(-25)] + Self.hops(3, -40) + Self.hops(1, -18.5) + Self.hops(5, -40),
                steps: [4: .climb], reductions: [4: 6], floors: [4: 0]),
            Row(rule: "no climb under 6 dB over the bout's level",
                hops: [Self.found(-25)] + Self.hops(3, -40) + Self.hops(1, -19.5) + Self.hops(5, -40),
                steps: [:]),
            Row(rule: "no climb under the climb floor (−30 dBFS), however far it climbs",
                hops: [Self.found(-45)] + Self.hops(3, -50) + Self.hops(1, -31) + Self.hops(5, -50),
                steps: [:]),
            Row(rule: "returning: while the gain recovers, 12 dB over the quietest hop since the step (and 3 dB over the step's level)",
                hops: [Self.found(-20, exhausted: true)] + Self.hops(23, -45) + Self.hops(1, -16),
                steps: [0: .exhaustedNotches, 24: .returning], reductions: [24: 12], floors: [24: 3]),
            // Quiet at −60 before the step at −20; after it the level stays at −15, 45 dB over the quiet but
            // only 5 dB over the quietest hop since the step (the step's own).
            Row(rule: "a return is measured from the quietest hop since the last step, not from before it",
                hops: Self.hops(5, -60) + [Self.found(-20, exhausted: true)] + Self.hops(12, -15),
                steps: [5: .exhaustedNotches]),
            Row(rule: "the same rise with the gain at 0 dB is no return (and under the climb): no step",
                hops: [Self.found(-20)] + Self.hops(23, -45) + Self.hops(1, -16),
                steps: [:]),
            Row(rule: "pinned: hops louder than −10 dBFS for 0.3 s (29 hops after the first) step the gain and set the floor, then again 0.3 s later",
                hops: Self.hops(70, -8),
                steps: [29: .pinned, 58: .pinned], reductions: [29: 6, 58: 12], floors: [29: 3, 58: 9]),
            Row(rule: "pinned peaks: peaks over −3 dBFS with a tonal spectrum (≥ 0.5), RMS under −10, for 0.3 s",
                hops: Self.hops(40, -15, peak: -2, tonal: 0.8),
                steps: [29: .pinned], floors: [29: 3]),
            Row(rule: "the same peaks with a spectrum that is not tonal (noise, a distorted source): no step",
                hops: Self.hops(40, -15, peak: -2, tonal: 0.2),
                steps: [:]),
            Row(rule: "peaks at −3.5 dBFS are not pinned, tonal or not",
                hops: Self.hops(40, -15, peak: -3.5, tonal: 0.9),
                steps: [:]),
            Row(rule: "a burst: the 4th new notch within 1 s (howls 0.2 s apart, 19 hops) steps the gain and sets the floor",
                hops: Self.burst(at: [0, 19, 38, 57], hops: 80),
                steps: [57: .notchBurst], reductions: [57: 6], floors: [57: 3]),
            Row(rule: "three new notches within 1 s: no step",
                hops: Self.burst(at: [0, 19, 38], hops: 80),
                steps: [:]),
            Row(rule: "four new notches spread over more than 1 s (94 hops): no step",
                hops: Self.burst(at: [0, 32, 64, 96], hops: 120),
                steps: [:]),
            Row(rule: "the burst window slides: the last four placements within 1 s step, however long ago the first was",
                hops: Self.burst(at: [0, 60, 90, 110, 130], hops: 150),
                steps: [130: .notchBurst]),
            Row(rule: "after a burst step the next needs a burst of its own: a fifth notch 0.2 s later steps nothing",
                hops: Self.burst(at: [0, 19, 38, 57, 76], hops: 100),
                steps: [57: .notchBurst]),
            Row(rule: "four notches placed in one hop are a burst",
                hops: Self.hops(3, -60) + [Self.found(-45, placed: 4)] + Self.hops(3, -60),
                steps: [3: .notchBurst]),
        ])
    }

    /// Placements (one new notch each, found at −45 dBFS: under every level test) at the given hops, quiet between.
    private static func burst(at placements: Set<Int>, hops count: Int) -> [Seen] {
        (0..<count).map { placements.contains($0) ? found(-45, placed: 1) : Seen(level: -60) }
    }

    func testIntervalMaximumAndPermission() {
        check([
            Row(rule: "steps are at least 0.1 s apart: howls the notches cannot take every hop step at hops 0, 10, 20…; between, the trigger waits",
                hops: Array(repeating: Self.found(-40, exhausted: true), count: 25),
                steps: [0: .exhaustedNotches, 10: .exhaustedNotches, 20: .exhaustedNotches],
                reductions: [9: 6, 10: 12, 20: 18], triggered: [1: .exhaustedNotches, 9: .exhaustedNotches]),
            Row(rule: "the reduction stops at 30 dB (and the floor at 30 dB): steps go on, the gain does not",
                hops: Array(repeating: Self.found(-40, exhausted: true), count: 80),
                steps: Dictionary(uniqueKeysWithValues: stride(from: 0, to: 80, by: 10).map { ($0, Triggers.exhaustedNotches) }),
                reductions: [40: 30, 50: 30, 79: 30], floors: [40: 27, 50: 30, 79: 30]),
            Row(rule: "with the emergency gain not allowed, a trigger steps nothing",
                hops: [Self.found(-40, exhausted: true, mayStep: false)] + Self.hops(5, -60),
                steps: [:], reductions: [0: 0], triggered: [0: .exhaustedNotches]),
        ])
    }

    func testTheLoudVoiceExemption() {
        check([
            // After a climb step at −18.5 dBFS, the level sits at −17 (still 6 dB over the bout, but not
            // 3 dB over the step's level): a voice the gain cannot turn down steps it no further.
            Row(rule: "a level test needs a rise of 3 dB over the last step's level: no second climb step",
                hops: [Self.found(-25)] + Self.hops(3, -40) + Self.hops(1, -18.5) + Self.hops(15, -17),
                steps: [4: .climb]),
            Row(rule: "…and a rise of 3 dB over it steps again, once the interval has passed (hop 4 + 10)",
                hops: [Self.found(-25)] + Self.hops(3, -40) + Self.hops(1, -18.5) + Self.hops(15, -15),
                steps: [4: .climb, 14: .climb]),
            Row(rule: "no relief needs the rise over the last step's level too: found and stepped at −20, −19 at the check is no relief but no rise",
                hops: [Self.found(-20, exhausted: true)] + Self.hops(30, -19),
                steps: [0: .exhaustedNotches]),
            Row(rule: "…−16.5 at the check, 3.5 dB over the step's level, is a rise: a step",
                hops: [Self.found(-20, exhausted: true)] + Self.hops(30, -16.5),
                steps: [0: .exhaustedNotches, 19: .noRelief]),
            Row(rule: "the climb counts only within 0.5 s of a detection: a climb 0.63 s after it steps nothing",
                hops: [Self.found(-25)] + Self.hops(58, -40) + Self.hops(1, -18.5) + Self.hops(5, -40),
                steps: [:]),
            Row(rule: "…the same climb 0.43 s after it steps",
                hops: [Self.found(-25)] + Self.hops(39, -40) + Self.hops(1, -18.5) + Self.hops(5, -40),
                steps: [40: .climb]),
            Row(rule: "a return counts only within 0.5 s of a detection: stepped, quiet for 0.64 s, then the rise steps nothing",
                hops: [Self.found(-20, exhausted: true)] + Self.hops(59, -45) + Self.hops(1, -16),
                steps: [0: .exhaustedNotches]),
            // 1.05 s after the detection, −8 dBFS climbs over the bout's −25: the evidence window does not
            // apply; 0.1 s later it climbs again from where it stepped, the rise does not apply; each step
            // sets the floor (a quiet step from a level test would not).
            Row(rule: "a hop louder than −10 dBFS counts at any time, needs no rise, and its step sets the floor",
                hops: [Self.found(-25)] + Self.hops(98, -40) + Self.hops(12, -8),
                steps: [99: .climb, 109: .climb], reductions: [99: 6, 109: 12], floors: [99: 3, 109: 9]),
        ])
    }

    func testRecoveryAndTheFloor() {
        // One exhausted step at hop 0: 6 dB, floor 3 dB. After a 1 s hold (hop 94 is the first more than
        // 1 s after it) the gain comes back 0.064 dB per hop (6 dB/s), down to the floor, and stays there.
        let hold = Self.run([Self.found(-40, exhausted: true)] + Self.hops(400, -60))
        XCTAssertEqual(hold[93].reductionDB, 6, "held for 1 s")
        XCTAssertLessThan(hold[94].reductionDB, 6, "released after 1 s")
        XCTAssertEqual(hold[94].reductionDB, 6 - Float(6 * 512 / 48_000.0), accuracy: 1e-5, "at 6 dB/s")
        XCTAssertEqual(hold[400].reductionDB, 3, "down to the floor and no further")
        XCTAssertEqual(hold[400].floorDB, 3)

        // A step from a level test sets no floor: the gain comes all the way back.
        let full = Self.run([Self.found(-20)] + Self.hops(300, -19))
        XCTAssertTrue(full[19].stepped)
        XCTAssertEqual(full[19].floorDB, 0)
        XCTAssertEqual(full[300].reductionDB, 0, "back at 0 dB")

        // The floor holds 30 s after the last step, then fades at 0.2 dB/s: 3 dB take 15 s more.
        let hopsPerSecond = 48_000.0 / 512
        let fade = Self.run([Self.found(-40, exhausted: true)] + Self.hops(Int(50 * hopsPerSecond), -60))
        let thirty = Int(30 * hopsPerSecond)  // hop 2812 ends 29.99 s after hop 0's: not yet more than 30 s
        XCTAssertEqual(fade[thirty].floorDB, 3, "held for 30 s")
        XCTAssertEqual(fade[thirty].reductionDB, 3, "the gain sits on it")
        XCTAssertLessThan(fade[thirty + 1].floorDB, 3, "fading after 30 s")
        let forty = Int(40 * hopsPerSecond)
        XCTAssertEqual(fade[forty].floorDB, 1, accuracy: 0.01, "0.2 dB/s: 2 dB gone 10 s later")
        XCTAssertEqual(fade[forty].reductionDB, fade[forty].floorDB, "the gain follows the floor")
        XCTAssertEqual(fade.last?.floorDB, 0, "gone 15 s after the hold")
        XCTAssertEqual(fade.last?.reductionDB, 0)
    }

    func testAPinnedStretchToleratesGapsOfFiveHops() {
        check([
            // Pinned from hop 0; hops 10…14 off the ceiling (5): the stretch goes on, the step comes at hop 29.
            Row(rule: "five hops in a row off the ceiling do not end a pinned stretch",
                hops: Self.hops(10, -8) + Self.hops(5, -30) + Self.hops(30, -8),
                steps: [29: .pinned]),
            // Hops 10…15 off (6): the stretch ends; it starts again at hop 16, and steps 29 hops later.
            Row(rule: "six hops off end it: the 0.3 s start over",
                hops: Self.hops(10, -8) + Self.hops(6, -30) + Self.hops(50, -8),
                steps: [45: .pinned]),
        ])
    }

    func testTheBoutStartsAfreshAfterTwoQuietSeconds() {
        check([
            // Found at −10.5 dBFS, then at −30: the bout's level stays −10.5 within 2 s, so −22 climbs nothing.
            Row(rule: "within 2 s of the last detection the bout keeps its loudest level",
                hops: [Self.found(-10.5)] + Self.hops(100, -60) + [Self.found(-30)] + Self.hops(3, -60) + Self.hops(1, -22) + Self.hops(3, -60),
                steps: [:]),
            // The same with 2.1 s between the detections: a new bout at −30, so −22 (8 dB over it) climbs.
            Row(rule: "more than 2 s later, with the gain at 0 dB, a detection starts a new bout at its own level",
                hops: [Self.found(-10.5)] + Self.hops(197, -60) + [Self.found(-30)] + Self.hops(3, -60) + Self.hops(1, -22) + Self.hops(3, -60),
                steps: [202: .climb]),
        ])
    }

    func testSwitchedOffReleasesTheGainAndTheFloor() {
        var policy = Policy(sampleRate: Self.rate, hopSize: Self.hopSize)
        var now = 0
        for _ in 0..<11 {
            now += Self.hopSize
            _ = policy.update(Policy.Hop(now: now, levelDB: -40, peakDB: -37, detected: true, notchesExhausted: true))
        }
        XCTAssertEqual(policy.reductionDB, 12, "two steps, 0.1 s apart")
        XCTAssertEqual(policy.floorDB, 9)
        // 562.5 dB/s is 6 dB per 512-sample hop at 48 kHz: two hops.
        XCTAssertEqual(policy.switchedOff(), 6, accuracy: 1e-4)
        XCTAssertEqual(policy.floorDB, 0)
        XCTAssertEqual(policy.switchedOff(), 0, accuracy: 1e-4)
        policy.reset()
        XCTAssertEqual(policy.reductionDB, 0)
    }

    func testTheTonalFractionIsAskedForOnlyWhereThePeakRuleReadsIt() {
        let policy = Policy(sampleRate: Self.rate, hopSize: Self.hopSize)
        XCTAssertTrue(policy.needsTonalFraction(levelDB: -15, peakDB: -2), "peaks over −3 dBFS, RMS under −10")
        XCTAssertFalse(policy.needsTonalFraction(levelDB: -15, peakDB: -3), "peaks not over −3 dBFS")
        XCTAssertFalse(policy.needsTonalFraction(levelDB: -8, peakDB: -1), "louder than −10 dBFS: pinned whatever the spectrum")
    }
}
