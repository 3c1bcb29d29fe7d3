import Foundation

/// A one-line progress bar with the elapsed time and an ETA, redrawn in place
/// on standard error at most ten times a second.
public final class ProgressBar {
    private let totalSeconds: Double
    private let started = Date()
    private var lastDraw = Date.distantPast

    public init(totalSeconds: Double) {
        self.totalSeconds = max(totalSeconds, 1e-3)
    }

    /// `seconds` of audio are done.
    public func update(seconds: Double) {
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        draw(fraction: min(1, seconds / totalSeconds), elapsed: now.timeIntervalSince(started))
    }

    /// Draws 100 % and ends the line.
    public func finish() {
        draw(fraction: 1, elapsed: Date().timeIntervalSince(started))
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw(fraction: Double, elapsed: Double) {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let eta = fraction > 0.01 ? elapsed * (1 - fraction) / fraction : .nan
        let etaText = eta.isFinite ? String(format: "ETA %.1f s", eta) : "ETA …"
        let line = String(format: "\r  %@ %3d %%  %.1f s  %@\u{1B}[K", bar, Int(fraction * 100), elapsed, etaText)
        FileHandle.standardError.write(Data(line.utf8))
    }
}
