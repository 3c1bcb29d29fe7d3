import Chains
import Engine
import Foundation
import Sessions

/// `busker bench --howl`: the howl guard in the feedback simulator.
///
/// Figures, printed:
/// - per path (a single resonance; small rooms with three different random
///   tails): the bare chain's maximum stable gain, the guarded chain's, and
///   the difference, the added stable gain (ASG), in 1 dB steps over 12 s
///   runs, notches only (the emergency gain off: it would hold any loop);
/// - detection: how long after the loop gain steps 3 dB over the bare limit
///   the first notch is placed, and the guarded output's peak after the step.
///
/// "Stable" means: in the last 2 s of the run the output is within 10 dB of
/// what the same source gives with the loop open (a howl sits 30–40 dB higher).
public enum HowlBench {
    public static let rate = 48_000.0

    /// - Parameter say: where each line of the report goes (the command prints it).
    public static func run(seconds: Double, say: (String) -> Void) throws {
        say("howl guard in the feedback simulator (voice chain at volume 1, 64-frame blocks, \(Int(seconds)) s runs,"
              + " source: noise at −45 dBFS RMS; stable = last 2 s within 10 dB of the open loop):")
        var paths = [FeedbackPath.resonant(sampleRate: rate)]
        for seed in [7, 21, 1234] as [UInt64] {
            var room = FeedbackPath.room(sampleRate: rate, seed: seed)
            room.name += " seed \(seed)"
            paths.append(room)
        }
        for path in paths {
            let started = Date()
            let bare = try maximumStableGain(path: path, guardOn: false, seconds: seconds, from: -10)
            let guarded = try maximumStableGain(path: path, guardOn: true, seconds: seconds, from: bare)
            let (delay, peak) = try detection(path: path, overDB: bare + 3)
            say(String(format: "  %@: bare limit %+.0f dB, guarded %+.0f dB → ASG %.0f dB; step to %+.0f dB caught after %@, guarded peak %.1f dBFS (%.1f s)",
                         path.name, bare, guarded, guarded - bare, bare + 3,
                         delay.map { "\(Int(($0 * 1000).rounded())) ms" } ?? "never", peak, Date().timeIntervalSince(started)))
        }
    }

    /// The highest whole dB of loop gain at which the chain is stable, counting up from `start`.
    public static func maximumStableGain(path: FeedbackPath, guardOn: Bool, seconds: Double, from start: Float) throws -> Float {
        let reference = try simulate(path: path, guardOn: guardOn, seconds: seconds) { _ in nil }
        let tail = Int((seconds - 2) * rate)
        let open = rmsDB(reference.output[tail...])
        var gain = start
        while gain < 40 {
            let closed = try simulate(path: path, guardOn: guardOn, seconds: seconds) { _ in gain + 1 }
            if rmsDB(closed.output[tail...]) >= open + 10 { break }
            gain += 1
        }
        return gain
    }

    /// Seconds from a step of the loop gain (at 1 s, from 10 dB under to `overDB`) to the first notch, and the peak after it.
    public static func detection(path: FeedbackPath, overDB: Float) throws -> (Double?, Float) {
        let onset = Int(rate)
        var seen: Int?
        let run = try simulate(path: path, guardOn: true, emergency: true, seconds: 4, loopGainDB: { $0 < onset ? overDB - 13 : overDB }) { frames, chain in
            if seen == nil && !chain.howlGuard.status().notches.isEmpty { seen = frames }
        }
        let peak = 20 * log10f(run.output[onset...].map(abs).max() ?? 0)
        return (seen.map { Double($0 - onset) / rate }, peak)
    }

    public static func simulate(path: FeedbackPath, guardOn: Bool, emergency: Bool = false, seconds: Double,
                         loopGainDB: @escaping (Int) -> Float?, afterBlock: ((Int, LiveChain) -> Void)? = nil) throws -> FeedbackSimulator.Run {
        var settings = LiveSettings()
        settings.volume = 1
        settings.howlGuard = guardOn
        let chain = try LiveChain(inputChannelCount: 1, settings: settings)
        chain.howlGuard.emergencyGainEnabled = emergency
        let simulator = FeedbackSimulator(plan: try chain.compile(spec: ProcessSpec(sampleRate: rate, maximumBlockSize: 64)), path: path)
        return simulator.run(source: source(seconds: seconds), loopGainDB: loopGainDB) { afterBlock?($0, chain) }
    }

    /// Uniform noise at −45 dBFS RMS, the same every run.
    public static func source(seconds: Double) -> [Float] {
        var state: UInt64 = 11
        return (0..<Int(seconds * rate)).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 0.01 * Float(Int32(truncatingIfNeeded: state >> 32)) / Float(Int32.max)
        }
    }

    public static func rmsDB(_ x: ArraySlice<Float>) -> Float {
        10 * log10f(x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count)) + 1e-24)
    }
}
