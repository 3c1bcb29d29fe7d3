/// The DSP load as a screen shows it, from what `RenderEngine` measures: the
/// share of the audio's own time the engine spent rendering it, averaged
/// over each second of audio, and the largest share any one block took in
/// that second. The peak is what decides whether a period is missed: near
/// 100 %, the render no longer fits in the period and xruns follow. It is
/// Busker's own processing only (a JACK server's DSP load adds the other
/// clients and the driver).
///
/// Control thread only: call `update()` as often as the screen refreshes;
/// the reading changes once per window.
public final class RenderLoadMeter {
    /// One window's figures, in percent of the audio time.
    public struct Reading: Equatable, Sendable {
        /// Time spent rendering over the audio time rendered.
        public var average: Double
        /// The largest share one block's render took of that block's audio time.
        public var peak: Double

        public init(average: Double, peak: Double) {
            self.average = average
            self.peak = peak
        }

        /// "DSP 2.9 % (peak 11 %)": one decimal under 10 %.
        public var description: String { "DSP \(Self.percent(average)) (peak \(Self.percent(peak)))" }

        /// "DSP load 2.9 % on average, 11 % in the worst block": a session's, at its end.
        public var summary: String { "DSP load \(Self.percent(average)) on average, \(Self.percent(peak)) in the worst block" }

        static func percent(_ x: Double) -> String {
            x < 9.95 ? "\((x * 10).rounded() / 10) %" : "\(Int(x.rounded())) %"
        }
    }

    private let engine: RenderEngine
    private let windowNanoseconds: Int
    private let sessionStart: (busy: Int, audio: Int)
    private var windowStart: (busy: Int, audio: Int)
    private var windowPeak: Double = 0
    /// The last complete window's figures; nil until one is complete.
    public private(set) var reading: Reading?
    /// The whole session's: the average since the meter was made, and the largest window peak.
    public private(set) var session: Reading?

    /// - Parameter windowSeconds: the audio time each reading covers.
    public init(engine: RenderEngine, windowSeconds: Double = 1) {
        precondition(windowSeconds > 0)
        self.engine = engine
        windowNanoseconds = Int(windowSeconds * 1e9)
        windowStart = engine.loadCounters
        sessionStart = windowStart
    }

    /// Takes what the engine measured since the last call; once a window's
    /// worth of audio has been rendered, `reading` becomes its figures.
    /// - Returns: `reading`.
    /// - Thread: control
    @discardableResult
    public func update() -> Reading? {
        windowPeak = max(windowPeak, engine.takeWorstBlockLoad() * 100)
        let now = engine.loadCounters
        let audio = now.audio - windowStart.audio
        guard audio >= windowNanoseconds else { return reading }
        let window = Reading(average: Double(now.busy - windowStart.busy) / Double(audio) * 100, peak: windowPeak)
        reading = window
        let total = Double(now.busy - sessionStart.busy) / Double(max(1, now.audio - sessionStart.audio)) * 100
        session = Reading(average: total, peak: max(session?.peak ?? 0, window.peak))
        windowStart = now
        windowPeak = 0
        return reading
    }
}
