import FeedbackGuard
import Foundation

/// What a howl detector alone reports on `signal` at `rate`, one entry per
/// detection ("t 1.234 s 1205 Hz -20 dB slope 0.9 growing"), for failure messages.
func howlDetectionLog(_ signal: [Float], rate: Double) -> String {
    let detector = HowlDetector(sampleRate: rate)
    var lines: [String] = []
    for (i, x) in signal.enumerated() {
        detector.push(x)
        if detector.analyzeIfDue() {
            for d in 0..<detector.detectionCount {
                let h = detector.detections[d]
                lines.append("t \(String(format: "%.3f", Double(i) / rate)) s \(Int(h.frequency)) Hz \(Int(h.levelDB)) dB slope \(h.slopeDB) \(h.reason)")
            }
        }
    }
    return lines.joined(separator: "; ")
}
