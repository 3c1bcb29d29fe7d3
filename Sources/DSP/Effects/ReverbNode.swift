import Engine

/// An algorithmic stereo reverb after Jezar's Freeverb (public domain):
/// per channel, 8 parallel lowpass-feedback comb filters feed 4 series
/// all-pass diffusers; the right channel's delay lines are 23 samples longer
/// (the stereo spread), and all tunings are scaled from 44.1 kHz to the
/// actual sample rate.
///
/// Input: any channel count. The dry path adapts it to stereo the way a mixer
/// does (`AudioBlock.copy`: mono goes to both sides, more channels fold down);
/// the tank takes the sum of those two dry channels, as Freeverb does.
/// Output: always 2 channels.
///
/// **Mix law.** With `w` = wet / 100 (smoothed),
///
///     dry gain = min(1, 2·(1 − w))        wet gain = min(1, 2·w)
///
/// so the dry voice stays at unity up to 50 % while the reverb fades in, and
/// from 50 % on the reverb stays at full level while the dry voice fades out.
/// For a voice app that is the useful law: turning the reverb up never makes the
/// singer quieter until the knob passes half way, whereas an equal-power
/// crossfade already takes 3 dB off the voice at 50 %. The price is up to
/// +3 dB of total power around 50 % (dry and wet are uncorrelated); the
/// limiter after the mixer takes care of that. At 0 % the output is exactly
/// the dry input (bit for bit); at 100 % it is only the reverb.
///
/// **As a send effect** (`passesDry` false, a mixer's reverb return): the
/// output is only the reverb, `wet / 100` of it (a linear return level), and
/// the dry input never reaches it. The input is the send bus, the output is
/// added to the main bus; at 0 % the output is silence (and the tank idles).
///
/// **Smoothing.** All four parameters are smoothed per sample with linear
/// ramps (wet and width 30 ms, room size and damping 50 ms), so moving any of
/// them never clicks.
///
/// **Idle tank.** While the wet amount is settled at exactly 0 the tank is not
/// run, to save CPU in the common "reverb off" case. Its delay lines are
/// cleared once when it goes idle, so a later wet increase starts from an empty
/// room instead of replaying a stale tail from minutes ago. (At that moment
/// the tail is inaudible anyway: its gain is 0.)
///
/// **Denormals.** Every value stored in the tank (delay line samples and the
/// comb lowpass states) is flushed to 0 when its magnitude falls below 1e-20,
/// so the tank decays to exact zeros and never produces subnormal numbers,
/// with or without flush-to-zero on the thread.
public final class ReverbNode: AudioNode {
    // MARK: Shared (atomics)
    /// Reverb amount, 0…100 % (see the mix law above). Default 0: off.
    public let wet: Parameter
    /// Room size, 0…1; maps to comb feedback 0.7…0.98.
    public let roomSize: Parameter
    /// High-frequency damping in the tank, 0…1.
    public let damping: Parameter
    /// Stereo width of the wet signal, 0…1.
    public let width: Parameter

    // MARK: Audio thread only
    private var wetSmoother = LinearSmoother(value: 0, rampLength: 1)
    private var widthSmoother = LinearSmoother(value: 1, rampLength: 1)
    private var roomSmoother = LinearSmoother(value: 0.5, rampLength: 1)
    private var dampingSmoother = LinearSmoother(value: 0.5, rampLength: 1)
    /// True while the tank is skipped; its lines were cleared on entering that state.
    private var tankIdle = true

    // MARK: Control thread only (set by `init`, read by the audio thread)
    /// False for a send effect: only the reverb comes out (see "As a send effect").
    public let passesDry: Bool

    // MARK: Control thread only (allocated in `allocate`, freed in deinit)
    private var tank: ReverbTank?

    /// - Parameters:
    ///   - name: the node's name for diagnostics.
    ///   - preset: the room; sets `roomSize`, `damping` and `width`. `wet` starts at 0.
    ///   - passesDry: true for an insert (the mix law above), false for a send
    ///     effect whose output is the reverb alone.
    public init(name: String = "reverb", preset: RoomPreset = .medium, passesDry: Bool = true) {
        self.passesDry = passesDry
        wet = Parameter(name: "reverb", unit: "%", range: 0...100, default: 0)
        roomSize = Parameter(name: "room size", range: 0...1, default: preset.roomSize)
        damping = Parameter(name: "damping", range: 0...1, default: preset.damping)
        width = Parameter(name: "width", range: 0...1, default: preset.width)
        super.init(name: name)
    }

    deinit { tank?.deallocate() }

    /// Sets room size, damping and width from `preset`; the node smooths the change.
    /// Leaves `wet` alone.
    /// - Thread: any (the control thread calls it)
    /// - Realtime: safe (three atomic stores)
    public func apply(_ preset: RoomPreset) {
        roomSize.value = preset.roomSize
        damping.value = preset.damping
        width.value = preset.width
    }

    override public func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    /// Allocates every delay line and scratch buffer for `spec`.
    /// - Realtime: unsafe (allocates). Control thread only.
    override public func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        tank?.deallocate()
        tank = ReverbTank(sampleRate: spec.sampleRate, maximumFrames: spec.maximumBlockSize)
        let rate = Float(spec.sampleRate)
        wetSmoother.rampLength = max(1, Int(rate * 0.030))
        widthSmoother.rampLength = max(1, Int(rate * 0.030))
        roomSmoother.rampLength = max(1, Int(rate * 0.050))
        dampingSmoother.rampLength = max(1, Int(rate * 0.050))
    }

    // MARK: Audio thread

    /// Clears the delay lines and snaps the smoothed parameters to their targets.
    /// - Thread: audio, control
    /// - Realtime: safe (no allocation)
    override public func reset() {
        tank?.clear()
        tankIdle = true
        wetSmoother.snap(to: wet.value / 100)
        widthSmoother.snap(to: width.value)
        roomSmoother.snap(to: roomSize.value)
        dampingSmoother.snap(to: damping.value)
    }

    /// Renders dry + reverb into the two output channels.
    /// - Thread: audio
    /// - Realtime: safe (no allocation, locks, logging or strings)
    override public func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        // The dry signal, adapted to stereo, goes straight into the output;
        // the tank then reads it from there and mixes in place.
        if let input = inputs.connectedBus0 {
            output.copy(from: input)
        } else {
            output.clear()
        }
        guard let tank, output.channelCount >= 2 else { return }

        wetSmoother.setTarget(wet.value / 100)
        widthSmoother.setTarget(width.value)
        roomSmoother.setTarget(roomSize.value)
        dampingSmoother.setTarget(damping.value)

        if wetSmoother.current == 0 && !wetSmoother.isSmoothing {
            // Settled at 0 %: the output is exactly the dry signal (a send's is
            // silence). Skip the tank, clearing it once so nothing stale comes back later.
            if !passesDry { output.clear() }
            if !tankIdle {
                tank.clear()
                tankIdle = true
            }
            widthSmoother.snap(to: widthSmoother.target)
            roomSmoother.snap(to: roomSmoother.target)
            dampingSmoother.snap(to: dampingSmoother.target)
            return
        }
        tankIdle = false

        var offset = 0
        while offset < output.frameCount {
            let frames = min(tank.capacity, output.frameCount - offset)
            tank.process(
                left: output[0] + offset, right: output[1] + offset, frames: frames,
                wet: &wetSmoother, width: &widthSmoother, room: &roomSmoother, damping: &dampingSmoother,
                passesDry: passesDry)
            offset += frames
        }
    }
}

// MARK: - The tank

/// One Schroeder all-pass diffuser with feedback 0.5 (Freeverb's `allpass`).
struct ReverbAllpass {
    let line: UnsafeMutablePointer<Float>
    let length: Int
    var index = 0

    init(line: UnsafeMutablePointer<Float>, length: Int) {
        self.line = line
        self.length = length
    }

    // MARK: Audio thread

    /// Runs four all-passes in series (`stages[0]` first) over `frames`
    /// samples of `signal` in place, in one pass: each group of four frames
    /// goes through all four stages in registers, instead of four passes that
    /// each load and store the whole signal. Exactly the arithmetic of four
    /// stages run one after the other over the whole block (Freeverb's
    /// per-sample `x + delayed · 0.5` into the line, `delayed − x` out),
    /// sample for sample: a stage's line is at least
    /// `frames` long (the tank cuts blocks to its shortest line), so within
    /// a call no stage reads what it wrote, whichever way the work is ordered.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    static func processFour(_ stages: UnsafeMutablePointer<ReverbAllpass>, _ signal: UnsafeMutablePointer<Float>, frames: Int) {
        typealias V = SIMD4<Float>
        let l0 = stages[0].line, l1 = stages[1].line, l2 = stages[2].line, l3 = stages[3].line
        let n0 = stages[0].length, n1 = stages[1].length, n2 = stages[2].length, n3 = stages[3].length
        var i0 = stages[0].index, i1 = stages[1].index, i2 = stages[2].index, i3 = stages[3].index
        let half = V(repeating: 0.5)
        var done = 0
        // In runs up to the nearest end of a line, so the inner loops have no wrap test.
        while done < frames {
            let n = min(min(frames - done, min(n0 - i0, n1 - i1)), min(n2 - i2, n3 - i3))
            let s = signal + done
            let p0 = l0 + i0, p1 = l1 + i1, p2 = l2 + i2, p3 = l3 + i3
            var f = 0
            while f + 4 <= n {
                var x = allpassLoad(s + f)
                x = allpassStep(x, p0 + f, half)
                x = allpassStep(x, p1 + f, half)
                x = allpassStep(x, p2 + f, half)
                x = allpassStep(x, p3 + f, half)
                allpassStore(x, s + f)
                f += 4
            }
            while f < n {
                var x = s[f]
                var delayed = p0[f]; p0[f] = flushTiny(x + delayed * 0.5); x = delayed - x
                delayed = p1[f]; p1[f] = flushTiny(x + delayed * 0.5); x = delayed - x
                delayed = p2[f]; p2[f] = flushTiny(x + delayed * 0.5); x = delayed - x
                delayed = p3[f]; p3[f] = flushTiny(x + delayed * 0.5); x = delayed - x
                s[f] = x
                f += 1
            }
            i0 += n; if i0 == n0 { i0 = 0 }
            i1 += n; if i1 == n1 { i1 = 0 }
            i2 += n; if i2 == n2 { i2 = 0 }
            i3 += n; if i3 == n3 { i3 = 0 }
            done += n
        }
        stages[0].index = i0; stages[1].index = i1; stages[2].index = i2; stages[3].index = i3
    }
}

/// The two tanks (left and right) with their delay lines and scratch buffers,
/// all in a few allocations made on the control thread. A plain value of
/// pointers: copying it shares the storage; `deallocate()` frees it once.
struct ReverbTank {
    static let combCount = 8
    static let allpassCount = 4
    /// Freeverb's comb and all-pass lengths at 44.1 kHz (left channel).
    static let combTunings = [1116, 1188, 1277, 1356, 1422, 1491, 1557, 1617]
    static let allpassTunings = [556, 441, 341, 225]
    /// Extra delay of every right-channel line, at 44.1 kHz.
    static let stereoSpread = 23
    /// Input gain into the combs (Freeverb's `fixedgain`).
    static let inputGain: Float = 0.015
    /// Wet output gain at 100 % (Freeverb's `scalewet` × its default wet of 1/3).
    static let wetScale: Float = 1

    /// Two comb banks: the left channel's, then the right's.
    let combBanks: UnsafeMutablePointer<ReverbCombBank>
    /// `2 × allpassCount` all-passes: left, then right.
    let allpasses: UnsafeMutablePointer<ReverbAllpass>
    let lines: UnsafeMutablePointer<Float>
    let lineSampleCount: Int
    /// Five scratch rows of `capacity` frames: tank input, feedback, damping, left and right wet.
    let scratch: UnsafeMutablePointer<Float>
    let capacity: Int

    /// The length of a line tuned to `samples44k` at 44.1 kHz, at `sampleRate`.
    static func scaledLength(_ samples44k: Int, sampleRate: Double) -> Int {
        max(1, Int((Double(samples44k) * sampleRate / 44_100).rounded()))
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    init(sampleRate: Double, maximumFrames: Int) {
        var combLengths: [Int] = []
        var allpassLengths: [Int] = []
        for spread in [0, Self.stereoSpread] {
            combLengths += Self.combTunings.map { Self.scaledLength($0 + spread, sampleRate: sampleRate) }
            allpassLengths += Self.allpassTunings.map { Self.scaledLength($0 + spread, sampleRate: sampleRate) }
        }
        // A chunk never exceeds the shortest line: the comb banks rely on it.
        capacity = max(1, min(maximumFrames, (combLengths + allpassLengths).min()!))
        lineSampleCount = allpassLengths.reduce(0, +)
        lines = .allocate(capacity: lineSampleCount)
        lines.initialize(repeating: 0, count: lineSampleCount)
        combBanks = .allocate(capacity: 2)
        allpasses = .allocate(capacity: allpassLengths.count)
        var next = lines
        for bank in 0..<2 {
            let delays = Array(combLengths[(bank * Self.combCount)..<((bank + 1) * Self.combCount)])
            (combBanks + bank).initialize(to: ReverbCombBank(delays: delays, maximumFrames: capacity))
        }
        for (k, length) in allpassLengths.enumerated() {
            (allpasses + k).initialize(to: ReverbAllpass(line: next, length: length))
            next += length
        }
        scratch = .allocate(capacity: 5 * capacity)
        scratch.initialize(repeating: 0, count: 5 * capacity)
    }

    /// - Realtime: unsafe (frees memory). Control thread only.
    func deallocate() {
        lines.deallocate()
        combBanks[0].deallocate()
        combBanks[1].deallocate()
        combBanks.deallocate()
        allpasses.deallocate()
        scratch.deallocate()
    }

    // MARK: Audio thread

    /// Zeros every delay line and filter state.
    /// - Thread: audio, control
    /// - Realtime: safe (no allocation)
    @_noLocks
    func clear() {
        lines.update(repeating: 0, count: lineSampleCount)
        combBanks[0].clear()
        combBanks[1].clear()
        for k in 0..<(2 * Self.allpassCount) { allpasses[k].index = 0 }
    }

    /// Runs `frames` (at most `capacity`) samples: reads the dry stereo signal
    /// from `left`/`right`, feeds their sum to both tanks, and writes the mix back.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    func process(
        left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int,
        wet: inout LinearSmoother, width: inout LinearSmoother,
        room: inout LinearSmoother, damping: inout LinearSmoother, passesDry: Bool
    ) {
        let tankInput = scratch
        let feedback = scratch + capacity
        let damp = scratch + 2 * capacity
        let wetLeft = scratch + 3 * capacity
        let wetRight = scratch + 4 * capacity

        for f in 0..<frames { tankInput[f] = (left[f] + right[f]) * Self.inputGain }
        // Freeverb's mappings: feedback = 0.7 + 0.28 · room, damp = 0.4 · damping.
        // While both are settled the banks take one value each for the block.
        let varying = room.isSmoothing || damping.isSmoothing
        Self.ramp(&room, into: feedback, frames: varying ? frames : 1, scale: 0.28, offset: 0.7)
        Self.ramp(&damping, into: damp, frames: varying ? frames : 1, scale: 0.4, offset: 0)

        combBanks[0].process(input: tankInput, feedback: feedback, damp: damp, varying: varying, into: wetLeft, frames: frames)
        combBanks[1].process(input: tankInput, feedback: feedback, damp: damp, varying: varying, into: wetRight, frames: frames)
        // The four diffusers of each side in one pass (`allpassCount` is 4).
        ReverbAllpass.processFour(allpasses, wetLeft, frames: frames)
        ReverbAllpass.processFour(allpasses + Self.allpassCount, wetRight, frames: frames)

        if !wet.isSmoothing && !width.isSmoothing {
            // Settled: the same gains for the whole block.
            let w = wet.current, spread = width.current
            let dryGain = passesDry ? Self.minimum(1, 2 - 2 * w) : 0
            let wetGain = (passesDry ? Self.minimum(1, 2 * w) : w) * Self.wetScale
            let direct = wetGain * (0.5 + 0.5 * spread)
            let cross = wetGain * (0.5 - 0.5 * spread)
            for f in 0..<frames {
                let l = wetLeft[f]
                let r = wetRight[f]
                left[f] = left[f] * dryGain + l * direct + r * cross
                right[f] = right[f] * dryGain + r * direct + l * cross
            }
            return
        }
        for f in 0..<frames {
            let w = wet.next()
            let spread = width.next()
            let dryGain = passesDry ? Self.minimum(1, 2 - 2 * w) : 0
            let wetGain = (passesDry ? Self.minimum(1, 2 * w) : w) * Self.wetScale
            let direct = wetGain * (0.5 + 0.5 * spread)
            let cross = wetGain * (0.5 - 0.5 * spread)
            let l = wetLeft[f]
            let r = wetRight[f]
            left[f] = left[f] * dryGain + l * direct + r * cross
            right[f] = right[f] * dryGain + r * direct + l * cross
        }
    }

    /// Fills `dest` with `scale · x + offset` for the next `frames` values of `smoother`.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks
    @inline(__always)
    static func ramp(_ smoother: inout LinearSmoother, into dest: UnsafeMutablePointer<Float>, frames: Int, scale: Float, offset: Float) {
        if smoother.isSmoothing {
            for f in 0..<frames { dest[f] = smoother.next() * scale + offset }
        } else {
            dest.update(repeating: smoother.current * scale + offset, count: frames)
        }
    }

    /// The smaller of `a` and `b`.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    static func minimum(_ a: Float, _ b: Float) -> Float { a < b ? a : b }
}

// MARK: Audio thread: kernels

/// Stored tank values below 1e-20 in magnitude become 0: far below anything
/// audible (−400 dBFS), far above the subnormal range (below 1.2e-38).
/// A dead band, not a rounding: rounding small values to a grid (adding and
/// subtracting a constant) would leave the recirculating lines in a limit
/// cycle one grid step above zero instead of letting them die out.
/// (The comb bank has the same for vectors, `flushTinyLanes`.)
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func flushTiny(_ x: Float) -> Float {
    abs(x) < 1e-20 ? 0 : x
}

/// One all-pass stage on four consecutive frames: `line` holds the stage's
/// delayed samples for them and takes the new ones; returns the stage's output.
/// The same arithmetic as the scalar tail of `ReverbAllpass.processFour`,
/// lane for lane (the flush is `flushTiny`'s dead band).
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func allpassStep(_ x: SIMD4<Float>, _ line: UnsafeMutablePointer<Float>, _ half: SIMD4<Float>) -> SIMD4<Float> {
    let delayed = allpassLoad(line)
    let stored = x + delayed * half
    allpassStore(stored.replacing(with: 0, where: (stored .< 1e-20) .& (stored .> -1e-20)), line)
    return delayed - x
}

/// Four consecutive samples from `p`, unaligned.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func allpassLoad(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
    // `_unsafePerformance`: unoptimized builds do not specialize the generic
    // loadUnaligned, so the @_noLocks check could not see through it.
    _unsafePerformance { UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self) }
}

/// Four consecutive samples to `p`, unaligned.
/// - Thread: audio
/// - Realtime: safe
@inline(__always)
private func allpassStore(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    _unsafePerformance { UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self) }
}
