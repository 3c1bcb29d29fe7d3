import CRealtimeSupport

/// The DSP load as a screen shows it, from what `RenderEngine` measures: the
/// share of the audio's own time the engine spent rendering it, averaged
/// over each second of audio, and the largest share any one block took in
/// that second. The peak is what decides whether a period is missed: as it
/// nears 100 %, the render no longer fits in the period and xruns follow.
/// It is the graph's render only: not the driver's sample conversion, the
/// two-clock resampler, the device or a JACK server's other clients.
///
/// When the engine renders nothing for `staleSeconds` of wall time (a device
/// suspended or interrupted, cycles silenced), the reading goes back to nil
/// rather than show old figures as current, and the next window starts
/// afresh when audio is back.
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
    private let staleSeconds: Double
    private let wallClock: () -> Double
    private let sessionStart: (busy: Int, audio: Int)
    private var windowStart: (busy: Int, audio: Int)
    private var windowPeak: Double = 0
    private var sessionPeak: Double = 0
    /// The audio counter at the last `update()`, and the wall time it last moved.
    private var lastAudio: Int
    private var lastMoved: Double
    /// The last complete window's figures; nil until one is complete, and again
    /// once the engine has rendered nothing for `staleSeconds`.
    public private(set) var reading: Reading?

    /// - Parameters:
    ///   - windowSeconds: the audio time each reading covers.
    ///   - staleSeconds: the wall time without a block after which the reading is dropped.
    ///   - wallClock: seconds on a monotonic clock (tests pass their own).
    public init(engine: RenderEngine, windowSeconds: Double = 1, staleSeconds: Double = 2,
                wallClock: @escaping () -> Double = { Double(busker_monotonic_nanoseconds()) / 1e9 }) {
        precondition(windowSeconds > 0 && staleSeconds > 0)
        self.engine = engine
        windowNanoseconds = Int(windowSeconds * 1e9)
        self.staleSeconds = staleSeconds
        self.wallClock = wallClock
        windowStart = engine.loadCounters
        sessionStart = windowStart
        lastAudio = windowStart.audio
        lastMoved = wallClock()
    }

    /// Takes what the engine measured since the last call; once a window's
    /// worth of audio has been rendered, `reading` becomes its figures.
    /// - Returns: `reading`.
    /// - Thread: control
    @discardableResult
    public func update() -> Reading? {
        let now = engine.loadCounters
        let peak = engine.takeWorstBlockLoad() * 100
        let time = wallClock()
        if now.audio != lastAudio {
            lastAudio = now.audio
            lastMoved = time
        } else if time - lastMoved >= staleSeconds {
            // Nothing rendered for a while: no figures rather than old ones, and a fresh window.
            reading = nil
            windowStart = now
            sessionPeak = max(sessionPeak, windowPeak, peak)
            windowPeak = 0
            return nil
        }
        windowPeak = max(windowPeak, peak)
        let audio = now.audio - windowStart.audio
        guard audio >= windowNanoseconds else { return reading }
        reading = Reading(average: Double(now.busy - windowStart.busy) / Double(audio) * 100, peak: windowPeak)
        sessionPeak = max(sessionPeak, windowPeak)
        windowStart = now
        windowPeak = 0
        return reading
    }

    /// The whole session's figures, up to now: the average since the meter was
    /// made and the worst block, the window under way included; nil when no
    /// audio was rendered.
    /// - Thread: control
    public func session() -> Reading? {
        update()
        let now = engine.loadCounters
        let audio = now.audio - sessionStart.audio
        guard audio > 0 else { return nil }
        return Reading(average: Double(now.busy - sessionStart.busy) / Double(audio) * 100,
                       peak: max(sessionPeak, windowPeak))
    }
}
