import Engine
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A level meter that passes its input through untouched (output = input,
/// bit for bit) and publishes, per channel, for the control thread:
/// - `peak`: a peak envelope with instant attack that falls 20 dB per second
///   (`peakFallDBPerSecond`), so a display sees every peak and a falling bar;
/// - `rms`: the root mean square of the last 50 ms (`rmsWindowSeconds`), an exact
///   sliding window, not a block average, so it does not depend on the block size
///   (the window's running sum moves by whole segments, in Float partial sums added
///   in Double, and is recomputed from the stored squares at every wrap);
/// - `maxPeak`: the largest |sample| since preparation or `resetPeaks()`.
///
/// The values are published once per block as Float bit patterns in
/// `Atomic<UInt32>`s: the control thread reads them with plain loads, never a lock.
/// Up to `maximumChannelCount` channels are metered; more pass through unmetered.
public final class MeterNode: AudioNode {
    public static var maximumChannelCount: Int { 8 }
    public static var rmsWindowSeconds: Double { 0.05 }
    public static var peakFallDBPerSecond: Double { 20 }

    // MARK: Shared (atomics)
    /// Per channel: peak, rms and max-peak Float bits, allocated once at init (so a
    /// reader on another thread never sees them move), `maximumChannelCount` each.
    private let peakBits: UnsafeMutablePointer<Atomic<UInt32>>
    private let rmsBits: UnsafeMutablePointer<Atomic<UInt32>>
    private let maxPeakBits: UnsafeMutablePointer<Atomic<UInt32>>
    private let meteredChannels = Atomic<Int>(0)
    /// Bumped by `resetPeaks()`; the audio thread clears its maxima when it changes.
    private let peakResetRequests = Atomic<Int>(0)

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    private var channelCapacity = 0
    private var windowLength = 1
    /// Squares of the last `windowLength` samples, `channelCapacity × windowLength`.
    private var squares: UnsafeMutablePointer<Float>
    /// Running sums of `squares` per channel (Double, recomputed at every wrap).
    private var sums: UnsafeMutablePointer<Double>
    /// Peak envelope (Double, so a long fall does not gather Float rounding) and maxima per channel.
    private var peaks: UnsafeMutablePointer<Double>
    private var maxima: UnsafeMutablePointer<Float>
    /// The envelope's fall over k samples, fall^k for k in 0...`segmentLength` (Double),
    /// and the same powers reversed in Float, `fallWeights[segmentLength − 1 − k]` = fall^k,
    /// so that a segment of n samples weighs sample i by fall^(n − 1 − i) reading forwards.
    private var fallPowers: UnsafeMutablePointer<Double>
    private var fallWeights: UnsafeMutablePointer<Float>

    /// The longest stretch measured in one go (longer blocks are taken in segments).
    private static var segmentLength: Int { 256 }

    // MARK: Audio thread only
    private var windowPosition = 0
    private var peakResetsSeen = 0

    public override init(name: String = "meter") {
        let n = MeterNode.maximumChannelCount
        peakBits = .allocate(capacity: n)
        rmsBits = .allocate(capacity: n)
        maxPeakBits = .allocate(capacity: n)
        for c in 0..<n {
            (peakBits + c).initialize(to: Atomic(0))
            (rmsBits + c).initialize(to: Atomic(0))
            (maxPeakBits + c).initialize(to: Atomic(0))
        }
        squares = .allocate(capacity: 1)
        sums = .allocate(capacity: 1)
        peaks = .allocate(capacity: 1)
        maxima = .allocate(capacity: 1)
        fallPowers = .allocate(capacity: 1)
        fallWeights = .allocate(capacity: 1)
        super.init(name: name)
    }

    deinit {
        let n = MeterNode.maximumChannelCount
        peakBits.deinitialize(count: n)
        rmsBits.deinitialize(count: n)
        maxPeakBits.deinitialize(count: n)
        peakBits.deallocate()
        rmsBits.deallocate()
        maxPeakBits.deallocate()
        freeWorkBuffers()
    }

    /// How many channels are metered (0 before prepare, at most `maximumChannelCount`).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var channelCount: Int { meteredChannels.load(ordering: .relaxed) }

    /// The latest values of `channel` (silent for a channel that is not metered).
    /// - Thread: any
    /// - Realtime: safe (relaxed atomic loads)
    public func reading(channel: Int) -> MeterReading {
        guard channel >= 0 && channel < channelCount else { return .silent }
        return MeterReading(
            peak: Float(bitPattern: peakBits[channel].load(ordering: .relaxed)),
            rms: Float(bitPattern: rmsBits[channel].load(ordering: .relaxed)),
            maxPeak: Float(bitPattern: maxPeakBits[channel].load(ordering: .relaxed)))
    }

    /// The readings of every metered channel. Control thread (allocates the array).
    public func readings() -> [MeterReading] { (0..<channelCount).map { reading(channel: $0) } }

    /// Asks the audio thread to clear `maxPeak` on every channel; takes effect at
    /// the start of the next rendered block.
    /// - Thread: any
    /// - Realtime: safe (one atomic increment)
    public func resetPeaks() {
        peakResetRequests.add(1, ordering: .relaxed)
    }

    /// Frees the per-format work buffers (before they are made anew, and at the end).
    /// - Realtime: unsafe (frees). Control thread only.
    private func freeWorkBuffers() {
        squares.deallocate()
        sums.deallocate()
        peaks.deallocate()
        maxima.deallocate()
        fallPowers.deallocate()
        fallWeights.deallocate()
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        freeWorkBuffers()
        channelCapacity = min(max(0, outputChannelCount), MeterNode.maximumChannelCount)
        windowLength = max(1, Int((MeterNode.rmsWindowSeconds * spec.sampleRate).rounded()))
        let meters = max(1, channelCapacity)
        squares = .allocate(capacity: meters * windowLength)
        squares.initialize(repeating: 0, count: meters * windowLength)
        sums = .allocate(capacity: meters)
        sums.initialize(repeating: 0, count: meters)
        peaks = .allocate(capacity: meters)
        peaks.initialize(repeating: 0, count: meters)
        maxima = .allocate(capacity: meters)
        maxima.initialize(repeating: 0, count: meters)
        let segment = MeterNode.segmentLength
        let fall = pow(10, -MeterNode.peakFallDBPerSecond / 20 / spec.sampleRate)
        fallPowers = .allocate(capacity: segment + 1)
        fallWeights = .allocate(capacity: segment)
        for k in 0...segment { (fallPowers + k).initialize(to: pow(fall, Double(k))) }
        for k in 0..<segment { (fallWeights + segment - 1 - k).initialize(to: Float(pow(fall, Double(k)))) }
        meteredChannels.store(channelCapacity, ordering: .relaxed)
    }

    // MARK: Audio thread

    /// Clears the window, the envelopes and the maxima, and publishes silence.
    /// - Thread: audio, control
    /// - Realtime: safe. Writes preallocated state and atomics only.
    @_noLocks
    public override func reset() {
        let meters = max(1, channelCapacity)
        squares.update(repeating: 0, count: meters * windowLength)
        sums.update(repeating: 0, count: meters)
        peaks.update(repeating: 0, count: meters)
        maxima.update(repeating: 0, count: meters)
        windowPosition = 0
        peakResetsSeen = peakResetRequests.load(ordering: .relaxed)
        for c in 0..<channelCapacity {
            peakBits[c].store(0, ordering: .relaxed)
            rmsBits[c].store(0, ordering: .relaxed)
            maxPeakBits[c].store(0, ordering: .relaxed)
        }
    }

    /// Copies input bus 0 to `output` and measures it.
    /// - Thread: audio
    /// - Realtime: safe. Copies and arithmetic on preallocated buffers, relaxed
    ///   atomic stores, one `sqrt` per channel per block; checked with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else {
            output.clear()
            measureSilence(frames: frames)
            return
        }
        let requests = peakResetRequests.load(ordering: .relaxed)
        if requests != peakResetsSeen {
            peakResetsSeen = requests
            maxima.update(repeating: 0, count: max(1, channelCapacity))
        }
        let metered = min(channelCapacity, output.channelCount)
        // Metered channels are copied by the measuring loop itself (one pass).
        for c in metered..<max(metered, output.channelCount) {
            // A plain loop: `update(from:count:)` is generic over non-trivial
            // elements and the checker counts it as a possible deallocation.
            let source = input.channels[min(c, input.channelCount - 1)], destination = output.channels[c]
            for n in 0..<frames { destination[n] = source[n] }
        }
        // Each channel walks the same stretch of the window; advance it once, after.
        for c in 0..<metered {
            measure(UnsafePointer(input.channels[min(c, input.channelCount - 1)]), copyingTo: output.channels[c],
                    frames: frames, channel: c)
        }
        advanceWindow(frames: frames)
        for c in 0..<metered { publish(channel: c) }
    }

    /// Copies `frames` samples of one channel to `destination` (which may be
    /// `samples` itself) and feeds them into the channel's peak envelope,
    /// maximum and RMS window, starting at the shared `windowPosition`.
    ///
    /// Per sample the meaning is the one documented on the type; the work is
    /// done per segment (up to the window's wrap point or `segmentLength`) in
    /// vector-friendly passes: the envelope at the end of a segment of n samples
    /// is max(envelope·fall^n, max over i of |x[i]|·fall^(n−1−i)), exactly what
    /// the per-sample recursion max(|x|, envelope·fall) gives, and the window
    /// sum moves by the segment's new squares minus the squares leaving it.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func measure(_ samples: UnsafePointer<Float>, copyingTo destination: UnsafeMutablePointer<Float>,
                         frames: Int, channel c: Int) {
        let ring = squares + c * windowLength
        let length = windowLength, segment = 256  // `segmentLength`; a literal keeps type metadata out of the checked code
        let powers = fallPowers, weights = fallWeights
        var sum = sums[c], peak = peaks[c]
        var maximum = maxima[c]
        var position = windowPosition
        var done = 0
        while done < frames {
            let n = min(min(frames - done, length - position), segment)
            let result = meterSegment(samples + done, destination + done, ring + position, count: n,
                                      weights: weights + (segment - n))
            peak = max(peak * powers[n], Double(result.peak))
            maximum = max(maximum, result.maximum)
            sum += result.delta
            position += n
            done += n
            if position == length {
                position = 0
                sum = meterExactSum(ring, count: length)  // once per window: no drift, O(1) amortised
            }
        }
        // Flush the falling envelope to 0 below −180 dB: no denormals on a silent input.
        peaks[c] = peak < 1e-9 ? 0 : peak
        sums[c] = max(0, sum)
        maxima[c] = maximum
    }

    /// Moves the shared window position on by `frames`.
    /// - Thread: audio
    /// - Realtime: safe. Integer arithmetic.
    @_noLocks
    private func advanceWindow(frames: Int) {
        windowPosition = (windowPosition + frames) % windowLength
    }

    /// A block without input: the meters see silence.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func measureSilence(frames: Int) {
        // The same bookkeeping as `measure` with every sample 0: the envelope falls,
        // the window empties.
        let length = windowLength, segment = 256  // `segmentLength`; a literal keeps type metadata out of the checked code
        for c in 0..<channelCapacity {
            let ring = squares + c * length
            var sum = sums[c], peak = peaks[c]
            var position = windowPosition
            var done = 0
            while done < frames {
                let n = min(min(frames - done, length - position), segment)
                peak *= fallPowers[n]
                var leaving: Double = 0
                for k in 0..<n { leaving += Double(ring[position + k]); ring[position + k] = 0 }
                sum -= leaving
                position += n
                done += n
                if position == length {
                    position = 0
                    sum = meterExactSum(ring, count: length)
                }
            }
            peaks[c] = peak < 1e-9 ? 0 : peak
            sums[c] = max(0, sum)
        }
        advanceWindow(frames: frames)
        for c in 0..<channelCapacity { publish(channel: c) }
    }

    /// Stores one channel's values into its atomics.
    /// - Thread: audio
    /// - Realtime: safe. A square root and three relaxed atomic stores.
    @_noLocks
    private func publish(channel c: Int) {
        let meanSquare = sums[c] / Double(windowLength)
        let rms = _unsafePerformance { Float(meanSquare.squareRoot()) }  // a sqrt instruction the checker cannot see into
        peakBits[c].store(Float(peaks[c]).bitPattern, ordering: .relaxed)
        rmsBits[c].store(rms.bitPattern, ordering: .relaxed)
        maxPeakBits[c].store(maxima[c].bitPattern, ordering: .relaxed)
    }
}

// MARK: Audio thread: kernels

/// One segment of `MeterNode.measure`: copies `count` samples from `source` to
/// `destination`, replaces the `count` squares at `ring` with the new ones,
/// and returns the weighted peak max(|x[i]|·weights[i]), the largest
/// |x[i]| and the change of the window sum. NaN and ±Inf count as 0 (they
/// must not stick in the meter) but are copied bit for bit.
/// - Thread: audio
/// - Realtime: safe. Arithmetic on caller-owned memory.
@_noLocks @inline(__always)
private func meterSegment(_ source: UnsafePointer<Float>, _ destination: UnsafeMutablePointer<Float>,
                         _ ring: UnsafeMutablePointer<Float>, count: Int,
                         weights: UnsafePointer<Float>) -> (peak: Float, maximum: Float, delta: Double) {
    typealias V = SIMD4<Float>
    typealias Bits = SIMD4<Int32>
    let width = 4
    // Four lanes (one SSE register) and no SIMD masks: this shape the compiler
    // keeps as plain vector code (`lanewiseMax` becomes `maxps`); masks and wider
    // vectors come out as long shuffle sequences.
    var peakV = V(), maxV = V(), deltaV = V()
    var i = 0
    while i + width <= count {
        let x = UnsafeRawPointer(source + i).loadUnaligned(as: V.self)
        UnsafeMutableRawPointer(destination + i).storeBytes(of: x, as: V.self)
        let w = UnsafeRawPointer(weights + i).loadUnaligned(as: V.self)
        let old = UnsafeRawPointer(ring + i).loadUnaligned(as: V.self)
        // |x| by clearing the sign bit; NaN and ±Inf (bits ≥ 0x7F80_0000) → 0:
        // bits − 0x7F80_0000 is negative exactly for finite values, and its sign,
        // shifted across the lane, is the mask that keeps them.
        let magnitudeBits = unsafeBitCast(x, to: Bits.self) & 0x7FFF_FFFF
        let a = unsafeBitCast(magnitudeBits & ((magnitudeBits &- 0x7F80_0000) &>> 31), to: V.self)
        maxV = lanewiseMax(maxV, a)
        peakV = lanewiseMax(peakV, a * w)
        let square = a * a
        deltaV += square - old
        UnsafeMutableRawPointer(ring + i).storeBytes(of: square, as: V.self)
        i += width
    }
    // Across the lanes through the bit patterns (non-negative floats order like
    // them): kept apart from the Float loop above, whose vector shape the
    // compiler otherwise reworks.
    let peakLanes = unsafeBitCast(peakV, to: SIMD4<UInt32>.self), maxLanes = unsafeBitCast(maxV, to: SIMD4<UInt32>.self)
    var peak = Float(bitPattern: max(max(peakLanes[0], peakLanes[1]), max(peakLanes[2], peakLanes[3])))
    var maximum = Float(bitPattern: max(max(maxLanes[0], maxLanes[1]), max(maxLanes[2], maxLanes[3])))
    var delta: Double = 0
    for k in 0..<width { delta += Double(deltaV[k]) }
    while i < count {
        let x = source[i]
        destination[i] = x
        let magnitude = x.isFinite ? abs(x) : 0
        maximum = max(maximum, magnitude)
        peak = max(peak, magnitude * weights[i])
        let square = magnitude * magnitude
        delta += Double(square) - Double(ring[i])
        ring[i] = square
        i += 1
    }
    return (peak, maximum, delta)
}

/// The sum of `count` squares in Double: Float partial sums over short
/// runs (four lanes of sixteen), added up in Double.
/// - Thread: audio
/// - Realtime: safe. Arithmetic on caller-owned memory.
@_noLocks
private func meterExactSum(_ values: UnsafePointer<Float>, count: Int) -> Double {
    typealias V = SIMD4<Float>
    var sum: Double = 0
    var i = 0
    while i + 64 <= count {
        var partial = V()
        for k in stride(from: 0, to: 64, by: 4) {
            partial += UnsafeRawPointer(values + i + k).loadUnaligned(as: V.self)
        }
        for k in 0..<4 { sum += Double(partial[k]) }
        i += 64
    }
    while i < count { sum += Double(values[i]); i += 1 }
    return sum
}

/// The larger of each pair of lanes (neither NaN), written lane by lane: the
/// compiler makes it one `maxps`, where the standard library's `pointwiseMax`
/// stays an out-of-line call.
/// - Thread: audio
/// - Realtime: safe
@_noLocks @inline(__always)
private func lanewiseMax(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    var result = a
    for k in 0..<4 { result[k] = a[k] < b[k] ? b[k] : a[k] }
    return result
}
