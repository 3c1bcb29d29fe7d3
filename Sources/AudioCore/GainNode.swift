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
    /// The linear gain factor now, where it is heading, and the per-sample step.
    private var gain: Float
    private var targetGain: Float
    private var step: Float = 0
    /// Samples left in the ramp; 0 when settled.
    private var remaining = 0
    /// The dB value last read, so the dB-to-gain conversion runs only on a change.
    private var targetDB: Float

    // MARK: Control thread only (set by `init` and `allocate`, read by the audio thread)
    /// The parameter, reachable without reference counting (`gainDB` keeps it alive).
    private let gainRef: Unmanaged<Parameter>
    /// Samples a ramp takes (20 ms), and its inverse.
    private var rampLength = 960
    private var inverseRampLength: Float = 1.0 / 960

    /// - Parameters:
    ///   - gainDB: the initial gain, clamped to `range`.
    ///   - range: what the parameter accepts.
    public init(name: String, gainDB: Float = 0, range: ClosedRange<Float> = -24...24) {
        self.gainDB = Parameter(name: "gain", unit: "dB", range: range, default: min(max(gainDB, range.lowerBound), range.upperBound))
        gainRef = .passUnretained(self.gainDB)
        targetDB = self.gainDB.value
        gain = decibelsToGain(targetDB)
        targetGain = gain
        super.init(name: name)
    }

    /// - Realtime: unsafe. Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        rampLength = max(1, Int((Self.smoothingSeconds * spec.sampleRate).rounded()))
        inverseRampLength = 1 / Float(rampLength)
    }

    /// Jumps to the parameter's current value.
    /// - Realtime: safe (an atomic load and arithmetic).
    @_noLocks
    public override func reset() {
        let db = readParameter()
        targetDB = db
        gain = _unsafePerformance { decibelsToGain(db) }  // powf: arithmetic only
        targetGain = gain
        remaining = 0
    }

    /// Scales input bus 0 into `output`.
    /// - Realtime: safe. An atomic load, arithmetic on preallocated buffers;
    ///   checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard inputs.count > 0, inputs[0].channelCount > 0 else {
            for c in 0..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
            return
        }
        let input = inputs[0]
        let db = readParameter()
        if db != targetDB {
            targetDB = db
            targetGain = _unsafePerformance { decibelsToGain(db) }  // powf: arithmetic only
            remaining = rampLength
            step = (targetGain - gain) * inverseRampLength
        }
        // The ramp part (possibly empty), then the settled part at a constant gain.
        let ramped = min(remaining, frames)
        let start = gain, increment = step, end = targetGain, left = remaining
        var reached = start
        for c in 0..<output.channelCount {
            // `channels[…]`, not AudioBlock's subscript: the checker cannot see into other files.
            let source = input.channels[min(c, input.channelCount - 1)], destination = output.channels[c]
            var g = start
            for i in 0..<ramped {
                // The last ramp sample lands exactly on the target.
                g = left - i == 1 ? end : g + increment
                destination[i] = source[i] * g
            }
            reached = g
            if ramped < frames {
                for i in ramped..<frames { destination[i] = source[i] * g }
            }
        }
        if ramped > 0 {
            remaining = left - ramped
            gain = remaining == 0 ? end : reached
        }
    }

    /// The parameter's current value.
    /// - Realtime: safe. A relaxed atomic load through an unretained
    ///   reference; `_unsafePerformance` because the checker cannot see the
    ///   body of `Parameter.value`, which lives in another file.
    @_noLocks @inline(__always)
    private func readParameter() -> Float {
        let g = gainRef
        return _unsafePerformance { g._withUnsafeGuaranteedRef { $0.value } }
    }
}
