/// What a driver that bridges two clocks reports about its control loop: the
/// drift it measures between capture and playback and the latency it holds.
/// Read on the control thread, any time; nil from a driver with one clock.
public struct ClockCorrection: Sendable, Equatable {
    /// The latency the loop holds, in frames (the primed round trip).
    public var setPointFrames: Int
    /// The path's fill now, low-passed over a tenth of a second, in frames:
    /// the current round trip as far as the driver's buffering decides.
    public var latencyFrames: Double
    /// How fast the capture clock runs against playback's, in ppm (+: capture fast).
    public var driftPPM: Double
    public var sampleRate: Int

    public init(setPointFrames: Int, latencyFrames: Double, driftPPM: Double, sampleRate: Int) {
        self.setPointFrames = setPointFrames
        self.latencyFrames = latencyFrames
        self.driftPPM = driftPPM
        self.sampleRate = sampleRate
    }

    /// For a status line that is short of room: "drift +250 ppm · now 128 fr".
    public var compactDescription: String {
        "drift \(driftPPM >= 0 ? "+" : "−")\(Int(abs(driftPPM).rounded())) ppm · now \(Int(latencyFrames.rounded())) fr"
    }

    /// "drift +250 ppm · latency 128 frames (2.7 ms)".
    public var description: String {
        let ms = latencyFrames * 1000 / Double(max(1, sampleRate))
        let sign = driftPPM >= 0 ? "+" : "−"
        return "drift \(sign)\(Int(abs(driftPPM).rounded())) ppm · latency \(Int(latencyFrames.rounded())) frames "
            + "(\(Double(Int(ms * 10 + 0.5)) / 10) ms)"
    }
}
