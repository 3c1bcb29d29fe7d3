import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A feed-forward compressor with a soft knee and make-up gain: it evens out
/// a voice (loud words turned down, then the whole raised by the make-up), the
/// "make my voice louder or softer, evenly" control. Channels linked, as many
/// out as in.
///
/// The design is the log-domain one of Giannoulis, Massberg and Reiss,
/// "Digital Dynamic Range Compressor Design — A Tutorial and Analysis"
/// (JAES 60(6), 2012):
/// 1. **Detector: RMS**, not peak. The mean square of the loudest channel is
///    smoothed by a one-pole filter of `rmsMilliseconds` (10 ms) and taken to
///    dB. RMS follows loudness as heard and keeps the static curve exact on
///    steady tones (on a 100 Hz tone the detected level ripples by about
///    ±0.35 dB before the gain smoothing, far less on voice formants).
/// 2. **Gain computer, soft knee** of width W around the threshold T, ratio R:
///    below the knee the level is untouched, above it y = T + (x − T)/R, and
///    inside it y = x + (1/R − 1)(x − T + W/2)² / 2W (see `staticCurve`).
/// 3. **Smoothing** of the gain reduction in dB, branching: `attackMilliseconds`
///    (10 ms) while the reduction grows, `releaseMilliseconds` (120 ms) while it
///    shrinks.
/// 4. **Make-up gain** (smoothed over 20 ms) added after.
///
/// Off (`isOn` false) the reduction eases (at the attack's pace) and the make-up ramps to 0 dB,
/// then the node copies its input: a parameter change that never clicks, and a
/// switched-off compressor costs a copy. Per sample, so block-size invariant.
/// The logarithm and the exponential are `fastLog2` and `fastExp2`: the gain
/// is within 0.0001 dB of the same design computed with libm.
public final class CompressorNode: AudioNode {
    public static let thresholdRange: ClosedRange<Float> = -60...0
    public static let ratioRange: ClosedRange<Float> = 1...20
    public static let kneeRange: ClosedRange<Float> = 0...24
    public static let makeupRange: ClosedRange<Float> = -12...24
    public static var rmsMilliseconds: Double { 10 }
    public static var makeupSmoothingSeconds: Double { 0.02 }

    // MARK: Shared (atomics)
    public let thresholdDB: Parameter
    public let ratio: Parameter
    public let kneeDB: Parameter
    public let makeupDB: Parameter
    private let switchedOn: Atomic<Bool>
    /// The gain reduction at the end of the last block, a positive dB amount, Float bits.
    private let reductionBits = Atomic<UInt32>(Float(0).bitPattern)

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    public let attackMilliseconds: Float
    public let releaseMilliseconds: Float
    private let thresholdRef: Unmanaged<Parameter>
    private let ratioRef: Unmanaged<Parameter>
    private let kneeRef: Unmanaged<Parameter>
    private let makeupRef: Unmanaged<Parameter>
    private var rmsCoefficient: Float = 0
    private var attackCoefficient: Float = 0
    private var releaseCoefficient: Float = 0
    /// One block's per-frame values between the passes of `render` (mean square, then
    /// gain change, then dB).
    private var scratch = GroupScratch()

    // MARK: Audio thread only
    private var meanSquare: Float = 0
    /// The smoothed gain change in dB (≤ 0).
    private var reduction: Float = 0
    private var makeup: LinearSmoother

    public init(name: String = "compressor", thresholdDB: Float = -24, ratio: Float = 3, kneeDB: Float = 6, makeupDB: Float = 6,
                attackMilliseconds: Float = 10, releaseMilliseconds: Float = 120, isOn: Bool = true) {
        precondition(attackMilliseconds > 0 && releaseMilliseconds > 0)
        func clamp(_ x: Float, _ r: ClosedRange<Float>) -> Float { min(max(x, r.lowerBound), r.upperBound) }
        self.thresholdDB = Parameter(name: "compressor threshold", unit: "dB", range: Self.thresholdRange, default: clamp(thresholdDB, Self.thresholdRange))
        self.ratio = Parameter(name: "compressor ratio", unit: ":1", range: Self.ratioRange, default: clamp(ratio, Self.ratioRange))
        self.kneeDB = Parameter(name: "compressor knee", unit: "dB", range: Self.kneeRange, default: clamp(kneeDB, Self.kneeRange))
        self.makeupDB = Parameter(name: "make-up gain", unit: "dB", range: Self.makeupRange, default: clamp(makeupDB, Self.makeupRange))
        thresholdRef = .passUnretained(self.thresholdDB)
        ratioRef = .passUnretained(self.ratio)
        kneeRef = .passUnretained(self.kneeDB)
        makeupRef = .passUnretained(self.makeupDB)
        self.attackMilliseconds = attackMilliseconds
        self.releaseMilliseconds = releaseMilliseconds
        switchedOn = Atomic(isOn)
        makeup = LinearSmoother(value: 0, rampLength: 960)
        super.init(name: name)
    }

    deinit { scratch.deallocate() }

    /// Whether the compressor works; off, it passes its input unchanged (after the gain has eased back to 0 dB).
    /// - Thread: any
    /// - Realtime: safe (an atomic load or store)
    public var isOn: Bool {
        get { switchedOn.load(ordering: .relaxed) }
        set { switchedOn.store(newValue, ordering: .relaxed) }
    }

    /// The gain reduction at the end of the last block, in dB, ≥ 0 (make-up not counted).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var gainReductionDB: Float { Float(bitPattern: reductionBits.load(ordering: .relaxed)) }

    /// The static curve: the output level for a steady input level `x` (dB),
    /// before make-up, for threshold `t`, ratio `r` and knee width `w` (dB).
    /// - Thread: any
    /// - Realtime: safe (arithmetic)
    @inlinable
    public static func staticCurve(_ x: Float, threshold t: Float, ratio r: Float, knee w: Float) -> Float {
        softKneeCompressorCurve(x, threshold: t, ratio: r, knee: w)
    }

    /// - Realtime: unsafe. Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        let rate = spec.sampleRate
        func coefficient(_ ms: Double) -> Float { Float(exp(-1 / (ms / 1000 * rate))) }
        rmsCoefficient = coefficient(Self.rmsMilliseconds)
        attackCoefficient = coefficient(Double(attackMilliseconds))
        releaseCoefficient = coefficient(Double(releaseMilliseconds))
        makeup.rampLength = max(1, Int((Self.makeupSmoothingSeconds * rate).rounded()))
        scratch.resize(forBlocksOf: spec.maximumBlockSize)
    }

    // MARK: Audio thread

    /// Empties the detector and snaps the make-up to its target.
    /// - Thread: audio, control
    /// - Realtime: safe
    @_noLocks
    public override func reset() {
        meanSquare = 0
        reduction = 0
        makeup.snap(to: switchedOn.load(ordering: .relaxed) ? readParameter(makeupRef) : 0)
        reductionBits.store(Float(0).bitPattern, ordering: .relaxed)
    }

    /// Compresses input bus 0 into `output`.
    /// - Thread: audio
    /// - Realtime: safe. Atomic loads and arithmetic on plain state and the
    ///   preallocated scratch (`fastLog2` and `fastExp2` per frame while on);
    ///   checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        let lastInput = input.channelCount - 1
        let on = switchedOn.load(ordering: .relaxed)
        makeup.setTarget(on ? readParameter(makeupRef) : 0)
        // Plain locals: `&&` takes an autoclosure, which would retain self.
        let settled = reduction == 0, makeupSettled = !makeup.isSmoothing, makeupZero = makeup.current == 0
        if !on && settled && makeupSettled && makeupZero {
            // Off and at unity: a copy; the detector starts afresh when switched on.
            copyLinkedChannels(input, to: output, frames: frames)
            meanSquare = 0
            return
        }
        let kernel = CompressorKernel(threshold: readParameter(thresholdRef), ratio: readParameter(ratioRef),
                                      knee: readParameter(kneeRef), rmsCoefficient: rmsCoefficient,
                                      attackCoefficient: attackCoefficient, releaseCoefficient: releaseCoefficient, isOn: on)
        let channels = output.channelCount
        var ms = meanSquare, gr = reduction, mk = makeup
        let work = scratch.values, capacity = scratch.capacity
        let mono = lastInput == 0 && channels == 1
        var done = 0
        while done < frames {
            let n = min(frames - done, capacity)
            let whole = n / 4 * 4
            kernel.gainGroups(input, from: done, count: whole, mono: mono, into: work, &ms, &gr, &mk)
            kernel.gainTail(input, from: done + whole, count: n - whole, into: work + whole, &ms, &gr, &mk)
            // 4. The gain (exactly 1 at 0 dB), applied.
            applyDecibelGains(work, count: n, from: input, to: output, channels: channels, offset: done)
            done += n
        }
        meanSquare = ms
        reduction = gr
        makeup = mk
        reductionBits.store((-gr).bitPattern, ordering: .relaxed)
    }

    /// A parameter's current value.
    /// - Thread: audio, control
    /// - Realtime: safe. A relaxed atomic load through an unretained reference.
    @_noLocks @inline(__always)
    private func readParameter(_ p: Unmanaged<Parameter>) -> Float {
        _unsafePerformance { p._withUnsafeGuaranteedRef { $0.value } }
    }
}

// MARK: Audio thread: kernels

/// Copies `input` into `output`, the last input channel into every output channel past it.
/// - Thread: audio
/// - Realtime: safe (element loops: the checker reads `update(from:count:)` as a possible deallocation)
@inline(__always)
func copyLinkedChannels(_ input: AudioBlock, to output: AudioBlock, frames: Int) {
    let lastInput = input.channelCount - 1
    for c in 0..<output.channelCount {
        let source = input.channels[min(c, lastInput)], destination = output.channels[c]
        for i in 0..<frames { destination[i] = source[i] }
    }
}

/// One block's settings of `CompressorNode.render` and its steps 1 to 3: per frame,
/// the gain change in dB plus the make-up, into the scratch that step 4 applies.
struct CompressorKernel {
    let threshold: Float
    let ratio: Float
    let knee: Float
    let detector: CompressorDetector
    let attackA: Float, attackB: Float
    let releaseA: Float, releaseB: Float
    let isOn: Bool

    @inline(__always)
    init(threshold: Float, ratio: Float, knee: Float, rmsCoefficient: Float, attackCoefficient: Float,
         releaseCoefficient: Float, isOn: Bool) {
        self.threshold = threshold
        self.ratio = ratio
        self.knee = knee
        // Exact for a coefficient in [½, 1) (a time constant over 1.5 samples): no rounding in 1 − a.
        detector = CompressorDetector(a: rmsCoefficient, b: 1 - rmsCoefficient)
        attackA = attackCoefficient
        attackB = 1 - attackCoefficient
        releaseA = releaseCoefficient
        releaseB = 1 - releaseCoefficient
        self.isOn = isOn
    }

    /// Steps 1 to 3 for `count` frames from `frame`, a multiple of four, into `gains`.
    ///
    /// Four frames at a time: the two recursions (the mean square and the smoothed
    /// reduction) a sample at a time, and the logarithm, the curve and the exponential,
    /// which dominate the arithmetic, four frames per instruction. Software-pipelined:
    /// while one group's reduction is smoothed, the next group's mean square, level and
    /// curve are computed, so the processor runs the two recursions side by side instead
    /// of one after the other. Every frame gets the same operations in any group or
    /// lane, so the output does not depend on where the blocks start.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic on the preallocated scratch)
    @inline(__always)
    func gainGroups(_ input: AudioBlock, from frame: Int, count whole: Int, mono: Bool, into gains: UnsafeMutablePointer<Float>,
                    _ ms: inout Float, _ gr: inout Float, _ mk: inout LinearSmoother) {
        guard whole > 0 else { return }
        let lastInput = input.channelCount - 1
        // Steps 1 and 2 for the first group; then each round smooths one group
        // (step 3) with the changes the round before computed, and computes the next's.
        var change = compressorChange(detector.detect(input, frame: frame, mono: mono, lastInput: lastInput, &ms),
                                      threshold: threshold, ratio: ratio, knee: knee)
        var start = 0
        while start < whole {
            let next = start + 4
            var nextChange = change
            if next < whole {
                nextChange = compressorChange(detector.detect(input, frame: frame + next, mono: mono, lastInput: lastInput, &ms),
                                              threshold: threshold, ratio: ratio, knee: knee)
            }
            smoothGroup(change, into: gains + start, &gr, &mk)
            change = nextChange
            start = next
        }
    }

    /// Step 3 on one group of four changes, plus the make-up, into `p[0..<4]`.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic)
    @inline(__always)
    func smoothGroup(_ change: SIMD4<Float>, into p: UnsafeMutablePointer<Float>, _ gr: inout Float, _ mk: inout LinearSmoother) {
        if isOn {
            // 3. Smoothing: attack while the reduction deepens, release while it eases.
            for j in 0..<4 {
                smoothOn(towards: change[j], &gr)
                p[j] = gr + mk.next()
            }
        } else {
            for j in 0..<4 {
                easeOff(&gr)
                p[j] = gr + mk.next()
            }
        }
    }

    /// Steps 1 to 3 for the last `rest` frames (fewer than four) from `frame`, through `p`.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic on the preallocated scratch)
    @inline(__always)
    func gainTail(_ input: AudioBlock, from frame: Int, count rest: Int, into p: UnsafeMutablePointer<Float>,
                  _ ms: inout Float, _ gr: inout Float, _ mk: inout LinearSmoother) {
        guard rest > 0 else { return }
        let lastInput = input.channelCount - 1
        for i in 0..<rest {
            var square: Float = 0
            for c in 0...lastInput { let x = input.channels[c][frame + i]; square = max(square, x * x) }
            ms = detector.a * ms + detector.b * square
            p[i] = ms
        }
        // Four lanes: the spare ones are scratch.
        let change = compressorChange(UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self),
                                      threshold: threshold, ratio: ratio, knee: knee)
        for j in 0..<rest {
            if isOn { smoothOn(towards: change[j], &gr) } else { easeOff(&gr) }
            p[j] = gr + mk.next()
        }
    }

    /// Step 3, on: the attack while the reduction deepens towards `target`, the release while it eases.
    /// Both candidates first, then the choice: the compare runs beside the arithmetic instead of ahead of it.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic)
    @inline(__always)
    func smoothOn(towards target: Float, _ gr: inout Float) {
        let attack = attackA * gr + attackB * target, release = releaseA * gr + releaseB * target
        gr = target < gr ? attack : release
    }

    /// Step 3, off: no change asked; the reduction eases towards 0 at the attack's pace, and
    /// within 0.001 dB of unity snaps to it, so the copy takes over within ~0.1 s.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic)
    @inline(__always)
    func easeOff(_ gr: inout Float) {
        gr = attackA * gr
        if gr > -1e-3 { gr = 0 }
    }
}

/// The compressor's detector: a and 1 − a of its one-pole smoothing of the square.
struct CompressorDetector {
    var a: Float
    var b: Float

    /// Step 1 of `CompressorNode.render` for the four frames from `frame`: the loudest
    /// channel's square into the mean square (10 ms), in the form a·ms + (1 − a)·x², whose
    /// loop-carried chain is a multiply and an add. Returns the four mean squares.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic)
    @inline(__always)
    func detect(_ input: AudioBlock, frame: Int, mono: Bool, lastInput: Int, _ ms: inout Float) -> SIMD4<Float> {
        var square = SIMD4<Float>()
        if mono {
            let x = UnsafeRawPointer(input.channels[0] + frame).loadUnaligned(as: SIMD4<Float>.self)
            square = x * x
        } else {
            for c in 0...lastInput {
                let x = UnsafeRawPointer(input.channels[c] + frame).loadUnaligned(as: SIMD4<Float>.self)
                square = pointwiseMax(square, x * x)
            }
        }
        let s = b * square
        let m0 = a * ms + s[0]
        let m1 = a * m0 + s[1]
        let m2 = a * m1 + s[2]
        ms = a * m2 + s[3]
        return SIMD4(m0, m1, m2, ms)
    }
}

/// Step 2 of `CompressorNode.render` on four mean squares: the level in dB (10·log10 of
/// the mean square, −200 for silence) through the static curve, as the change it asks for.
/// - Thread: audio
/// - Realtime: safe (arithmetic)
@inline(__always)
func compressorChange(_ power: SIMD4<Float>, threshold t: Float, ratio r: Float, knee w: Float) -> SIMD4<Float> {
    let level = compressorLevels(power)
    return compressorCurve(level, threshold: t, ratio: r, knee: w) - level
}

/// The soft-knee static curve of Giannoulis, Massberg and Reiss (2012), eq. 4:
/// the output level for a steady input level `x` (dB), threshold `t`, ratio `r`,
/// knee width `w` (dB). A free function so the `@_noLocks` render can call it
/// without touching class metadata.
/// - Thread: audio, control
/// - Realtime: safe (arithmetic)
@inlinable
public func softKneeCompressorCurve(_ x: Float, threshold t: Float, ratio r: Float, knee w: Float) -> Float {
    let over = x - t
    if 2 * over < -w { return x }
    if w > 0 && 2 * abs(over) <= w {
        let k = over + w / 2
        return x + (1 / r - 1) * k * k / (2 * w)
    }
    return t + over / r
}

/// 10·log10 of four mean squares through `fastLog2`: the RMS levels in dBFS,
/// −200 at or below 1e-20 (silence).
/// - Thread: audio
/// - Realtime: safe (arithmetic)
@inline(__always)
func compressorLevels(_ power: SIMD4<Float>) -> SIMD4<Float> {
    // The log of the silent lanes is computed on 1 and then replaced.
    let silent = power .<= 1e-20
    let safe = power.replacing(with: 1, where: silent)
    return (3.010_299_956_6 * fastLog2(safe)).replacing(with: -200, where: silent)  // 10·log10(2)
}

/// `softKneeCompressorCurve` on four levels, lane for lane the same arithmetic.
/// - Thread: audio
/// - Realtime: safe (arithmetic)
@inline(__always)
func compressorCurve(_ x: SIMD4<Float>, threshold t: Float, ratio r: Float, knee w: Float) -> SIMD4<Float> {
    let over = x - t
    let above = t + over / r
    var y = above
    if w > 0 {
        let k = over + w / 2
        let inKnee = x + (1 / r - 1) * k * k / (2 * w)
        let twiceOver = 2 * over
        y = y.replacing(with: inKnee, where: (twiceOver .<= w) .& (twiceOver .>= -w))
    }
    return y.replacing(with: x, where: 2 * over .< -w)
}
