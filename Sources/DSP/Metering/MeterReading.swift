
/// One channel's level as a `MeterNode` published it at the end of a block.
/// All values are linear amplitudes (1 = full scale).
public struct MeterReading: Sendable, Equatable {
    /// Peak envelope: jumps to each new peak, then falls at `MeterNode.peakFallDBPerSecond`.
    public var peak: Float
    /// Root mean square over the last `MeterNode.rmsWindowSeconds` (50 ms).
    public var rms: Float
    /// The largest |sample| since preparation or the last `resetPeaks()` (≥ 1 means clipped).
    public var maxPeak: Float

    /// - Thread: any (`MeterNode.reading(channel:)` builds one on its caller's thread)
    /// - Realtime: safe
    public init(peak: Float, rms: Float, maxPeak: Float = 0) {
        self.peak = peak
        self.rms = rms
        self.maxPeak = maxPeak
    }

    /// `peak` in dBFS (−inf for silence).
    public var peakDB: Float { gainToDecibels(peak) }
    /// `rms` in dBFS (−inf for silence).
    public var rmsDB: Float { gainToDecibels(rms) }
    /// `maxPeak` in dBFS (−inf for silence).
    public var maxPeakDB: Float { gainToDecibels(maxPeak) }
    /// Whether a sample reached full scale since the last `resetPeaks()`.
    public var hasClipped: Bool { maxPeak >= 1 }

    /// All levels zero.
    /// - Thread: any
    /// - Realtime: safe
    public static var silent: MeterReading { MeterReading(peak: 0, rms: 0, maxPeak: 0) }
}
