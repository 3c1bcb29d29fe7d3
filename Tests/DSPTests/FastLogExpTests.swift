import DSP
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `fastLog2` and `fastExp2` against libm in Double, over their whole ranges.
///
/// The requirement (see FastLogExp.swift): every level and gain computed through
/// them within 0.0001 dB of libm's. A log2 error e is a level error of
/// 10·log10(2)·e dB, so the bound on log2 is 0.0001 / 3.0103 = 3.3e-5; a
/// relative error e in 2^x is a gain error of 20·log10(1 + e) dB, so the bound
/// on exp2 is 1.15e-5. The assertions hold each to its measured accuracy with a
/// margin (4e-6 plus the result's rounding, and 5e-7), well inside those bounds.
final class FastLogExpTests: XCTestCase {
    /// Every 1/4096 of an octave from 1e-20 (the compressor's silence floor) to 2^40,
    /// plus mantissas next to the √½ split point: |fastLog2(x) − log2(x)| < 4e-6 plus
    /// half an ulp of the Float result (the rounding any Float log2 has: 3.8e-6 at
    /// log2 = −66, the floor; at most 1e-5 in all, 0.00003 dB as a level).
    func testFastLog2WithinFourMillionthsPlusRounding() {
        var worst = 0.0
        var values: [Float] = stride(from: -66.4, through: 40, by: 1.0 / 4096).map { Float(pow(2, $0)) }
        let split = Float(0.5.squareRoot())
        for k in -64...64 { values.append(Float(bitPattern: UInt32(Int64(split.bitPattern) + Int64(k)))) }
        values += [1, 2, 0.5, 1e-20, Float.leastNormalMagnitude, Float.greatestFiniteMagnitude]
        for x in values {
            let exact = log2(Double(x))
            let error = abs(Double(fastLog2(x)) - exact)
            worst = max(worst, error)
            XCTAssertLessThan(error, 4e-6 + Double(Float(exact).ulp) / 2, "log2 of \(x)")
        }
        XCTAssertEqual(fastLog2(1), 0, "log2(1) is exactly 0")
        print("fastLog2: worst error \(worst) over \(values.count) values (\(worst * 10 * log10(2)) dB as a level)")
    }

    /// Every 1/1024 from −126 to 127: |fastExp2(x) / 2^x − 1| < 5e-7; exactly 1 at 0,
    /// and clamped, not wrapped, outside the range.
    func testFastExp2WithinHalfAMillionthRelative() {
        var worst = 0.0
        var count = 0
        for k in (-126 * 1024)...(127 * 1024) {
            let x = Float(k) / 1024
            let error = abs(Double(fastExp2(x)) / pow(2, Double(x)) - 1)
            worst = max(worst, error)
            count += 1
            if error >= 5e-7 { XCTFail("2^\(x): relative error \(error)") }
        }
        XCTAssertEqual(fastExp2(0), 1)
        XCTAssertEqual(fastSampleGain(decibels: 0), 1)
        XCTAssertEqual(fastExp2(-1000), Float(pow(2, -126.0)))
        XCTAssertEqual(fastExp2(1000), Float(pow(2, 127.0)))
        print("fastExp2: worst relative error \(worst) over \(count) values (\(20 * log10(1 + worst)) dB)")
    }

    /// The decibel helpers the gain computers use, against libm: within 0.0001 dB.
    func testDecibelHelpersWithinATenThousandthOfADecibel() {
        for k in 0...4000 {
            let db = -120 + Float(k) * 0.036
            let gain = Double(fastSampleGain(decibels: db))
            XCTAssertEqual(20 * log10(gain), Double(db), accuracy: 1e-4, "gain at \(db) dB")
            let power = Float(pow(10, Double(db) / 10))
            XCTAssertEqual(Double(fastPowerDecibels(power)), 10 * log10(Double(power)), accuracy: 1e-4, "level at \(db) dB")
        }
        XCTAssertEqual(fastPowerDecibels(0), -200)
    }

    /// The four-lane versions give each lane exactly what the scalar ones give (the
    /// compressor and the gate run them on whole blocks and rely on it).
    func testFourLaneVersionsMatchTheScalarOnesBitForBit() {
        var noise = UInt32(1)
        for _ in 0..<100_000 {
            var x = SIMD4<Float>(), y = SIMD4<Float>()
            for lane in 0..<4 {
                noise = noise &* 1_664_525 &+ 1_013_904_223
                x[lane] = Float(pow(2, Double(noise >> 8) / Double(1 << 24) * 106 - 66))  // 2^−66…2^40
                y[lane] = Float(Double(noise >> 8) / Double(1 << 24) * 300 - 150)  // −150…150, clamped past ±126
            }
            let logs = fastLog2(x), exps = fastExp2(y)
            for lane in 0..<4 {
                XCTAssertEqual(logs[lane].bitPattern, fastLog2(x[lane]).bitPattern, "log2 of \(x[lane])")
                XCTAssertEqual(exps[lane].bitPattern, fastExp2(y[lane]).bitPattern, "2^\(y[lane])")
            }
        }
    }
}
