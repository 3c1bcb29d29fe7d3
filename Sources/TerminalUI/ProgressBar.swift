import CommandLineInterface
import Foundation
import Sessions

/// A one-line progress bar with the elapsed time and an ETA, redrawn in place
/// on standard error at most ten times a second.
public final class ProgressBar {
    private let totalSeconds: Double
    private let started = Date()
    private var lastDraw = Date.distantPast
    /// The fraction done as last reported, for a bar that ends short.
    private var fraction: Double = 0

    public init(totalSeconds: Double) {
        self.totalSeconds = max(totalSeconds, 1e-3)
    }

    /// `seconds` of audio are done.
    public func update(seconds: Double) {
        fraction = min(1, seconds / totalSeconds)
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        draw(fraction: fraction, elapsed: now.timeIntervalSince(started))
    }

    /// Draws 100 % and ends the line: the work is complete.
    public func finish() {
        draw(fraction: 1, elapsed: Date().timeIntervalSince(started))
        writeUnchecked("\n", to: STDERR_FILENO)
    }

    /// Ends the line at the fraction last reported: the work stopped short
    /// (interrupted, or failed), and the bar says how far it got.
    public func stopShort() {
        draw(fraction: fraction, elapsed: Date().timeIntervalSince(started))
        writeUnchecked("\n", to: STDERR_FILENO)
    }

    private func draw(fraction: Double, elapsed: Double) {
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let eta = fraction > 0.01 ? elapsed * (1 - fraction) / fraction : .nan
        let etaText = eta.isFinite ? String(format: "ETA %.1f s", eta) : "ETA …"
        let line = String(format: "\r  %@ %3d %%  %.1f s  %@\u{1B}[K", bar, Int(fraction * 100), elapsed, etaText)
        writeUnchecked(line, to: STDERR_FILENO)
    }
}
