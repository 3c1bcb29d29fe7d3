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
///   sliding window, not a block average, so it does not depend on the block size;
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
    /// Peak envelope and maxima per channel.
    private var peaks: UnsafeMutablePointer<Float>
    private var maxima: UnsafeMutablePointer<Float>
    /// Per-sample factor of the peak envelope's fall.
    private var peakFall: Float = 1

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
        squares.deallocate()
        sums.deallocate()
        peaks.deallocate()
        maxima.deallocate()
    }

    /// How many channels are metered (0 before prepare, at most `maximumChannelCount`).
    /// - Realtime: safe; lock-free, readable from any thread.
    public var channelCount: Int { meteredChannels.load(ordering: .relaxed) }

    /// The latest values of `channel` (silent for a channel that is not metered).
    /// - Realtime: safe; three relaxed atomic loads, readable from any thread.
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
    /// - Realtime: safe (one atomic increment), callable from any thread.
    public func resetPeaks() {
        peakResetRequests.add(1, ordering: .relaxed)
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        squares.deallocate()
        sums.deallocate()
        peaks.deallocate()
        maxima.deallocate()
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
        peakFall = Float(pow(10, -MeterNode.peakFallDBPerSecond / 20 / spec.sampleRate))
        meteredChannels.store(channelCapacity, ordering: .relaxed)
    }

    /// Clears the window, the envelopes and the maxima, and publishes silence.
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
    /// - Realtime: safe. Copies and arithmetic on preallocated buffers, relaxed
    ///   atomic stores, one `sqrt` per channel per block; checked with `@_noLocks`.
    @_noLocks
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard inputs.count > 0, inputs[0].channelCount > 0 else {
            for c in 0..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
            measureSilence(frames: frames)
            return
        }
        let input = inputs[0]
        for c in 0..<output.channelCount {
            // A plain loop: `update(from:count:)` is generic over non-trivial
            // elements and the checker counts it as a possible deallocation.
            let source = input.channels[min(c, input.channelCount - 1)], destination = output.channels[c]
            for n in 0..<frames { destination[n] = source[n] }
        }
        let requests = peakResetRequests.load(ordering: .relaxed)
        if requests != peakResetsSeen {
            peakResetsSeen = requests
            maxima.update(repeating: 0, count: max(1, channelCapacity))
        }
        let metered = min(channelCapacity, output.channelCount)
        // Each channel walks the same stretch of the window; advance it once, after.
        for c in 0..<metered {
            measure(output.channels[c], frames: frames, channel: c)
        }
        advanceWindow(frames: frames)
        for c in 0..<metered { publish(channel: c) }
    }

    /// Feeds `frames` samples of one channel into its peak envelope, maximum and
    /// RMS window, starting at the shared `windowPosition`.
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func measure(_ samples: UnsafeMutablePointer<Float>, frames: Int, channel c: Int) {
        let ring = squares + c * windowLength
        let length = windowLength, fall = peakFall
        var sum = sums[c], peak = peaks[c], maximum = maxima[c]
        var position = windowPosition
        for n in 0..<frames {
            let x = samples[n]
            let magnitude = x.isFinite ? abs(x) : 0  // NaN/Inf must not stick in the meter
            peak = max(magnitude, peak * fall)
            maximum = max(maximum, magnitude)
            let square = magnitude * magnitude
            sum += Double(square) - Double(ring[position])
            ring[position] = square
            position += 1
            if position == length {
                position = 0
                sum = 0  // recompute exactly once per window: no drift, O(1) amortised
                for k in 0..<length { sum += Double(ring[k]) }
            }
        }
        // Flush the falling envelope to 0 below −180 dB: no denormals on a silent input.
        peaks[c] = peak < 1e-9 ? 0 : peak
        sums[c] = max(0, sum)
        maxima[c] = maximum
    }

    /// Moves the shared window position on by `frames`.
    /// - Realtime: safe. Integer arithmetic.
    @_noLocks
    private func advanceWindow(frames: Int) {
        windowPosition = (windowPosition + frames) % windowLength
    }

    /// A block without input: the meters see silence.
    /// - Realtime: safe. Arithmetic on preallocated state.
    @_noLocks
    private func measureSilence(frames: Int) {
        // The same bookkeeping as `measure` with every sample 0: the envelope falls,
        // the window empties.
        for c in 0..<channelCapacity {
            let ring = squares + c * windowLength
            var sum = sums[c], peak = peaks[c]
            var position = windowPosition
            for _ in 0..<frames {
                peak *= peakFall
                sum -= Double(ring[position])
                ring[position] = 0
                position += 1
                if position == windowLength {
                    position = 0
                    sum = 0
                    for k in 0..<windowLength { sum += Double(ring[k]) }
                }
            }
            peaks[c] = peak < 1e-9 ? 0 : peak
            sums[c] = max(0, sum)
        }
        advanceWindow(frames: frames)
        for c in 0..<channelCapacity { publish(channel: c) }
    }

    /// Stores one channel's values into its atomics.
    /// - Realtime: safe. A square root and three relaxed atomic stores.
    @_noLocks
    private func publish(channel c: Int) {
        let meanSquare = sums[c] / Double(windowLength)
        let rms = _unsafePerformance { Float(meanSquare.squareRoot()) }  // a sqrt instruction the checker cannot see into
        peakBits[c].store(peaks[c].bitPattern, ordering: .relaxed)
        rmsBits[c].store(rms.bitPattern, ordering: .relaxed)
        maxPeakBits[c].store(maxima[c].bitPattern, ordering: .relaxed)
    }
}
