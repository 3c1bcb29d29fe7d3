#if canImport(Glibc)
import Glibc
#endif

/// The slow control loop that keeps a two-clock path at its latency: once a
/// period it takes the measured fill of the path (frames captured and not yet
/// read, held in the resampler, queued on playback), and answers the
/// resampler's step (input frames per output frame).
///
/// It follows the structure of Fons Adriaensen's "Controlling adaptive
/// resampling" (LAC 2012, the loop of zita-ajbridge; alsaloop's `-S` modes
/// do the same job): a first-order low-pass on the fill error, then a PI
/// controller, whose integral term is the estimate of the clocks' relative
/// drift. The plant is an integrator — the fill grows by
/// `period × (drift − correction)` each period — so the closed loop is second
/// order with natural frequency ωn = √(rate·Ki) and damping ζ = rate·Kp / (2ωn).
///
/// The constants, and why:
/// - ωn = 0.5 rad/s (0.08 Hz), ζ = 1 (critically damped: no overshoot to
///   ring down). A drift step δ then leaves a peak error of rate·δ / (ωn·e):
///   17.7 frames at 48 kHz for a 500 ppm step, 35 for a 1000 ppm swing —
///   less than a 64-frame period, the tightest the live path runs — and the
///   error is under one frame after about 15 s. Faster loops follow the
///   measurement's noise into the ratio, which is heard as pitch wobble.
/// - Low-pass time constant 0.1 s: averages the period-to-period jitter of
///   the fill (a device reports its pointers a period at a time) while
///   adding only 3° of phase at ωn.
/// - Correction clamped to ±5000 ppm: crystal oscillators are within
///   ±100 ppm of nominal; USB devices a few hundred. Anything beyond is a
///   fault the loop should not follow (the xrun recovery resets the fill).
///
/// A plain value: the render thread owns one, the tests simulate with another.
public struct FillController: Sendable {
    /// The fill the loop holds, in frames.
    public let setPoint: Double
    /// Seconds per update (one period of the pacing clock).
    public let interval: Double
    /// Proportional gain, per frame of error (a correction of 1 is 1,000,000 ppm).
    public let proportionalGain: Double
    /// Integral gain, per frame of error per second.
    public let integralGain: Double
    /// The low-pass's weight of a new measurement.
    public let smoothing: Double
    public static let naturalFrequency = 0.5
    public static let damping = 1.0
    public static let lowPassSeconds = 0.1
    public static let maximumCorrection = 0.005

    /// The low-passed fill error, in frames.
    public private(set) var filteredError = 0.0
    /// The integral term: the estimated drift of the source clock against the
    /// destination's, as a fraction (+0.00025: the source runs 250 ppm fast).
    public private(set) var driftEstimate = 0.0
    /// The last correction answered (drift estimate + proportional term).
    public private(set) var correction = 0.0
    /// Updates since the last restart.
    public private(set) var updates = 0

    /// - Parameters:
    ///   - setPoint: the fill to hold, in frames.
    ///   - sampleRate: frames per second.
    ///   - periodFrames: frames between updates.
    public init(setPoint: Double, sampleRate: Double, periodFrames: Int) {
        self.setPoint = setPoint
        interval = Double(periodFrames) / sampleRate
        let wn = Self.naturalFrequency
        proportionalGain = 2 * Self.damping * wn / sampleRate
        integralGain = wn * wn / sampleRate
        smoothing = 1 - exp(-interval / Self.lowPassSeconds)
    }

    // MARK: Audio thread

    /// One period's measurement in, the resampler's step out.
    /// - Parameter fill: frames in the path now.
    /// - Returns: input frames per output frame (1 + correction).
    /// - Thread: audio
    /// - Realtime: safe
    public mutating func update(fill: Double) -> Double {
        let error = fill - setPoint
        filteredError += smoothing * (error - filteredError)
        let limit = Self.maximumCorrection
        driftEstimate = min(limit, max(-limit, driftEstimate + integralGain * filteredError * interval))
        correction = min(limit, max(-limit, driftEstimate + proportionalGain * filteredError))
        updates += 1
        return 1 + correction
    }

    /// After an xrun the fill starts again at the set point: forget the old
    /// error, keep the drift estimate (the clocks have not changed).
    /// - Thread: audio
    /// - Realtime: safe
    public mutating func restart() {
        filteredError = 0
        correction = driftEstimate
        updates = 0
    }

    /// The fill the low-pass sees: set point + filtered error, in frames.
    public var filteredFill: Double { setPoint + filteredError }
}
