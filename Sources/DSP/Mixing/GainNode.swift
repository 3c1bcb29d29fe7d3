import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain gain in dB over any number of channels (as many out as in).
///
/// The linear gain factor ramps over 20 ms, one step per sample, whenever the
/// parameter changes: a per-block step would be heard as zipper noise.
public final class GainNode: AudioNode {
    /// How long a gain change takes.
    public static var smoothingSeconds: Double { 0.02 }

    // MARK: Shared (atomics)
    public let gainDB: Parameter

    // MARK: Audio thread only
    /// The linear gain factor, ramping per sample to where the parameter points.
    private var gain: LinearSmoother
    /// The dB value last read, so the dB-to-gain conversion runs only on a change.
    private var targetDB: Float

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    /// The parameter, reachable without reference counting (`gainDB` keeps it alive).
    private let gainRef: Unmanaged<Parameter>

    /// - Parameters:
    ///   - gainDB: the initial gain, clamped to `range`.
    ///   - range: what the parameter accepts.
    public init(name: String, gainDB: Float = 0, range: ClosedRange<Float> = -24...24) {
        self.gainDB = Parameter(name: "gain", unit: "dB", range: range, default: min(max(gainDB, range.lowerBound), range.upperBound))
        gainRef = .passUnretained(self.gainDB)
        targetDB = self.gainDB.value
        gain = LinearSmoother(value: decibelsToGain(targetDB), rampLength: 960)
        super.init(name: name)
    }

    /// - Realtime: unsafe. Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        // Samples a ramp takes (20 ms).
        gain.rampLength = max(1, Int((Self.smoothingSeconds * spec.sampleRate).rounded()))
    }

    // MARK: Audio thread

    /// Jumps to the parameter's current value.
    /// - Thread: audio, control
    /// - Realtime: safe (an atomic load and arithmetic)
    @_noLocks
    public override func reset() {
        let db = readParameter()
        targetDB = db
        gain.snap(to: _unsafePerformance { decibelsToGain(db) })  // powf: arithmetic only
    }

    /// Scales input bus 0 into `output`.
    /// - Thread: audio
    /// - Realtime: safe. An atomic load, arithmetic on preallocated buffers;
    ///   checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else { output.clear(); return }  // unconnected: silence
        let db = readParameter()
        if db != targetDB {
            targetDB = db
            gain.setTarget(_unsafePerformance { decibelsToGain(db) })  // powf: arithmetic only
        }
        let lastInput = input.channelCount - 1
        if !gain.isSmoothing {
            // Settled: one gain for the whole block.
            let g = gain.current
            for c in 0..<output.channelCount {
                // `channels[…]` directly: the plainest code for the @_noLocks check.
                let source = input.channels[min(c, lastInput)], destination = output.channels[c]
                for i in 0..<frames { destination[i] = source[i] * g }
            }
            return
        }
        // Every channel walks its own copy of the ramp, so all get the same one.
        var ramp = gain
        for c in 0..<output.channelCount {
            ramp = gain
            let source = input.channels[min(c, lastInput)], destination = output.channels[c]
            for i in 0..<frames { destination[i] = source[i] * ramp.next() }
        }
        gain = ramp
    }

    /// The parameter's current value.
    /// - Thread: audio, control
    /// - Realtime: safe. A relaxed atomic load through an unretained
    ///   reference; `_unsafePerformance` because the checker cannot see the
    ///   body of `Parameter.value`, which lives in another file.
    @_noLocks @inline(__always)
    private func readParameter() -> Float {
        let g = gainRef
        return _unsafePerformance { g._withUnsafeGuaranteedRef { $0.value } }
    }
}
