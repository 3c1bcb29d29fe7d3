/// What the howl guard is doing, as the control thread reads it (for the
/// live screen's FEEDBACK warning and the status line).
public struct HowlGuardStatus: Sendable, Equatable {
    /// One notch in use.
    public struct Notch: Sendable, Equatable {
        public var frequency: Float
        /// Depth now applied, in dB (positive: the cut).
        public var depthDB: Float

        public init(frequency: Float, depthDB: Float) {
            self.frequency = frequency
            self.depthDB = depthDB
        }
    }

    public var enabled: Bool
    /// True while a howl was found in the last `HowlGuardNode.warningSeconds`, or the emergency gain is down.
    public var feedbackWarning: Bool
    /// Notches in use, lowest frequency first.
    public var notches: [Notch]
    /// The last-resort gain reduction now applied, in dB (0 when none).
    public var gainReductionDB: Float
    /// Howls reported by the detector so far.
    public var detectionCount: Int
    /// Sample time of the first detection since preparation, or nil.
    public var firstDetectionFrame: Int?

    public init(enabled: Bool, feedbackWarning: Bool, notches: [Notch], gainReductionDB: Float,
                detectionCount: Int, firstDetectionFrame: Int?) {
        self.enabled = enabled
        self.feedbackWarning = feedbackWarning
        self.notches = notches
        self.gainReductionDB = gainReductionDB
        self.detectionCount = detectionCount
        self.firstDetectionFrame = firstDetectionFrame
    }

    /// "FEEDBACK 750 Hz −18 dB, 2.5 kHz −12 dB, gain −6 dB" (or "notches …" once the warning is over), "" when quiet: for the status line and the screen.
    /// - Thread: control.
    /// - Realtime: unsafe (builds strings).
    public var summary: String {
        guard enabled else { return "howl guard off" }
        guard feedbackWarning || !notches.isEmpty else { return "" }
        var parts = notches.map { n -> String in
            let f = n.frequency >= 1000 ? "\((n.frequency / 100).rounded() / 10) kHz" : "\(Int(n.frequency.rounded())) Hz"
            return "\(f) −\(Int(n.depthDB.rounded())) dB"
        }
        if gainReductionDB > 0.05 { parts.append("gain −\(Int(gainReductionDB.rounded())) dB") }
        return (feedbackWarning ? "FEEDBACK " : "notches ") + parts.joined(separator: ", ")
    }
}
