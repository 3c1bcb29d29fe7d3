import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One RBJ biquad band (high-pass, shelf or peaking) over any number of
/// channels: as many channels out as come in, each with its own state.
///
/// Parameter changes never click: the node smooths frequency (in the log
/// domain, so a sweep sounds even), gain (in dB) and Q (in the log domain)
/// over 20 ms and recomputes the coefficients every 16 samples while they
/// move. The 16-sample grid follows a running sample counter, not the block
/// boundaries, so the output does not depend on how the driver slices the
/// stream. Once the values settle the coefficients are computed from the exact
/// targets and stay fixed.
public final class BiquadNode: AudioNode {
    /// Samples between coefficient updates while a parameter moves.
    public static var updateInterval: Int { 16 }
    /// How long a parameter change takes.
    public static var smoothingSeconds: Double { 0.02 }

    public let kind: BiquadKind

    // MARK: Shared (atomics)
    /// Corner or center frequency, 10…20000 Hz.
    public let frequency: Parameter
    /// Shelf or peak gain, −24…+24 dB (the high-pass ignores it).
    public let gainDB: Parameter
    /// Q, 0.1…10; 0.7071 is Butterworth for the high-pass and slope S = 1 for the shelves.
    public let q: Parameter

    // MARK: Audio thread only
    private var biquad = Biquad()
    /// log2 of the frequency, dB gain and log2 of Q, each ramping in grid steps
    /// (one `next()` per coefficient update) and landing exactly on its target.
    private var logFrequency = LinearRamp<Double>(value: 0, rampLength: 60)
    private var gain = LinearRamp<Double>(value: 0, rampLength: 60)
    private var logQ = LinearRamp<Double>(value: 0, rampLength: 60)
    /// The parameter values last read; the ramps head for these.
    private var targetFrequency: Float
    private var targetGainDB: Float
    private var targetQ: Float
    /// Whether the coefficients still have to catch up with the targets.
    private var moving = false
    /// The running sample counter modulo `updateInterval`.
    private var phase = 0

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    /// The parameters, reachable without reference counting (the `let`s above keep them alive).
    private let frequencyRef: Unmanaged<Parameter>
    private let gainRef: Unmanaged<Parameter>
    private let qRef: Unmanaged<Parameter>
    private var sampleRate: Double = 48_000
    private var states: UnsafeMutablePointer<BiquadState>
    private var stateCount = 0

    /// - Parameters: initial values; each is clamped to its parameter's range.
    public init(name: String, kind: BiquadKind, frequency: Float, gainDB: Float = 0, q: Float = 0.7071) {
        self.kind = kind
        self.frequency = Parameter(name: "frequency", unit: "Hz", range: 10...20_000, default: min(max(frequency, 10), 20_000))
        self.gainDB = Parameter(name: "gain", unit: "dB", range: -24...24, default: min(max(gainDB, -24), 24))
        self.q = Parameter(name: "Q", range: 0.1...10, default: min(max(q, 0.1), 10))
        targetFrequency = self.frequency.value
        targetGainDB = self.gainDB.value
        targetQ = self.q.value
        frequencyRef = .passUnretained(self.frequency)
        gainRef = .passUnretained(self.gainDB)
        qRef = .passUnretained(self.q)
        states = .allocate(capacity: 1)
        states.initialize(to: BiquadState())
        super.init(name: name)
    }

    deinit {
        states.deinitialize(count: max(1, stateCount))
        states.deallocate()
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        states.deinitialize(count: max(1, stateCount))
        states.deallocate()
        stateCount = max(1, outputChannelCount)
        states = .allocate(capacity: stateCount)
        states.initialize(repeating: BiquadState(), count: stateCount)
        sampleRate = spec.sampleRate
        // Grid steps a ramp takes (20 ms).
        let rampSteps = max(1, Int((Self.smoothingSeconds * spec.sampleRate / Double(Self.updateInterval)).rounded()))
        logFrequency.rampLength = rampSteps
        gain.rampLength = rampSteps
        logQ.rampLength = rampSteps
    }

    // MARK: Audio thread

    /// The coefficients the node is filtering with right now (for tests and displays).
    /// Read it from the thread that renders, or while nothing renders.
    /// - Thread: audio, control (while nothing renders)
    /// - Realtime: safe
    public var currentCoefficients: BiquadCoefficients { biquad.coefficients }

    /// Clears the filter state and jumps to the parameters' current values.
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated state; no allocation, no locks.
    @_noLocks
    public override func reset() {
        (targetFrequency, targetGainDB, targetQ) = readParameters()
        let f = Double(targetFrequency), qv = Double(targetQ)
        let (lf, lq) = _unsafePerformance { (log2(f), log2(qv)) }  // libm: arithmetic only
        logFrequency.snap(to: lf)
        gain.snap(to: Double(targetGainDB))
        logQ.snap(to: lq)
        biquad.coefficients = coefficients(frequency: f, gainDB: Double(targetGainDB), q: qv)
        moving = false
        phase = 0
        for c in 0..<stateCount { states[c].z1 = 0; states[c].z2 = 0 }
    }

    /// Filters input bus 0 into `output`, channel by channel.
    /// - Thread: audio
    /// - Realtime: safe. Reads the parameters through atomics, filters in
    ///   preallocated state and computes coefficients with plain arithmetic;
    ///   checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        guard let input = inputs.connectedBus0 else { output.clear(); return }  // unconnected: silence
        readTargets()
        filter(input, into: output)
    }

    /// Filters `input` into `output` (which may be the same block) with the targets
    /// last read, moving the coefficients along the 16-sample grid while they ramp.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state; checked by the compiler with `@_noLocks`.
    @_noLocks
    func filter(_ input: AudioBlock, into output: AudioBlock) {
        let frames = output.frameCount
        let channels = min(output.channelCount, stateCount)
        let lastInput = input.channelCount - 1
        let interval = 16  // BiquadNode.updateInterval; a literal keeps type metadata out of the checked code
        var done = 0
        while done < frames {
            if moving, phase == 0 { advanceSmoothing() }
            // While moving, stop at the next point of the 16-sample grid.
            let n = moving ? min(interval - phase, frames - done) : frames - done
            // Channels in pairs, two recursions in one SIMD2 (identical results to one
            // at a time); an odd last channel alone. The kernel is copied to a local so
            // the loops touch no class storage.
            let kernel = biquad
            var c = 0
            while c + 1 < channels {
                // `channels[…]` directly: the plainest code for the @_noLocks check.
                let source0 = input.channels[min(c, lastInput)], source1 = input.channels[min(c + 1, lastInput)]
                kernel.process(UnsafePointer(source0 + done), UnsafePointer(source1 + done),
                               output.channels[c] + done, output.channels[c + 1] + done,
                               count: n, state0: &states[c], state1: &states[c + 1])
                c += 2
            }
            if c < channels {
                let source = input.channels[min(c, lastInput)]
                kernel.process(UnsafePointer(source + done), output.channels[c] + done, count: n, state: &states[c])
            }
            phase = (phase + n) % interval
            done += n
        }
        // Channels beyond the prepared count (a misuse) get silence rather than garbage.
        for c in channels..<max(channels, output.channelCount) { output.channels[c].update(repeating: 0, count: frames) }
    }

    /// The parameters' current values.
    /// - Thread: audio, control
    /// - Realtime: safe. Three relaxed atomic loads through unretained
    ///   references; `_unsafePerformance` because the checker cannot see the
    ///   body of `Parameter.value`, which lives in another file.
    @_noLocks @inline(__always)
    private func readParameters() -> (Float, Float, Float) {
        let f = frequencyRef, g = gainRef, q = qRef
        return _unsafePerformance {
            (f._withUnsafeGuaranteedRef { $0.value }, g._withUnsafeGuaranteedRef { $0.value }, q._withUnsafeGuaranteedRef { $0.value })
        }
    }

    /// The one channel's kernel and state when this block's coefficients hold
    /// still (no ramp under way, targets read), for `BiquadSeriesNode`'s fused
    /// pass; nil while a parameter moves or with more than one channel. The
    /// caller filters `frames` frames and then calls `skipSettled(frames)`.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func settledMono(outputChannels: Int) -> (Biquad, UnsafeMutablePointer<BiquadState>)? {
        // Plain locals: `&&` takes an autoclosure, which would retain self.
        let one = stateCount == 1, oneOut = outputChannels == 1
        if moving || !one || !oneOut { return nil }
        return (biquad, states)
    }

    /// Moves the grid on by `frames` filtered with the settled coefficients.
    /// - Thread: audio
    /// - Realtime: safe
    @_noLocks @inline(__always)
    func skipSettled(_ frames: Int) {
        phase = (phase + frames) % 16  // BiquadNode.updateInterval
    }

    /// Starts ramps towards any parameter that changed since the last block.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic and libm)
    @_noLocks @inline(__always)
    func readTargets() {
        let (f, g, qv) = readParameters()
        if f != targetFrequency {
            targetFrequency = f
            let value = Double(f)
            logFrequency.setTarget(_unsafePerformance { log2(value) })
            moving = true
        }
        if g != targetGainDB {
            targetGainDB = g
            gain.setTarget(Double(g))
            moving = true
        }
        if qv != targetQ {
            targetQ = qv
            let value = Double(qv)
            logQ.setTarget(_unsafePerformance { log2(value) })
            moving = true
        }
    }

    /// Moves the ramps one grid step on and recomputes the coefficients; at
    /// the end of the ramps, uses the exact targets and stops moving.
    /// - Thread: audio
    /// - Realtime: safe (arithmetic and libm)
    @_noLocks @inline(__always)
    private func advanceSmoothing() {
        let lf = logFrequency.next()
        let g = gain.next()
        let lq = logQ.next()
        // Plain `||` would capture self in autoclosures, which the checker rejects.
        var stillMoving = logFrequency.isSmoothing
        if gain.isSmoothing { stillMoving = true }
        if logQ.isSmoothing { stillMoving = true }
        if stillMoving {
            let (f, qv) = _unsafePerformance { (exp2(lf), exp2(lq)) }  // libm: arithmetic only
            biquad.coefficients = coefficients(frequency: f, gainDB: g, q: qv)
        } else {
            biquad.coefficients = coefficients(frequency: Double(targetFrequency), gainDB: Double(targetGainDB), q: Double(targetQ))
            moving = false
        }
    }

    /// The coefficients of this node's kind for these values at the prepared rate.
    /// - Thread: audio, control
    /// - Realtime: safe (arithmetic and libm)
    @_noLocks @inline(__always)
    private func coefficients(frequency: Double, gainDB: Double, q: Double) -> BiquadCoefficients {
        BiquadCoefficients.make(kind: kind, sampleRate: sampleRate, frequency: frequency, gainDB: gainDB, q: q)
    }
}
