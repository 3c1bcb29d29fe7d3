import Engine
import FeedbackGuard
import XCTest

/// The notch bank's filters, measured from their impulse response.
final class HowlNotchBankTests: XCTestCase {
    private let rate = 48_000.0

    /// The bank's response to an impulse on one channel, in dB at `frequencies`.
    private func responseDB(of bank: NotchBank, at frequencies: [Double]) -> [Double] {
        let n = 16384
        let buffer = AudioBuffer(channelCount: 1, capacity: n)
        buffer.clear()
        buffer[0][0] = 1
        bank.process(buffer.block(frames: n), offset: 0, count: n)
        return frequencies.map { f in
            var re = 0.0, im = 0.0
            for t in 0..<n {
                re += Double(buffer[0][t]) * cos(2 * Double.pi * f * Double(t) / rate)
                im -= Double(buffer[0][t]) * sin(2 * Double.pi * f * Double(t) / rate)
            }
            return 10 * log10(re * re + im * im)
        }
    }

    private func settle(_ bank: NotchBank, now: Int) {
        for _ in 0..<20 { bank.update(now: now, elapsedSamples: 256) }
    }

    func testANewNotchCutsItsFrequencyByTheInitialDepthAndLeavesTheRest() {
        let bank = NotchBank(channelCount: 1, sampleRate: rate)
        XCTAssertEqual(bank.notch(frequency: 1000, at: 0), .placed(slot: 0))
        settle(bank, now: 0)
        let r = responseDB(of: bank, at: [1000, 500, 2000, 100, 8000])
        XCTAssertEqual(r[0], -Double(bank.initialDepthDB), accuracy: 0.2, "cut at the notch")
        for (f, db) in zip([500, 2000, 100, 8000], r.dropFirst()) {
            XCTAssertEqual(db, 0, accuracy: 1, "\(f) Hz untouched")
        }
    }

    func testRepeatedHowlsDeepenTheNotchToItsMaximumAndThenSayItIsExhausted() {
        let bank = NotchBank(channelCount: 1, sampleRate: rate)
        _ = bank.notch(frequency: 2500, at: 0)
        var actions: [NotchBank.Action] = []
        for _ in 0..<4 { actions.append(bank.notch(frequency: 2505, at: 0)) }
        XCTAssertEqual(actions, [.deepened(slot: 0), .deepened(slot: 0), .deepened(slot: 0), .exhausted(slot: 0)])
        settle(bank, now: 0)
        XCTAssertEqual(responseDB(of: bank, at: [2500])[0], -Double(bank.maximumDepthDB), accuracy: 0.3)
        XCTAssertEqual(bank.activeCount, 1, "a howl a few Hz off deepens the same notch")
    }

    func testANotchIsHeldThenReleasedSlowly() {
        let bank = NotchBank(channelCount: 1, sampleRate: rate)
        _ = bank.notch(frequency: 700, at: 0)
        settle(bank, now: 0)
        let hop = 256
        var now = 0
        // Within the hold time nothing moves.
        while Double(now + hop) <= bank.holdSeconds * rate { now += hop; bank.update(now: now, elapsedSamples: hop) }
        XCTAssertEqual(bank.depths[0], bank.initialDepthDB)
        // Then it fades at releaseDBPerSecond: after one more second it is that much shallower.
        let after = now + Int(rate)
        while now < after { now += hop; bank.update(now: now, elapsedSamples: hop) }
        XCTAssertEqual(bank.depths[0], bank.initialDepthDB - bank.releaseDBPerSecond, accuracy: 0.05)
        while bank.activeCount > 0 && now < 60 * Int(rate) { now += hop; bank.update(now: now, elapsedSamples: hop) }
        XCTAssertEqual(bank.activeCount, 0, "free again")
        XCTAssertEqual(responseDB(of: bank, at: [700])[0], 0, accuracy: 0.01)
    }

    func testWhenEverySlotIsTakenANewHowlReleasesTheShallowestSmoothlyInsteadOfTearingItOut() {
        let bank = NotchBank(channelCount: 1, sampleRate: rate)
        // Twelve notches; the one at 500 Hz is the shallowest (the others deepened once).
        let frequencies: [Float] = (0..<bank.slotCount).map { 500 + 300 * Float($0) }
        for f in frequencies { _ = bank.notch(frequency: f, at: 0) }
        for f in frequencies.dropFirst() { _ = bank.notch(frequency: f, at: 0) }
        settle(bank, now: 0)
        // A 500 Hz tone through the bank, one 256-sample notch step (`HowlGuardNode.notchStepSamples`) at a
        // time; the 13th howl comes at step 10.
        let hop = 256, hops = 40
        let buffer = AudioBuffer(channelCount: 1, capacity: hop)
        var output: [Float] = []
        var actions: [NotchBank.Action] = []
        var depthRightAfter: Float = -1
        for h in 0..<hops {
            for i in 0..<hop { buffer[0][i] = 0.5 * sinf(2 * Float.pi * 500 * Float(h * hop + i) / Float(rate)) }
            if h == 10 {
                actions.append(bank.notch(frequency: 9000, at: h * hop))
                depthRightAfter = bank.depths[0]
            }
            if h == 30 { actions.append(bank.notch(frequency: 9000, at: h * hop)) }
            bank.update(now: h * hop, elapsedSamples: hop)
            bank.process(buffer.block(frames: hop), offset: 0, count: hop)
            output += UnsafeBufferPointer(start: buffer[0], count: hop)
        }
        var largest: Float = 0
        for i in (8 * hop)..<(hops * hop) { largest = max(largest, abs(output[i] - output[i - 1])) }
        let natural = 0.5 * 2 * Float.pi * 500 / Float(rate)
        print("full bank: actions \(actions); depth right after \(depthRightAfter) dB; largest step \(largest) (tone's own \(natural))")
        XCTAssertEqual(actions, [.exhausted(slot: 0), .placed(slot: 0)], "released first, reused once free")
        XCTAssertEqual(depthRightAfter, bank.initialDepthDB, "the live notch is not torn out")
        // The bank's own 3 dB depth steps move a tone at the notch by at most 0.5 · (1 − 10^(−3/20)) in one
        // sample; tearing the 12 dB notch out would jump it by 0.5 · (1 − 10^(−12/20)) ≈ 0.37.
        let oneStep = 0.5 * (1 - powf(10, -3 / 20))
        XCTAssertLessThan(largest, natural + oneStep, "no larger step than the bank's own depth steps")
        XCTAssertEqual(bank.frequencies[0], 9000)
    }
}
