/// Eight lowpass-feedback combs (Freeverb's `comb`) of one reverb channel:
/// each comb's delayed output is low-passed by a one-pole filter and fed back.
///
/// A comb alone is a chain of dependent multiply-adds, one sample after the
/// other; the eight combs are independent, so they run side by side in the
/// lanes of two 4-wide vectors (combs 0…3 and 4…7), frame by frame.
///
/// **Layout.** Each comb has its own line (comb-major), and all eight share
/// one write position and one ring length, so within a block comb k reads
/// `delays[k]` frames behind the shared position at consecutive addresses and
/// writes at consecutive addresses. The block is taken four frames at a time:
/// four vector loads of four consecutive frames per group of four combs, a 4×4
/// transpose to turn them into one vector per frame with a comb per lane, the
/// per-frame recursion, and a transpose back for four vector stores. (With a
/// frame-major ring the eight reads of a frame sat at eight unrelated
/// addresses: eight scalar loads and their shuffles per frame, twice the work.)
/// The output sum, a per-frame sum over combs, is added straight from the
/// loaded comb-major vectors, with no horizontal adds. Frames left over from
/// the groups of four take the same arithmetic one frame at a time, so the
/// result does not depend on how the stream is cut into blocks.
///
/// Positions below `maximumFrames` are mirrored past the ring's end, so a
/// block's reads never wrap; the writes are split at the ring's end instead.
/// Every delay is at least `maximumFrames` (the tank cuts blocks to its
/// shortest line), so a block's reads never see its own writes.
struct ReverbCombBank {
    static let width = 8

    /// `width` lines of `lineStride` = `ringLength + maximumFrames` samples.
    let lines: UnsafeMutablePointer<Float>
    let lineStride: Int
    let ringLength: Int
    let maximumFrames: Int
    /// The eight delays in samples.
    let delays: UnsafeMutablePointer<Int>
    /// Where the next frame is written.
    var position = 0
    /// The one-pole lowpass states, comb 0…3 and 4…7.
    var lowpassLow = SIMD4<Float>(repeating: 0)
    var lowpassHigh = SIMD4<Float>(repeating: 0)

    /// - Realtime: unsafe (allocates). Control thread only.
    init(delays: [Int], maximumFrames: Int) {
        precondition(delays.count == Self.width && delays.allSatisfy { $0 >= maximumFrames })
        self.maximumFrames = maximumFrames
        ringLength = delays.max()! + 1
        lineStride = ringLength + maximumFrames
        lines = .allocate(capacity: lineStride * Self.width)
        lines.initialize(repeating: 0, count: lineStride * Self.width)
        self.delays = .allocate(capacity: Self.width)
        self.delays.initialize(from: delays, count: Self.width)
    }

    /// - Realtime: unsafe (frees). Control thread only.
    func deallocate() {
        lines.deallocate()
        delays.deallocate()
    }

    // MARK: Audio thread

    /// Silences every comb.
    /// - Thread: audio, control
    /// - Realtime: safe
    @_noLocks
    mutating func clear() {
        lines.update(repeating: 0, count: lineStride * Self.width)
        position = 0
        lowpassLow = SIMD4(repeating: 0)
        lowpassHigh = SIMD4(repeating: 0)
    }

    /// Writes the sum of the eight combs' outputs for `frames` (≤ `maximumFrames`)
    /// samples of `input` to `sum`. The coefficients are per sample in
    /// `feedback` and `damp` when `varying`; otherwise only `feedback[0]` and
    /// `damp[0]` are read and hold for the whole block (the common, settled case,
    /// whose loop keeps them in registers).
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    mutating func process(
        input: UnsafePointer<Float>, feedback: UnsafePointer<Float>, damp: UnsafePointer<Float>, varying: Bool,
        into sum: UnsafeMutablePointer<Float>, frames: Int
    ) {
        let length = ringLength
        var done = 0
        // In runs up to the ring's end, so the writes of a run are consecutive.
        // Wrapping arithmetic throughout: every index is bounded by the lines,
        // and overflow checks would only cost time here.
        while done < frames {
            let q = position
            let n = min(frames &- done, length &- q)
            if varying {
                runVarying(input + done, feedback + done, damp + done, sum + done, count: n)
            } else {
                runSettled(input + done, feedback[0], damp[0], sum + done, count: n)
            }
            mirror(from: q, count: n)
            var next = q &+ n
            if next == length { next = 0 }
            position = next
            done &+= n
        }
        lowpassLow = flushTinyLanes(lowpassLow)
        lowpassHigh = flushTinyLanes(lowpassHigh)
    }

    /// Copies what a run wrote below `maximumFrames` past the ring's end.
    /// Once per run is soon enough: a read is at least `maximumFrames`
    /// frames behind the write position, so nothing in this block reads the
    /// copies made for this block's writes.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(__always)
    private func mirror(from q: Int, count n: Int) {
        let end = min(q &+ n, maximumFrames)
        guard q < end else { return }
        for k in 0..<Self.width {
            let line = lines + k &* lineStride
            for p in q..<end { line[p &+ ringLength] = line[p] }
        }
    }

    /// `run` with per-sample coefficients (while room size or damping ramps).
    /// `runVarying` and `runSettled` are separate, non-inlined functions on
    /// purpose: with `run` called directly from both branches the compiler
    /// merged the two calls into one with `varying` as a runtime argument,
    /// and the settled loop lost its hoisted coefficients.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(never)
    private mutating func runVarying(
        _ input: UnsafePointer<Float>, _ feedback: UnsafePointer<Float>, _ damp: UnsafePointer<Float>,
        _ sum: UnsafeMutablePointer<Float>, count n: Int
    ) {
        run(input, feedback, damp, sum, count: n, varying: true, fixedFeedback: 0, fixedDamp: 0)
    }

    /// `run` with one feedback and one damping coefficient for the whole run.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(never)
    private mutating func runSettled(
        _ input: UnsafePointer<Float>, _ feedback: Float, _ damp: Float,
        _ sum: UnsafeMutablePointer<Float>, count n: Int
    ) {
        run(input, input, input, sum, count: n, varying: false, fixedFeedback: feedback, fixedDamp: damp)
    }

    /// Where comb `k` reads from: `start` positions into its line, wrapped once.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(__always)
    private static func reader(_ lines: UnsafeMutablePointer<Float>, _ k: Int, _ stride: Int, _ start: Int, _ length: Int) -> UnsafeMutablePointer<Float> {
        lines + (k &* stride &+ (start < 0 ? start &+ length : start))
    }

    /// One run of `count` frames that does not cross the ring's end. The
    /// coefficients come per sample from `feedback` and `damp` if `varying`,
    /// else they are `fixedFeedback` and `fixedDamp`. `varying` is a constant
    /// in each caller, so each gets its own loop with no test inside.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(__always)
    private mutating func run(
        _ input: UnsafePointer<Float>, _ feedback: UnsafePointer<Float>, _ damp: UnsafePointer<Float>,
        _ sum: UnsafeMutablePointer<Float>, count n: Int, varying: Bool, fixedFeedback: Float, fixedDamp: Float
    ) {
        typealias V = SIMD4<Float>
        let lines = self.lines, stride = lineStride, length = ringLength
        let q = position
        // Comb k reads what it wrote `delays[k]` frames ago; with the mirror
        // its reads for the whole run are at consecutive positions.
        let d = delays
        let r0 = Self.reader(lines, 0, stride, q &- d[0], length), r1 = Self.reader(lines, 1, stride, q &- d[1], length)
        let r2 = Self.reader(lines, 2, stride, q &- d[2], length), r3 = Self.reader(lines, 3, stride, q &- d[3], length)
        let r4 = Self.reader(lines, 4, stride, q &- d[4], length), r5 = Self.reader(lines, 5, stride, q &- d[5], length)
        let r6 = Self.reader(lines, 6, stride, q &- d[6], length), r7 = Self.reader(lines, 7, stride, q &- d[7], length)
        let w = lines + q
        var lpLow = lowpassLow, lpHigh = lowpassHigh
        // Settled coefficients, broadcast once.
        let fixedD = V(repeating: fixedDamp), fixedFB = V(repeating: fixedFeedback)

        var f = 0
        while f &+ 4 <= n {
            // Comb-major: a_k holds comb k's delayed samples for frames f…f+3.
            let a0 = load(r0.advanced(by: f)), a1 = load(r1.advanced(by: f)), a2 = load(r2.advanced(by: f)), a3 = load(r3.advanced(by: f))
            let a4 = load(r4 + f), a5 = load(r5 + f), a6 = load(r6 + f), a7 = load(r7 + f)
            // The same order of additions as a frame-by-frame horizontal sum.
            store(((a0 + a4) + (a1 + a5)) + ((a2 + a6) + (a3 + a7)), sum + f)
            let d4 = varying ? load(damp + f) : fixedD
            let fb4 = varying ? load(feedback + f) : fixedFB
            let xs = load(input + f)
            // Everything but the recursion itself is lane-wise in either
            // layout, so it is done comb-major: the per-frame values are then
            // plain vectors, not broadcasts. Only `lp = u + lp · d` needs the
            // combs in lanes: transpose in, four dependent steps, transpose out.
            let g = 1 - d4
            let (u0, u1, u2, u3) = transpose(a0 * g, a1 * g, a2 * g, a3 * g)
            let (u4, u5, u6, u7) = transpose(a4 * g, a5 * g, a6 * g, a7 * g)
            let dv0 = varying ? V(repeating: d4[0]) : fixedD, dv1 = varying ? V(repeating: d4[1]) : fixedD
            let dv2 = varying ? V(repeating: d4[2]) : fixedD, dv3 = varying ? V(repeating: d4[3]) : fixedD
            let p0 = u0 + lpLow * dv0, q0 = u4 + lpHigh * dv0
            let p1 = u1 + p0 * dv1, q1 = u5 + q0 * dv1
            let p2 = u2 + p1 * dv2, q2 = u6 + q1 * dv2
            lpLow = u3 + p2 * dv3
            lpHigh = u7 + q2 * dv3
            let (c0, c1, c2, c3) = transpose(p0, p1, p2, lpLow)
            let (c4, c5, c6, c7) = transpose(q0, q1, q2, lpHigh)
            // Only the stored samples are flushed per sample: that keeps the
            // loop-carried chain to one multiply-add. The lowpass state alone
            // could only pass through the subnormal range within a block
            // (harmless: render threads flush to zero) and is cleaned at the
            // end of `process`.
            let wf = w + f
            store(flushTinyLanes(xs + c0 * fb4), wf)
            store(flushTinyLanes(xs + c1 * fb4), wf + stride)
            store(flushTinyLanes(xs + c2 * fb4), wf + 2 &* stride)
            store(flushTinyLanes(xs + c3 * fb4), wf + 3 &* stride)
            let wh = wf + 4 &* stride
            store(flushTinyLanes(xs + c4 * fb4), wh)
            store(flushTinyLanes(xs + c5 * fb4), wh + stride)
            store(flushTinyLanes(xs + c6 * fb4), wh + 2 &* stride)
            store(flushTinyLanes(xs + c7 * fb4), wh + 3 &* stride)
            f &+= 4
        }
        // The last frames of the run (fewer than four), one at a time, with
        // the same arithmetic lane for lane.
        while f < n {
            let low = V(r0[f], r1[f], r2[f], r3[f])
            let high = V(r4[f], r5[f], r6[f], r7[f])
            let both = low + high
            sum[f] = (both[0] + both[1]) + (both[2] + both[3])
            let d = varying ? V(repeating: damp[f]) : fixedD
            let fb = varying ? V(repeating: feedback[f]) : fixedFB
            let x = V(repeating: input[f])
            lpLow = low * (1 - d) + lpLow * d
            lpHigh = high * (1 - d) + lpHigh * d
            let wl = flushTinyLanes(x + lpLow * fb), wh = flushTinyLanes(x + lpHigh * fb)
            let wf = w + f
            for k in 0..<4 {
                wf[k &* stride] = wl[k]
                wf[(k &+ 4) &* stride] = wh[k]
            }
            f &+= 1
        }
        lowpassLow = lpLow
        lowpassHigh = lpHigh
    }
}

// MARK: Audio thread: kernels

/// Four consecutive samples from `p`, unaligned.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func load(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    // One unaligned vector load. `_unsafePerformance`: unoptimized builds do
    // not specialize the stdlib's generic loadUnaligned, so the @_noLocks
    // check of the callers could not see through it.
    _unsafePerformance { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }
}

/// Four consecutive samples from `p`, unaligned.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func load(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    _unsafePerformance { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }
}

/// Four consecutive samples to `p`, unaligned.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func store(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    _unsafePerformance { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self) }
}

/// Rows to columns of a 4×4 matrix.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func transpose(
    _ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>
) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
    typealias V = SIMD4<Float>
    let ab0 = V(a[0], b[0], a[1], b[1]), ab1 = V(a[2], b[2], a[3], b[3])
    let cd0 = V(c[0], d[0], c[1], d[1]), cd1 = V(c[2], d[2], c[3], d[3])
    return (V(ab0[0], ab0[1], cd0[0], cd0[1]), V(ab0[2], ab0[3], cd0[2], cd0[3]),
            V(ab1[0], ab1[1], cd1[0], cd1[1]), V(ab1[2], ab1[3], cd1[2], cd1[3]))
}

/// `flushTiny` for four lanes: values below 1e-20 in magnitude become 0 (see
/// the reverb's note on denormals: a dead band, so tails die out exactly).
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func flushTinyLanes(_ x: SIMD4<Float>) -> SIMD4<Float> {
    x.replacing(with: 0, where: (x .< 1e-20) .& (x .> -1e-20))
}
