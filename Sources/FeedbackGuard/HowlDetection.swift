/// One howl the detector found in an analysis frame.
public struct HowlDetection: Sendable, Equatable {
    /// Why the peak was judged a howl.
    public enum Reason: Sendable, Equatable {
        /// It grows steadily.
        case growing
        /// It is loud and its frequency and level stand still (the limiter holds it).
        case sustained
    }

    /// The peak's frequency, interpolated between bins, in Hz.
    public var frequency: Float
    /// Its level, in dB relative to a full-scale sine.
    public var levelDB: Float
    /// Its growth over the last frames, in dB per analysis frame (a hop of `HowlCriteria.hopSize` samples at the detector's rate; about 0 when sustained).
    public var slopeDB: Float
    public var reason: Reason

    /// - Thread: any (the detector makes them on the audio thread).
    /// - Realtime: safe.
    public init(frequency: Float, levelDB: Float, slopeDB: Float, reason: Reason) {
        self.frequency = frequency
        self.levelDB = levelDB
        self.slopeDB = slopeDB
        self.reason = reason
    }
}
