/// Σx² over `count` samples, in four partial sums (one chain of dependent
/// additions would be the slowest part of the loops that need it). The order
/// is fixed by `count` alone, so the same samples always give the same sum.
/// - Thread: any (the detector's `push` and the guard's `respond` run it on the audio thread).
/// - Realtime: safe. Arithmetic only.
@inline(__always)
func sumOfSquares(_ samples: UnsafePointer<Float>, count: Int) -> Float {
    var sums = SIMD4<Float>(repeating: 0)
    var i = 0
    while i + 4 <= count {
        let x = UnsafeRawPointer(samples + i).loadUnaligned(as: SIMD4<Float>.self)
        sums += x * x
        i += 4
    }
    var sum = sums.sum()
    while i < count { sum += samples[i] * samples[i]; i += 1 }
    return sum
}
