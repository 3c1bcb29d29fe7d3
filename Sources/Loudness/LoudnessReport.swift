import Foundation

/// The EBU R 128 figures of a finished take or a whole file.
public struct LoudnessReport: Sendable, Equatable {
    /// Integrated loudness (gated), LUFS; −∞ when nothing passed the gates (silence).
    public var integratedLUFS: Double
    /// Loudness range (EBU Tech 3342), LU.
    public var loudnessRangeLU: Double
    /// The highest true peak of any channel, dBTP; −∞ for silence.
    public var truePeakDBTP: Double
    /// The highest sample of any channel, dBFS; −∞ for silence.
    public var samplePeakDBFS: Double
    /// How much was measured.
    public var seconds: Double

    public init(integratedLUFS: Double, loudnessRangeLU: Double, truePeakDBTP: Double, samplePeakDBFS: Double, seconds: Double) {
        self.integratedLUFS = integratedLUFS
        self.loudnessRangeLU = loudnessRangeLU
        self.truePeakDBTP = truePeakDBTP
        self.samplePeakDBFS = samplePeakDBFS
        self.seconds = seconds
    }

    /// `-23.0 LUFS integrated, range 4.2 LU, true peak -1.3 dBTP`, as take
    /// summaries, take logs and `busker analyze` print it.
    public var description: String {
        "\(Self.format(integratedLUFS)) LUFS integrated, range \(Self.format(loudnessRangeLU)) LU, "
            + "true peak \(Self.format(truePeakDBTP)) dBTP"
    }

    /// One decimal (never `-0.0`), `-inf` for −∞.
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return value < 0 ? "-inf" : "inf" }
        let tenths = (value * 10).rounded()
        return String(format: "%.1f", tenths == 0 ? 0 : tenths / 10)
    }
}
