import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sums `inputCount` input buses into `outputChannelCount` channels, each bus
/// with its own gain, pan and mute (`inputs[i]`), then scales by `masterVolume`.
///
/// Channel routing, for an input with `k` channels:
/// - mono input (`k == 1`, and every unconnected bus, which reads mono silence):
///   constant-power pan into channels 0 and 1 (left = cos θ, right = sin θ,
///   θ = (pan + 1)·π/4), so a centred source sits at −3 dB on both sides;
///   channels 2 and up get nothing.
/// - multi-channel input: channel c goes to channel c; pan acts as a balance on
///   channels 0 and 1 (centre = unity on both, pan −1 silences the right);
///   source channels beyond the output's are dropped.
/// - mono output (`outputChannelCount == 1`): pan is ignored and a multi-channel
///   input is folded down by averaging its channels.
///
/// Smoothing: every (input, output channel) pair has its own gain, the product
/// of fader gain, pan factor and mute, which ramps linearly over 20 ms, one step
/// per sample, whenever a control changes; the master volume ramps the same
/// way. Parameters are read once per block, so nothing clicks and the output
/// for fixed settings does not depend on the block size.
public final class MixerNode: AudioNode {
    /// How long a gain, pan, mute or master change takes.
    public static var smoothingSeconds: Double { 0.02 }

    /// The output's channel count, fixed at init.
    public let outputChannels: Int

    // MARK: Shared (atomics)
    /// One control strip per input bus.
    public let inputs: [MixerInput]
    /// Master volume, a linear gain factor 0…1, default 1.
    public let masterVolume: Parameter

    // MARK: Audio thread only
    /// Per input: parameter references and the values last turned into targets.
    private let strips: UnsafeMutablePointer<Strip>
    /// Per (input, output channel), index `input * channelCapacity + channel`.
    private var smoothers: UnsafeMutablePointer<LinearSmoother>
    private var master = LinearSmoother(value: 1, rampLength: 1)
    private var lastMaster: Float
    /// Set by `reset`: the first block after it snaps to the targets instead of ramping.
    private var snapPending = true

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    /// `inputs.count`, kept apart so the audio thread never touches the array (retain/release).
    private let inputCount: Int
    private let masterRef: Unmanaged<Parameter>
    private var rampLength = 1
    /// Output channels the smoothers are sized for.
    private var channelCapacity = 0

    /// What the audio thread keeps for one input.
    private struct Strip {
        let gain: Unmanaged<Parameter>
        let pan: Unmanaged<Parameter>
        let mute: Unmanaged<Parameter>
        /// The control values and source channel count the targets were last computed for.
        var gainDB: Float = .nan
        var panValue: Float = .nan
        var muted = false
        var sourceChannels = -1
    }

    /// - Parameters:
    ///   - inputCount: input buses (at least 1).
    ///   - outputChannelCount: channels out (at least 1), independent of the inputs.
    /// - Realtime: unsafe (allocates). Control thread only.
    public init(name: String = "mixer", inputCount: Int, outputChannelCount: Int = 2) {
        precondition(inputCount >= 1, "a mixer needs at least one input")
        precondition(outputChannelCount >= 1, "a mixer needs at least one output channel")
        outputChannels = outputChannelCount
        self.inputCount = inputCount
        inputs = (0..<inputCount).map { MixerInput(bus: $0) }
        masterVolume = Parameter(name: "master", range: 0...1, default: 1)
        masterRef = .passUnretained(masterVolume)
        lastMaster = masterVolume.value
        strips = .allocate(capacity: inputCount)
        for (i, input) in inputs.enumerated() {
            (strips + i).initialize(to: Strip(gain: .passUnretained(input.gainDB), pan: .passUnretained(input.pan), mute: .passUnretained(input.mute)))
        }
        smoothers = .allocate(capacity: 1)
        smoothers.initialize(to: LinearSmoother(value: 0, rampLength: 1))
        super.init(name: name)
    }

    deinit {
        strips.deinitialize(count: inputs.count)
        strips.deallocate()
        smoothers.deinitialize(count: max(1, inputs.count * channelCapacity))
        smoothers.deallocate()
    }

    public override var inputBusCount: Int { inputs.count }

    /// Always `outputChannels`, whatever comes in. Control thread.
    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { outputChannels }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        smoothers.deinitialize(count: max(1, inputs.count * channelCapacity))
        smoothers.deallocate()
        channelCapacity = max(1, outputChannelCount)
        rampLength = max(1, Int((Self.smoothingSeconds * spec.sampleRate).rounded()))
        smoothers = .allocate(capacity: inputs.count * channelCapacity)
        smoothers.initialize(repeating: LinearSmoother(value: 0, rampLength: rampLength), count: inputs.count * channelCapacity)
        master = LinearSmoother(value: 1, rampLength: rampLength)
    }

    // MARK: Audio thread

    /// Jumps every gain to its target; the next block computes the targets and
    /// snaps to them (no ramp from a stale state after a reset).
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated state only.
    @_noLocks
    public override func reset() {
        for i in 0..<inputCount {
            strips[i].sourceChannels = -1
            strips[i].gainDB = .nan
        }
        for k in 0..<(inputCount * channelCapacity) { smoothers[k].snap(to: 0) }
        snapPending = true
        lastMaster = readMixerParameter(masterRef)
        master.snap(to: lastMaster)
    }

    /// Mixes every input bus into `output`.
    /// - Thread: audio
    /// - Realtime: safe. Atomic loads, a few libm calls per changed control,
    ///   arithmetic on preallocated buffers; checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs buses: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        let channels = min(output.channelCount, channelCapacity)
        for c in 0..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
        for i in 0..<min(buses.count, inputCount) {
            let source = buses[i]
            guard source.channelCount > 0 else { continue }
            updateTargets(input: i, sourceChannels: source.channelCount, outputChannels: channels)
            for c in 0..<channels {
                let smoother = smoothers + (i * channelCapacity + c)
                if channels == 1 && source.channelCount > 1 {
                    accumulateFoldDown(source, into: output.channels[0], frames: frames, gain: &smoother.pointee)
                } else if source.channelCount == 1 {
                    accumulate(source.channels[0], into: output.channels[c], frames: frames, gain: &smoother.pointee)
                } else if c < source.channelCount {
                    accumulate(source.channels[c], into: output.channels[c], frames: frames, gain: &smoother.pointee)
                } else {
                    smoother.pointee.skip(frames)
                }
            }
        }
        snapPending = false

        let m = readMixerParameter(masterRef)
        if m != lastMaster {
            lastMaster = m
            master.setTarget(m)
        }
        applyMaster(output, channels: channels, frames: frames)
    }

    /// Recomputes input `i`'s per-channel targets when a control or the source
    /// channel count changed, and starts the ramps (or snaps right after `reset`).
    /// - Thread: audio
    /// - Realtime: safe. Atomic loads and libm arithmetic (`powf`, `cosf`), no allocation.
    @_noLocks
    private func updateTargets(input i: Int, sourceChannels: Int, outputChannels channels: Int) {
        let strip = strips + i
        let db = readMixerParameter(strip.pointee.gain)
        let pan = readMixerParameter(strip.pointee.pan)
        let muted = readMixerParameter(strip.pointee.mute) >= 0.5
        // One boolean expression at a time: `&&` takes its right side as an
        // autoclosure, which would capture (and retain) `self`.
        let snap = snapPending
        let unchanged = db == strip.pointee.gainDB && pan == strip.pointee.panValue
            && muted == strip.pointee.muted && sourceChannels == strip.pointee.sourceChannels
        if unchanged && !snap { return }
        strip.pointee.gainDB = db
        strip.pointee.panValue = pan
        strip.pointee.muted = muted
        strip.pointee.sourceChannels = sourceChannels
        // −60 dB is `MixerInput.silenceDB`, spelled out: the checker rejects touching the class.
        let gain: Float = muted || db <= -60 ? 0 : _unsafePerformance { powf(10, db / 20) }  // libm: arithmetic only
        for c in 0..<channels {
            let target = gain * mixerRoutingFactor(channel: c, outputChannels: channels, sourceChannels: sourceChannels, pan: pan)
            if snap { smoothers[i * channelCapacity + c].snap(to: target) }
            else { smoothers[i * channelCapacity + c].setTarget(target) }
        }
    }

    /// `destination += source × gain`, the gain ramping one step per sample.
    /// - Thread: audio
    /// - Realtime: safe. Plain arithmetic on the caller's buffers.
    @_noLocks @inline(__always)
    private func accumulate(_ source: UnsafeMutablePointer<Float>, into destination: UnsafeMutablePointer<Float>, frames: Int, gain: inout LinearSmoother) {
        if !gain.isSmoothing {
            let g = gain.current
            if g == 0 { return }  // silent or muted: nothing to add
            for n in 0..<frames { destination[n] += source[n] * g }
            return
        }
        for n in 0..<frames { destination[n] += source[n] * gain.next() }
    }

    /// `destination += (Σ source channels) × gain`, for a mono output (the
    /// gain target carries the 1/channels of the average).
    /// - Thread: audio
    /// - Realtime: safe. Plain arithmetic on the caller's buffers.
    @_noLocks
    private func accumulateFoldDown(_ source: AudioBlock, into destination: UnsafeMutablePointer<Float>, frames: Int, gain: inout LinearSmoother) {
        for n in 0..<frames {
            var sum: Float = 0
            for k in 0..<source.channelCount { sum += source.channels[k][n] }
            destination[n] += sum * gain.next()
        }
    }

    /// Scales the mix by the master volume; every channel walks its own copy of
    /// the ramp so all channels get the same one.
    /// - Thread: audio
    /// - Realtime: safe. Plain arithmetic on the output buffer.
    @_noLocks
    private func applyMaster(_ output: AudioBlock, channels: Int, frames: Int) {
        if !master.isSmoothing {
            let g = master.current
            if g == 1 { return }
            for c in 0..<channels {
                let d = output.channels[c]
                for n in 0..<frames { d[n] *= g }
            }
            return
        }
        var ramp = master
        for c in 0..<channels {
            ramp = master
            let d = output.channels[c]
            for n in 0..<frames { d[n] *= ramp.next() }
        }
        master = ramp
    }
}

// MARK: Audio thread: kernels

/// A parameter's current value.
/// - Thread: audio, control
/// - Realtime: safe. A relaxed atomic load through an unretained reference
///   (the node's `let`s keep the parameters alive); `_unsafePerformance`
///   because the checker cannot see `Parameter.value`, which lives in another file.
@_noLocks @inline(__always)
private func readMixerParameter(_ parameter: Unmanaged<Parameter>) -> Float {
    _unsafePerformance { parameter._withUnsafeGuaranteedRef { $0.value } }
}

/// The pan/balance/fold-down factor from a source with `sourceChannels`
/// channels to output channel `c` (see `MixerNode`'s documentation).
/// - Thread: audio
/// - Realtime: safe (arithmetic, `cosf`)
@_noLocks
private func mixerRoutingFactor(channel c: Int, outputChannels: Int, sourceChannels: Int, pan: Float) -> Float {
    if outputChannels == 1 { return c == 0 ? 1 / Float(sourceChannels) : 0 }
    if sourceChannels == 1 {
        guard c < 2 else { return 0 }
        // Left = cos((1 + pan)·π/4), right = cos((1 − pan)·π/4) = sin((1 + pan)·π/4):
        // the same expression on both sides makes a centred source exactly equal
        // left and right, and the tiny residue of cos(π/2) in Float is cut to 0.
        let side: Float = c == 0 ? 1 + pan : 1 - pan
        let f = _unsafePerformance { cosf(side * (Float.pi / 4)) }  // libm: arithmetic only
        return f < 1e-6 ? 0 : f
    }
    if c == 0 { return min(1, 1 - pan) }
    if c == 1 { return min(1, 1 + pan) }
    return c < sourceChannels ? 1 : 0
}
