import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A look-ahead brick-wall peak limiter, channels linked, as many channels out as in.
///
/// The signal is delayed by L frames (the look-ahead) and six more (below). For each
/// incoming frame n the limiter computes the gain that frame needs,
/// r[n] = ceiling / (frame n's true peak, the largest over the channels: below)
/// (1 when below the ceiling), and then:
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
/// The peak of a frame is its **true peak**, as ITU-R BS.1770 measures it: the
/// largest of |x| at the frame and at the points a quarter, a half and three
/// quarters of a sample to either side, interpolated with a windowed sinc
/// (12 taps a phase, a Hann window over ±6 samples: the interpolator
/// libebur128's true-peak meter uses, so the two agree on what a peak is).
/// Between samples a band-limited signal can rise above every sample (up to
/// 3 dB for a tone at a quarter of the rate in the worst phase); a limiter that
/// held only samples would let those peaks through the DAC. A point between
/// samples is made of the twelve samples around it, so the peak a frame's gain
/// answers for is the largest true peak within six frames of it: every sample
/// that makes up a peak is turned down as far as the peak needs, and the gain
/// does not change under it. The interpolation needs six samples after a
/// frame and that maximum six frames more, so the signal is delayed twelve
/// frames (`truePeakDelayFrames`) on top of the look-ahead, and
/// `latencyFrames` is the sum.
///
/// Below the ceiling (true peaks included) the gain is exactly 1 and the output
/// is exactly the input, delayed by `latencyFrames`. Everything is per sample, so the output does not
/// depend on the block size.
///
/// For speed the work is split into passes over a block (sanitize and find each
/// frame's peak; the per-frame gain computer; apply and clamp), and a block that
/// arrives while the limiter is idle (the envelope has been exactly 1 for a whole
/// window, so every needed gain and every value in the mean is 1) and stays below
/// the ceiling skips the gain computer: the per-frame steps would give a gain of
/// exactly 1 throughout, so the block is just delayed, and the state is set to
/// what those steps would leave.
public final class LimiterNode: AudioNode {
    /// The ceiling: no sample leaves above it.
    public let ceilingDB: Float
    public let lookaheadMilliseconds: Float
    public let releaseMilliseconds: Float

    // MARK: Shared (atomics)
    /// The largest gain reduction of the last block, as a positive dB amount
    /// (0 = not limiting, 6 = the loudest frame was turned down 6 dB), Float bits.
    private let gainReductionBits = Atomic<UInt32>(Float(0).bitPattern)

    /// Frames the true peak needs after a frame (six for the interpolation, six for
    /// the maximum over the frames around it): the delay it adds to the look-ahead.
    public static var truePeakDelayFrames: Int { 12 }

    /// The latency a limiter of `lookaheadMilliseconds` has at `sampleRate`
    /// (`latencyFrames` once prepared), known before it is: for what must line up with its output.
    public static func latencyFrames(lookaheadMilliseconds: Float, sampleRate: Double) -> Int {
        lookaheadFrames(milliseconds: lookaheadMilliseconds, sampleRate: sampleRate) + truePeakDelayFrames
    }

    private static func lookaheadFrames(milliseconds: Float, sampleRate: Double) -> Int {
        max(0, Int((Double(milliseconds) * sampleRate / 1000).rounded()))
    }

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    /// The look-ahead in frames, plus `truePeakDelayFrames`: the latency. Valid after prepare.
    public private(set) var latencyFrames = 0
    /// The look-ahead alone, in frames (the gain computer's window less one).
    private var lookaheadFrames = 0
    /// Past input kept in each delay line: the latency (at least the twelve
    /// samples the true peak of the frame six before the newest reaches back to).
    private var keptFrames = 0
    /// The interpolation's weights: for each of the three points between two
    /// samples, 12 weights for the samples from five before to six after.
    private let interpolationWeights: UnsafeMutablePointer<Float>
    private var ceiling: Float
    private var channelCount = 0
    /// The release smoothing factor per sample.
    private var releaseCoefficient: Double = 0
    /// Per channel, `historyStride` floats: the last `keptFrames` (sanitized) input
    /// samples, oldest first, then room for one chunk of new input behind them. A
    /// chunk's output starts `latencyFrames` before the new input, and the delay
    /// line moves on by shifting its last `keptFrames` to the front.
    private var history: UnsafeMutablePointer<Float>
    private var historyStride = 0
    /// Per frame of a chunk: the largest |sample| over the channels (as Float bits,
    /// which order like the values for non-negative floats), then the applied gain.
    private var framePeaks: UnsafeMutablePointer<Int32>
    private var frameGains: UnsafeMutablePointer<Float>
    /// The sliding-minimum deque: frame indices and needed gains, `dequeMask + 1` slots.
    private var dequeIndex: UnsafeMutablePointer<Int>
    private var dequeGain: UnsafeMutablePointer<Float>
    private var dequeMask = 0
    /// The last `lookaheadFrames + 1` envelope values, for the moving mean.
    private var window: UnsafeMutablePointer<Double>
    /// Per channel: the largest interpolated |x| between the last frame peaked and the one after it.
    private var intervalPeaks: UnsafeMutablePointer<Float>
    /// The true peaks (Float bits, the largest over the channels) of the last 13
    /// frames peaked, a ring: their maximum is the peak of the frame in the middle.
    private let recentPeaks = UnsafeMutablePointer<Int32>.allocate(capacity: 13)

    /// The most frames processed in one go; longer blocks are taken in chunks.
    private static var chunkFrames: Int { 256 }

    // MARK: Audio thread only
    /// Where the next true peak goes in `recentPeaks`.
    private var recentPosition = 0
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
    /// How many of the latest frames ended with the envelope at exactly 1 (capped).
    /// Once that covers the whole window, every needed gain in the window and every
    /// value in the mean is 1: the limiter is idle, `windowSum` is exactly the
    /// window length (it is set so, the value the next wrap would recompute), and a
    /// chunk that stays below the ceiling passes as a plain delay.
    private var unityRun = 0

    /// - Parameters:
    ///   - ceilingDB: the output ceiling in dBFS.
    ///   - lookaheadMilliseconds: look-ahead and latency; 0 for none (instant attack).
    ///   - releaseMilliseconds: time constant of the gain's recovery.
    public init(name: String = "limiter", ceilingDB: Float = -1, lookaheadMilliseconds: Float = 1, releaseMilliseconds: Float = 80) {
        precondition(ceilingDB.isFinite && ceilingDB <= 24, "limiter ceiling must be finite")
        precondition(lookaheadMilliseconds >= 0 && releaseMilliseconds > 0)
        self.ceilingDB = ceilingDB
        self.lookaheadMilliseconds = lookaheadMilliseconds
        self.releaseMilliseconds = releaseMilliseconds
        ceiling = decibelsToGain(ceilingDB)
        history = .allocate(capacity: 1)
        framePeaks = .allocate(capacity: 1)
        frameGains = .allocate(capacity: 1)
        dequeIndex = .allocate(capacity: 1)
        dequeGain = .allocate(capacity: 1)
        window = .allocate(capacity: 1)
        intervalPeaks = .allocate(capacity: 1)
        interpolationWeights = .allocate(capacity: 3 * 12)
        for phase in 1...3 {
            for k in 0..<12 {
                // The distance in samples from tap k (five before the frame … six after)
                // to the point a phase of quarters after the frame.
                let d = Double(k - 5) - Double(phase) / 4
                let sinc = sin(Double.pi * d) / (Double.pi * d)
                let hann = 0.5 * (1 + cos(Double.pi * d / 6))
                interpolationWeights[(phase - 1) * 12 + k] = Float(sinc * hann)
            }
        }
        super.init(name: name)
    }

    deinit {
        freeBuffers()
        interpolationWeights.deallocate()
        recentPeaks.deallocate()
    }

    /// Frees the per-format buffers (before they are made anew, and at the end).
    /// - Realtime: unsafe (frees). Control thread only.
    private func freeBuffers() {
        history.deallocate()
        framePeaks.deallocate()
        frameGains.deallocate()
        dequeIndex.deallocate()
        dequeGain.deallocate()
        window.deallocate()
        intervalPeaks.deallocate()
    }

    /// The linear ceiling, 10^(ceilingDB / 20).
    public var ceilingGain: Float { ceiling }

    /// The largest gain reduction during the last rendered block, in dB, ≥ 0.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var gainReductionDB: Float {
        Float(bitPattern: gainReductionBits.load(ordering: .relaxed))
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        freeBuffers()
        channelCount = max(1, outputChannelCount)
        // 0 is allowed: an instant attack (the live mic's choice), delayed only for the true peak.
        lookaheadFrames = Self.lookaheadFrames(milliseconds: lookaheadMilliseconds, sampleRate: spec.sampleRate)
        latencyFrames = lookaheadFrames + Self.truePeakDelayFrames
        keptFrames = latencyFrames
        let windowLength = lookaheadFrames + 1
        // The deque holds at most `windowLength + 1` entries (one is aged out after each push).
        var slots = 1
        while slots < windowLength + 1 { slots <<= 1 }
        dequeMask = slots - 1
        let chunk = LimiterNode.chunkFrames
        historyStride = keptFrames + chunk
        history = .allocate(capacity: channelCount * historyStride)
        history.initialize(repeating: 0, count: channelCount * historyStride)
        framePeaks = .allocate(capacity: chunk)
        framePeaks.initialize(repeating: 0, count: chunk)
        frameGains = .allocate(capacity: chunk)
        frameGains.initialize(repeating: 1, count: chunk)
        dequeIndex = .allocate(capacity: slots)
        dequeIndex.initialize(repeating: 0, count: slots)
        dequeGain = .allocate(capacity: slots)
        dequeGain.initialize(repeating: 1, count: slots)
        window = .allocate(capacity: windowLength)
        window.initialize(repeating: 1, count: windowLength)
        intervalPeaks = .allocate(capacity: channelCount)
        intervalPeaks.initialize(repeating: 0, count: channelCount)
        releaseCoefficient = 1 - exp(-1 / (Double(releaseMilliseconds) / 1000 * spec.sampleRate))
    }

    // MARK: Audio thread

    /// Empties the delay line and returns the gain to 1.
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated state only.
    @_noLocks
    public override func reset() {
        history.update(repeating: 0, count: channelCount * historyStride)
        intervalPeaks.update(repeating: 0, count: channelCount)
        recentPeaks.update(repeating: 0, count: 13)
        recentPosition = 0
        window.update(repeating: 1, count: lookaheadFrames + 1)
        windowSum = Double(lookaheadFrames + 1)
        dequeHead = 0
        dequeTail = 0
        windowPosition = 0
        envelope = 1
        frameIndex = 0
        unityRun = lookaheadFrames + 1
        gainReductionBits.store(Float(0).bitPattern, ordering: .relaxed)
    }

    /// Limits input bus 0 into `output`, delayed by `latencyFrames`.
    /// - Thread: audio
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
        let chunk = 256  // `chunkFrames`; a literal keeps type metadata out of the checked code
        var smallestGain: Float = 1
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            smallestGain = min(smallestGain, process(input: input, inputChannels: inputChannels, output: output,
                                                     channels: channels, offset: done, frames: n))
            done += n
        }
        let reduction: Float = smallestGain < 1 ? -_unsafePerformance { log10f(smallestGain) } * 20 : 0  // libm: arithmetic only
        gainReductionBits.store(reduction.bitPattern, ordering: .relaxed)
    }

    /// Limits frames `offset..<offset + frames` (at most `chunkFrames`) of every
    /// channel and returns the smallest gain applied.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func process(input: AudioBlock, inputChannels: Int, output: AudioBlock,
                         channels: Int, offset: Int, frames: Int) -> Float {
        let kept = keptFrames, delay = latencyFrames, windowLength = lookaheadFrames + 1
        let stride = historyStride
        let limit = ceiling
        let peaks = framePeaks

        // 1. Into the delay lines (NaN/Inf → 0: they would poison the gain computer and
        //    the delay line), and the true peak of each frame, the largest over the channels.
        peaks.update(repeating: 0, count: frames)
        for c in 0..<channels {
            let line = history + c * stride
            if inputChannels > 0 {
                let source = UnsafePointer(input.channels[min(c, inputChannels - 1)] + offset)
                limiterSanitize(source, line + kept, count: frames)
            } else {
                (line + kept).update(repeating: 0, count: frames)
            }
            // The frames six before the newest: the interpolation reaches six after them.
            truePeaks(line: UnsafePointer(line), first: kept - 6, frames: frames, interval: intervalPeaks + c, peaks: peaks)
        }
        // Each frame's peak becomes the largest within six frames of the frame six
        // before it: the peak of frame `kept − 12 + i`, whose output leaves `lookahead` later.
        let chunkPeak = widenPeaks(peaks, frames: frames)

        var smallestGain: Float = 1
        if unityRun >= windowLength && Float(bitPattern: UInt32(bitPattern: chunkPeak)) <= limit {
            // Idle and staying below the ceiling: the gain is exactly 1 throughout, so
            // the output is the delayed input, bit for bit. Bring the state to where the
            // per-frame path would leave it: the window still all ones, the deque one
            // entry (gain 1, the latest frame), the running sum exact.
            frameIndex &+= frames
            dequeHead = 0
            dequeTail = 1
            dequeIndex[0] = frameIndex &- 1
            dequeGain[0] = 1
            windowPosition = (windowPosition + frames) % windowLength
            windowSum = Double(windowLength)
            unityRun = min(unityRun + frames, Int(Int32.max))
            for c in 0..<channels {
                let line = history + c * stride + kept - delay, destination = output.channels[c] + offset
                for i in 0..<frames { destination[i] = line[i] }
            }
        } else {
            smallestGain = computeGains(frames: frames, windowLength: windowLength)
            let gains = UnsafePointer(frameGains)
            // 5. Apply, and clamp: nothing leaves above the ceiling, whatever the rounding.
            for c in 0..<channels {
                let line = UnsafePointer(history + c * stride + kept - delay), destination = output.channels[c] + offset
                for i in 0..<frames {
                    let y = line[i] * gains[i]
                    destination[i] = min(max(y, -limit), limit)
                }
            }
        }
        // The delay lines move on: their last `kept` samples to the front.
        for c in 0..<channels {
            let line = history + c * stride
            for i in 0..<kept { line[i] = line[i + frames] }
        }
        return smallestGain
    }

    /// The true peak of `frames` frames of one channel's delay line, from index
    /// `first` on (each needs the five samples before it and the six after), raised
    /// into `peaks` as Float bits; returns the largest. `interval` carries the
    /// peak between the last frame of one call and the first of the next.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func truePeaks(line: UnsafePointer<Float>, first: Int, frames: Int,
                           interval: UnsafeMutablePointer<Float>, peaks: UnsafeMutablePointer<Int32>) {
        let w = UnsafePointer(interpolationWeights)
        var before = interval.pointee
        for i in 0..<frames {
            let j = first + i
            let taps = line + j - 5
            // The three points between frame j and frame j + 1.
            var a: Float = 0, b: Float = 0, c: Float = 0
            for k in 0..<12 {
                let x = taps[k]
                a += x * w[k]
                b += x * w[12 + k]
                c += x * w[24 + k]
            }
            let after = max(max(abs(a), abs(b)), abs(c))
            let peak = max(max(abs(line[j]), before), after)
            before = after
            peaks[i] = max(peaks[i], Int32(bitPattern: peak.bitPattern))
        }
        interval.pointee = before
    }

    /// Replaces each of `frames` true peaks by the largest of it and the twelve
    /// before it (through the `recentPeaks` ring, across chunks); returns the largest.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func widenPeaks(_ peaks: UnsafeMutablePointer<Int32>, frames: Int) -> Int32 {
        let ring = recentPeaks
        var position = recentPosition
        var largest: Int32 = 0
        for i in 0..<frames {
            ring[position] = peaks[i]
            position = position == 12 ? 0 : position + 1
            var widest: Int32 = 0
            for k in 0..<13 { widest = max(widest, ring[k]) }
            peaks[i] = widest
            largest = max(largest, widest)
        }
        recentPosition = position
        return largest
    }

    /// Steps 2–4 for `frames` frames whose peaks are in `framePeaks`: the gains go
    /// to `frameGains`; returns the smallest.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func computeGains(frames: Int, windowLength: Int) -> Float {
        let limit = ceiling
        let peaks = UnsafePointer(framePeaks), gains = frameGains
        let indices = dequeIndex, values = dequeGain, mask = dequeMask
        let window = self.window, release = releaseCoefficient
        let length = Double(windowLength)
        var head = dequeHead, tail = dequeTail
        var position = windowPosition, sum = windowSum, envelope = self.envelope
        var index = frameIndex, run = unityRun
        var smallestGain: Float = 1
        for n in 0..<frames {
            // 2. The gain this frame needs, and the minimum over the look-ahead window
            //    (a monotonic deque: values rise from head to tail, each frame pushed
            //    and popped at most once, so O(1) amortised).
            let peak = Float(bitPattern: UInt32(bitPattern: peaks[n]))
            let needed: Float = peak > limit ? limit / peak : 1
            while tail != head {
                if values[(tail - 1) & mask] < needed { break }
                tail -= 1
            }
            indices[tail & mask] = index
            values[tail & mask] = needed
            tail += 1
            let oldest = index - windowLength + 1
            while indices[head & mask] < oldest { head += 1 }
            let held = Double(values[head & mask])

            // 3. Instant attack to the held minimum, exponential release towards it.
            if held < envelope {
                envelope = held
            } else if held > envelope {
                let next = envelope + release * (held - envelope)
                // Snap the last −120 dB of the approach: Float would otherwise stall
                // a few ulps short of 1 and never return to exact unity gain.
                envelope = held - next < 1e-6 ? held : min(next, held)
            }

            // 4. Moving mean of the envelope over the window: the attack ramp.
            sum += envelope - window[position]
            window[position] = envelope
            position += 1
            if position == windowLength {
                position = 0
                sum = 0  // recompute exactly once per window: no drift, O(1) amortised
                for k in 0..<windowLength { sum += window[k] }
            }
            run = envelope == 1 ? min(run + 1, Int(Int32.max)) : 0
            // A whole window of ones: the mean is exactly 1 (what the next wrap would find).
            if run >= windowLength { sum = length }
            let gain = min(1, Float(sum / length))
            gains[n] = gain
            smallestGain = min(smallestGain, gain)
            index &+= 1
        }
        dequeHead = head
        dequeTail = tail
        windowPosition = position
        windowSum = sum
        self.envelope = envelope
        frameIndex = index
        unityRun = run
        return smallestGain
    }
}

// MARK: Audio thread: kernels

/// Copies `count` samples from `source` to `destination`, with NaN and ±Inf
/// replaced by +0, in lane-wise integer arithmetic (SIMD masks compile into long
/// shuffles).
/// - Thread: audio
/// - Realtime: safe. Arithmetic on caller-owned memory.
@_noLocks @inline(__always)
private func limiterSanitize(_ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
    typealias Bits = SIMD8<Int32>
    let width = 8
    var i = 0
    while i + width <= count {
        let bits = UnsafeRawPointer(source + i).loadUnaligned(as: Bits.self)
        // magnitude − 0x7F80_0000 is negative exactly for finite values; its sign,
        // shifted across the lane, keeps them and clears NaN and ±Inf.
        let keep = ((bits & 0x7FFF_FFFF) &- 0x7F80_0000) &>> 31
        UnsafeMutableRawPointer(destination + i).storeBytes(of: bits & keep, as: Bits.self)
        i += width
    }
    while i < count {
        let bits = Int32(bitPattern: source[i].bitPattern)
        let keep = ((bits & 0x7FFF_FFFF) &- 0x7F80_0000) &>> 31
        destination[i] = Float(bitPattern: UInt32(bitPattern: bits & keep))
        i += 1
    }
}
