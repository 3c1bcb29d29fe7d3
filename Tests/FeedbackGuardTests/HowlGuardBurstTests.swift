import FeedbackGuard
import Foundation
import XCTest

/// The burst rule: `EmergencyGainCriteria.notchBurst` (4) new notches
/// within a second mean a loop too loud everywhere, and the emergency gain
/// steps even though no level test fires. Howls here are tones that grow at
/// 100 dB/s from −75 dBFS and hold at −45 dBFS, far under the level tests'
/// −30 dBFS floor, at frequencies none of which is near another's ½, 1½, 2
/// or 3 times (so each passes the harmonic test), starting 0.2 s apart.
final class HowlGuardBurstTests: XCTestCase {
    private let rate = 48_000.0

    private func howls(_ frequencies: [Double], seconds: Double) -> [Float] {
        (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            var sum = 0.0
            for (k, f) in frequencies.enumerated() {
                let onset = 0.1 + 0.2 * Double(k)
                guard t >= onset else { continue }
                let db = min(-45, -75 + 100 * (t - onset))
                sum += pow(10, db / 20) * sin(2 * Double.pi * f * (t - onset))
            }
            return Float(sum)
        }
    }

    /// The guard's notch count and gain reduction every 50 ms.
    private func run(_ signal: [Float]) -> (notches: [Int], reduction: [Float]) {
        let statuses = howlGuardStatuses(signal, every: 0.05)
        return (statuses.map(\.notches.count), statuses.map(\.gainReductionDB))
    }

    func testFourNewNotchesWithinASecondStepTheGain() {
        let four = run(howls([700, 1700, 2900, 4700], seconds: 1.5))
        print("four howls: notches \(four.notches), reduction \(four.reduction) dB")
        XCTAssertEqual(four.notches.max(), 4, "each howl notched")
        let first = four.notches.firstIndex { $0 >= 1 } ?? 0, fourth = four.notches.firstIndex { $0 >= 4 } ?? 0
        XCTAssertLessThan(fourth - first, 20, "four notches placed within a second")
        XCTAssertEqual(four.reduction.max() ?? 0, EmergencyGainCriteria().stepDB, "one emergency step")
        // The step comes with the fourth notch, not before.
        XCTAssertEqual(four.reduction[..<fourth].max() ?? 0, 0)

        // Three howls, the same way: notched, and no step (nothing else in this signal could make one).
        let three = run(howls([700, 1700, 2900], seconds: 1.5))
        print("three howls: notches \(three.notches), reduction \(three.reduction) dB")
        XCTAssertEqual(three.notches.max(), 3)
        XCTAssertEqual(three.reduction.max() ?? 0, 0)
    }
}
