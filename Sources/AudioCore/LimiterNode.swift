#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A look-ahead brick-wall peak limiter, channels linked, as many channels out as in.
///
/// The signal is delayed by `latencyFrames` (L, the look-ahead). For each
/// incoming frame n the limiter computes the gain that frame needs,
/// r[n] = ceiling / max over channels |x[n]| (1 when below the ceiling), and then:
/// 1. h[n] = min of r over the last L + 1 frames (a monotonic deque: O(1) amortised);
/// 2. e[n] follows h down at once and back up exponentially (`releaseMilliseconds`
///    time constant), never above h[n];
/// 3. the applied gain g[n] is the mean of e over the last L + 1 frames, so the gain
///    glides down linearly over the look-ahead (the attack) instead of stepping.
/// The delayed frame x[n − L] leaves as x[n − L]·g[n]. Every e in that mean is at most
/// r[n − L] (each h window contains frame n − L), so the gain has always reached the
/// reduction a peak needs by the time the peak leaves the delay line.
/// Finally every sample is clamped to ±ceiling: float rounding (or anything else)
/// can never push a sample above the ceiling. NaN and ±Inf are replaced by 0 at
/// the input, before they can reach the delay line or the gain computer.
///
/// Below the ceiling the gain is exactly 1 and the output is exactly the input,
/// delayed by `latencyFrames`. Everything is per sample, so the output does not
/// depend on the block size.
public final class LimiterNode: AudioNode {
    /// The ceiling: no sample leaves above it.
    public let ceilingDB: Float
    public let lookaheadMilliseconds: Float
    public let releaseMilliseconds: Float

    // MARK: Shared (atomics)
    /// The largest gain reduction of the last block, as a positive dB amount
    /// (0 = not limiting, 6 = the loudest frame was turned down 6 dB), Float bits.
    private let gainReductionBits = Atomic<UInt32>(Float(0).bitPattern)

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// The look-ahead in frames, which is also the latency. Valid after prepare.
    public private(set) var latencyFrames = 0
    private var ceiling: Float
    private var channelCount = 0
    /// The release smoothing factor per sample.
    private var releaseCoefficient: Double = 0
    /// Delay lines, `channelCount × latencyFrames`, channel-major.
    private var delay: UnsafeMutablePointer<Float>
    /// The sliding-minimum deque: frame indices and needed gains, `dequeMask + 1` slots.
    private var dequeIndex: UnsafeMutablePointer<Int>
    private var dequeGain: UnsafeMutablePointer<Float>
    private var dequeMask = 0
    /// The last `latencyFrames + 1` envelope values, for the moving mean.
    private var window: UnsafeMutablePointer<Double>

    // MARK: Audio thread only
    private var delayPosition = 0
    private var dequeHead = 0
    private var dequeTail = 0
    private var windowPosition = 0
    /// Sum of `window` (Double, and recomputed at every wrap, so it never drifts).
    private var windowSum: Double = 0
    /// The released gain (step 2). Double: with a release of thousands of samples the
    /// per-sample step near unity is below Float's resolution and the release would stall.
    private var envelope: Double = 1
    /// Frames seen since `reset`, to age entries out of the deque.
    private var frameIndex = 0

    /// - Parameters:
    ///   - ceilingDB: the output ceiling in dBFS.
    ///   - lookaheadMilliseconds: look-ahead and latency (at least one frame).
    ///   - releaseMilliseconds: time constant of the gain's recovery.
    public init(name: String = "limiter", ceilingDB: Float = -1, lookaheadMilliseconds: Float = 1, releaseMilliseconds: Float = 80) {
        precondition(ceilingDB.isFinite && ceilingDB <= 24, "limiter ceiling must be finite")
        precondition(lookaheadMilliseconds >= 0 && releaseMilliseconds > 0)
        self.ceilingDB = ceilingDB
        self.lookaheadMilliseconds = lookaheadMilliseconds
        self.releaseMilliseconds = releaseMilliseconds
        ceiling = decibelsToGain(ceilingDB)
        delay = .allocate(capacity: 1)
        dequeIndex = .allocate(capacity: 1)
        dequeGain = .allocate(capacity: 1)
        window = .allocate(capacity: 1)
        super.init(name: name)
    }

    deinit {
        delay.deallocate()
        dequeIndex.deallocate()
        dequeGain.deallocate()
        window.deallocate()
    }

    /// The linear ceiling, 10^(ceilingDB / 20).
    public var ceilingGain: Float { ceiling }

    /// The largest gain reduction during the last rendered block, in dB, ≥ 0.
    /// - Realtime: safe; lock-free, readable from any thread.
    public var gainReductionDB: Float {
        Float(bitPattern: gainReductionBits.load(ordering: .relaxed))
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        delay.deallocate()
        dequeIndex.deallocate()
        dequeGain.deallocate()
        window.deallocate()
        channelCount = max(1, outputChannelCount)
        latencyFrames = max(1, Int((Double(lookaheadMilliseconds) * spec.sampleRate / 1000).rounded()))
        let windowLength = latencyFrames + 1
        // The deque holds at most `windowLength + 1` entries (one is aged out after each push).
        var slots = 1
        while slots < windowLength + 1 { slots <<= 1 }
        dequeMask = slots - 1
        delay = .allocate(capacity: channelCount * latencyFrames)
        delay.initialize(repeating: 0, count: channelCount * latencyFrames)
        dequeIndex = .allocate(capacity: slots)
        dequeIndex.initialize(repeating: 0, count: slots)
        dequeGain = .allocate(capacity: slots)
        dequeGain.initialize(repeating: 1, count: slots)
        window = .allocate(capacity: windowLength)
        window.initialize(repeating: 1, count: windowLength)
        releaseCoefficient = 1 - exp(-1 / (Double(releaseMilliseconds) / 1000 * spec.sampleRate))
    }

    /// Empties the delay line and returns the gain to 1.
    /// - Realtime: safe. Writes preallocated state only.
    @_noLocks
    public override func reset() {
        delay.update(repeating: 0, count: channelCount * latencyFrames)
        window.update(repeating: 1, count: latencyFrames + 1)
        windowSum = Double(latencyFrames + 1)
        delayPosition = 0
        dequeHead = 0
        dequeTail = 0
        windowPosition = 0
        envelope = 1
        frameIndex = 0
        gainReductionBits.store(Float(0).bitPattern, ordering: .relaxed)
    }

    /// Limits input bus 0 into `output`, delayed by `latencyFrames`.
    /// - Realtime: safe. Arithmetic on preallocated state, one atomic store and
    ///   one `log10f` per block; checked by the compiler with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        let channels = min(output.channelCount, channelCount)
        // Extra output channels (never expected: the graph gives as many as prepared) stay silent.
        for c in channels..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
        guard channels > 0 else { return }
        let hasInput = inputs.count > 0 && inputs[0].channelCount > 0
        let input = hasInput ? inputs[0] : output
        let inputChannels = hasInput ? input.channelCount : 0

        let lookahead = latencyFrames, windowLength = latencyFrames + 1
        let limit = ceiling
        var smallestGain: Float = 1
        for n in 0..<frames {
            // 1. Into the delay line; the delayed frame parks in the output for now.
            var peak: Float = 0
            for c in 0..<channels {
                var x: Float = 0
                if inputChannels > 0 {
                    x = input.channels[min(c, inputChannels - 1)][n]
                    if !x.isFinite { x = 0 }  // NaN/Inf would poison the gain computer and the delay line
                }
                let line = delay + c * lookahead
                output.channels[c][n] = line[delayPosition]
                line[delayPosition] = x
                peak = max(peak, abs(x))
            }
            delayPosition += 1
            if delayPosition == lookahead { delayPosition = 0 }

            // 2. The gain this frame needs, and the minimum over the look-ahead window.
            let needed: Float = peak > limit ? limit / peak : 1
            let held = Double(slidingMinimum(needed, windowLength: windowLength))

            // 3. Instant attack to the held minimum, exponential release towards it.
            if held < envelope {
                envelope = held
            } else if held > envelope {
                let next = envelope + releaseCoefficient * (held - envelope)
                // Snap the last −120 dB of the approach: Float would otherwise stall
                // a few ulps short of 1 and never return to exact unity gain.
                envelope = held - next < 1e-6 ? held : min(next, held)
            }

            // 4. Moving mean of the envelope over the window: the attack ramp.
            windowSum += envelope - window[windowPosition]
            window[windowPosition] = envelope
            windowPosition += 1
            if windowPosition == windowLength {
                windowPosition = 0
                windowSum = sumOfWindow(windowLength)
            }
            let gain = min(1, Float(windowSum / Double(windowLength)))
            smallestGain = min(smallestGain, gain)

            // 5. Apply, and clamp: nothing leaves above the ceiling, whatever the rounding.
            for c in 0..<channels {
                let y = output.channels[c][n] * gain
                output.channels[c][n] = min(max(y, -limit), limit)
            }
            frameIndex &+= 1
        }
        let reduction: Float = smallestGain < 1 ? -_unsafePerformance { log10f(smallestGain) } * 20 : 0  // libm: arithmetic only
        gainReductionBits.store(reduction.bitPattern, ordering: .relaxed)
    }

    /// Pushes this frame's needed gain and returns the minimum of the last
    /// `windowLength` values: a monotonic deque (values rise from head to tail),
    /// each frame pushed and popped at most once, so O(1) amortised.
    /// - Realtime: safe. Arithmetic on preallocated storage.
    @_noLocks @inline(__always)
    private func slidingMinimum(_ value: Float, windowLength: Int) -> Float {
        // No `&&` here: its autoclosure would capture (and retain) `self`.
        while dequeTail != dequeHead {
            if dequeGain[(dequeTail - 1) & dequeMask] < value { break }
            dequeTail -= 1
        }
        dequeIndex[dequeTail & dequeMask] = frameIndex
        dequeGain[dequeTail & dequeMask] = value
        dequeTail += 1
        let oldest = frameIndex - windowLength + 1
        while dequeIndex[dequeHead & dequeMask] < oldest { dequeHead += 1 }
        return dequeGain[dequeHead & dequeMask]
    }

    /// The exact sum of the window, recomputed once per window length so that
    /// the running sum's rounding never accumulates (O(1) amortised).
    /// - Realtime: safe. Arithmetic on preallocated storage.
    @_noLocks
    private func sumOfWindow(_ windowLength: Int) -> Double {
        var sum: Double = 0
        for k in 0..<windowLength { sum += window[k] }
        return sum
    }
}
