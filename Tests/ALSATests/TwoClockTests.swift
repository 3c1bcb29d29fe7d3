import ALSA
import CAllocationCounter
import Chains
import CommandLineInterface
import Engine
import Foundation
import RenderTestSupport
import Sessions
import Session
import Synchronization
import XCTest

/// Two devices on two clocks (`PacedClockPair`: ALSA `null` PCMs paced in
/// real time, capture at 48000 × (1 + 250 ppm), playback at 48000), through
/// the real `DuplexDriver` and its `audio-render` thread: the adaptive
/// resampler and its control loop hold the round trip at its set point.
final class TwoClockTests: XCTestCase {
    static let rate = 48000.0
    static let ppm = 250.0

    private func options(_ pair: PacedClockPair, period: Int = 64) -> DuplexDriver.Options {
        var o = DuplexDriver.Options(capture: "null", playback: "null")
        o.formats = [.float32]
        o.periodFrames = period
        o.periodCount = 2
        o.captureChannels = 2
        o.playbackChannels = 2
        o.lockMemory = false
        o.calls = pair.calls
        return o
    }

    private struct Run {
        var driver: DuplexDriver
        var xruns: XrunAttribution.Report
        var fills: [(seconds: Double, fill: Double, filtered: Double, drift: Double)]
        var roundTrips: [(at: Double, frames: Double)]
    }

    /// Runs the loop for `seconds` on `pair`, sampling the driver's clock
    /// report every 50 ms.
    private func run(_ pair: PacedClockPair, seconds: Int, period: Int = 64, correct: Bool = true) throws -> Run {
        var o = options(pair, period: period)
        o.correctClockDrift = correct
        let driver = try DuplexDriver(options: o, stopAfterFrames: seconds * 48000)
        XCTAssertFalse(driver.granted.linked, "two cards are not linked")
        let engine = RenderEngine()
        engine.install(try HalfGainNode.plan(inputChannels: 2, spec: driver.processSpec))
        let watcher = XrunAttribution(thresholdMicroseconds: period * 1_000_000 / 48000 / 2) { driver.xrunCount }
        let started = Date()
        try driver.start(engine: engine)
        if let notice = driver.realtime?.notice { print(notice) }
        var fills: [(Double, Double, Double, Double)] = []
        var recovered = 0, captureXruns = 0
        while driver.stopReason == nil && Date().timeIntervalSince(started) < Double(seconds) + 10 {
            usleep(50_000)
            // Drained as the run goes: the driver's event queue holds 256.
            while let event = driver.nextEvent() {
                if case .xrunRecovered(let direction, _) = event {
                    recovered += 1
                    if direction == .capture { captureXruns += 1 }
                }
            }
            if let clock = driver.clockCorrection, let fill = driver.measuredFillFrames {
                fills.append((Date().timeIntervalSince(started), fill, clock.latencyFrames, clock.driftPPM))
            }
        }
        let report = watcher.finish()
        while let event = driver.nextEvent() {
            if case .xrunRecovered(let direction, _) = event {
                recovered += 1
                if direction == .capture { captureXruns += 1 }
            }
        }
        XCTAssertEqual(recovered, driver.xrunCount, "every xrun recovered")
        print("two clocks, \(correct ? "corrected" : "uncorrected"): \(driver.summary); \(report); "
              + "\(captureXruns) found on capture, \(recovered - captureXruns) on playback")
        return Run(driver: driver, xruns: report, fills: fills, roundTrips: pair.roundTrips())
    }

    /// The acceptance test: 60 s at 250 ppm apart, no xrun off a host stall,
    /// the latency within one period of its set point at the end — both as
    /// the driver measures it and as a pulse takes from capture to playback —
    /// and the drift estimate on the true drift.
    func testSixtySecondsAt250PPMHoldTheLatency() throws {
        try checkSixtySecondsHoldTheLatency(period: 64)
    }

    /// The same with 256-frame periods: four times the headroom against the
    /// host's stalls, so on a host that stalls often the loop still runs
    /// long stretches undisturbed and is measured rather than skipped.
    func testSixtySecondsAt250PPMHoldTheLatencyWith256FramePeriods() throws {
        try checkSixtySecondsHoldTheLatency(period: 256)
    }

    private func checkSixtySecondsHoldTheLatency(period: Int) throws {
        let pair = PacedClockPair(captureRate: Self.rate * (1 + Self.ppm / 1e6), playbackRate: Self.rate)
        let r = try run(pair, seconds: 60, period: period)
        defer { r.driver.close() }
        XCTAssertEqual(r.driver.stopReason, r.driver.frameLimitReason)
        try skipIfTheHostDecides(r, seconds: 60)
        // Xruns: the host's stalls cause some on this shared VM (see
        // `XrunAttribution`); the bounds are `assertXrunsAreTheHosts`'s —
        // at most 5 % of the periods lost, at most 3 xruns off a host stall
        // (a loop that loses its set point xruns every few seconds: see the
        // negative control).
        XCTAssertEqual(r.xruns.xruns, r.driver.xrunCount, "the watcher saw every xrun")
        XCTAssertLessThanOrEqual(r.driver.xrunCount * 20, 60 * 48000 / period, "more than 5 % of periods lost: \(r.xruns)")
        if r.xruns.probeError == 0 { XCTAssertLessThanOrEqual(r.xruns.offStall, 3, "xruns off a host stall: \(r.xruns)") }
        let setPoint = Double(r.driver.granted.primedFrames)
        let clock = try XCTUnwrap(r.driver.clockCorrection, "two clocks are resampled")
        XCTAssertEqual(clock.setPointFrames, 2 * period)
        // The end: the last second as the driver measures it.
        let last = r.fills.filter { $0.seconds > 59 && $0.seconds <= 60 }
        XCTAssertFalse(last.isEmpty)
        for f in last {
            XCTAssertEqual(f.filtered, setPoint, accuracy: Double(period), "latency within a period of its set point at \(f.seconds) s")
        }
        // The same, measured on the audio: the last pulses' round trip.
        let trips = r.roundTrips
        XCTAssertGreaterThan(trips.count, 100, "pulses came through (2 a second)")
        // Settled (from 30 s): every pulse within a quarter period, the bound
        // the uncorrected run breaks (the negative control below).
        let start = trips.first?.at ?? 0
        for t in trips where t.at - start > 30 {
            XCTAssertEqual(t.frames, setPoint, accuracy: Double(period) / 4, "a settled pulse's round trip at \(Int(t.at - start)) s")
        }
        let lastTrips = trips.suffix(4)
        for t in lastTrips {
            XCTAssertEqual(t.frames, setPoint, accuracy: Double(period), "a pulse's round trip within a period of the set point")
        }
        print("round trips (frames) first: \(trips.prefix(3).map { Int($0.frames.rounded()) }), "
              + "last: \(lastTrips.map { Int($0.frames.rounded()) })")
        // The drift estimate: within 10 ppm of the truth (a 10 ppm error moves
        // the fill by a period in 133 s; the loop settles in about 15 s).
        let drift = try XCTUnwrap(last.last?.drift)
        XCTAssertEqual(drift, Self.ppm, accuracy: 10, "estimated drift")
    }

    /// Negative control: the same clocks without the correction. 250 ppm
    /// moves the round trip 6 frames a pulse (a period every 5.3 s) until an
    /// xrun re-primes it, so within 12 s it strays more than a quarter period
    /// (16 frames) from the set point, where the corrected loop keeps within
    /// a frame or two once settled; or xruns off the host's stalls.
    func testWithoutTheCorrectionTheSameClocksLoseTheSetPoint() throws {
        let pair = PacedClockPair(captureRate: Self.rate * (1 + Self.ppm / 1e6), playbackRate: Self.rate)
        let r = try run(pair, seconds: 12, correct: false)
        defer { r.driver.close() }
        XCTAssertNil(r.driver.clockCorrection)
        try skipIfTheHostDecides(r, seconds: 12)
        let trips = r.roundTrips.map(\.frames)
        let worst = trips.map { abs($0 - 128) }.max() ?? 0
        print("uncorrected: xruns \(r.driver.xrunCount), round trips \(trips.map { Int($0.rounded()) })")
        XCTAssertTrue(r.xruns.offStall > 0 || worst > 16,
                      "uncorrected, the drift xruns or moves the latency by more than a quarter period")
    }

    /// A host whose own CPU stalls cost the loop more than two xruns a second
    /// (this VM's hypervisor, at its worst, takes the CPU away 50 times a
    /// second for up to 25 ms) re-primes the path so often that the latency
    /// and the drift estimate measure the host, not the control loop: such a
    /// run shows nothing about the loop either way, so it skips with its figures.
    private func skipIfTheHostDecides(_ r: Run, seconds: Int) throws {
        let onStalls = r.xruns.xruns - r.xruns.offStall
        try XCTSkipIf(r.xruns.probeError == 0 && onStalls > 2 * seconds,
                      "the host stalled the loop into \(onStalls) xruns in \(seconds) s: \(r.xruns)")
    }

    /// Only two clocks get the resampler: two `null` PCMs, which ALSA cannot
    /// link, get it, and the start-up line says so; the same two reported linked
    /// (as one card's capture and playback are; the call table's `link` says
    /// so here, since no PCM on this machine links) get none and say nothing of it.
    func testOnlyUnlinkedStreamsGetTheResampler() throws {
        var o = options(PacedClockPair(captureRate: Self.rate, playbackRate: Self.rate))
        o.calls = .live
        let apart = try DuplexDriver(options: o)
        defer { apart.close() }
        XCTAssertFalse(apart.granted.linked)
        XCTAssertNotNil(apart.clockCorrection, "two clocks: resampled")
        XCTAssertTrue(apart.summary.contains("two clocks, resampled: drift"), apart.summary)

        o.calls.link = { _, _ in 0 }
        o.calls.unlink = { _ in 0 }
        let linked = try DuplexDriver(options: o)
        defer { linked.close() }
        XCTAssertTrue(linked.granted.linked)
        XCTAssertNil(linked.clockCorrection, "one clock: no resampler")
        XCTAssertNil(linked.measuredFillFrames)
        XCTAssertFalse(linked.summary.contains("two clocks"), linked.summary)
    }

    /// The render thread allocates nothing with everything on at once: the
    /// resampler active (two clocks 250 ppm apart), the live chain with two
    /// strips and every stage on, and MIDI control flowing (a controller
    /// through a FIFO, applied by this test's control loop). The counter's
    /// negative control is an allocation made on that thread as it starts,
    /// after counting began.
    func testResampledLoopWithTwoStripsAndMIDIControlDoesNotAllocate() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        let pair = PacedClockPair(captureRate: Self.rate * (1 - Self.ppm / 1e6), playbackRate: Self.rate)
        var o = options(pair)
        let seen = Atomic<Int>(0)
        final class Probe: @unchecked Sendable { var kept: AnyObject? }
        let probe = Probe()
        o.calls = o.calls.withRenderThreadStart {
            busker_allocation_counting_begin()
            probe.kept = NSObject()
            seen.store(busker_allocation_count(), ordering: .relaxed)
        }
        let driver = try DuplexDriver(options: o, stopAfterFrames: 8 * 48000)
        defer { driver.close() }
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2", "--bass", "6", "--treble", "3", "--boost", "3",
                                                      "--reverb", "30", "--gate", "--compressor", "--voice-processing"])
        let chain = try LiveChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings)
        XCTAssertEqual(chain.strips.count, 2)
        XCTAssertNotNil(chain.strips[1].voiceProcessor)
        let controller = try MIDIControllerRehearsal()
        defer { controller.stop() }
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        defer {
            driver.close()  // the render thread stopped before the plans are freed
            engine.releaseAll()
        }
        func waitFor(frames: Int) {
            while driver.framesProcessed < frames && driver.stopReason == nil {
                controller.pump(settings: &settings, chain: chain, engine: engine)
                usleep(1000)
            }
        }
        waitFor(frames: 48000)
        XCTAssertGreaterThan(seen.load(ordering: .relaxed), 0, "the counter catches an allocation on the render thread")
        XCTAssertNotNil(driver.clockCorrection, "the resampler is active")
        busker_allocation_counts_reset()
        let delivered = controller.delivered
        controller.resetCounts()
        waitFor(frames: 6 * 48000)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        print("two clocks, two strips, MIDI control while counting: \(controller.delivered - delivered) messages, "
              + "\(controller.micToggles) mic toggles, \(controller.settingsChanges) settings applied")
        XCTAssertGreaterThanOrEqual(driver.framesProcessed, 6 * 48000, "the loop kept running")
        XCTAssertGreaterThan(controller.delivered - delivered, 100, "MIDI messages flowed")
        XCTAssertGreaterThan(controller.micToggles, 2, "the footswitch toggled the mic")
        XCTAssertGreaterThan(controller.settingsChanges, 10, "the faders moved the settings")
        XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
        XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
    }

    /// The benchmark (`Tools/bench-clocks`; skipped unless
    /// BUSKER_TWO_CLOCK_SECONDS is set): as the test above for that many
    /// seconds at BUSKER_TWO_CLOCK_PPM (default 250), printing the xruns and
    /// the latency's worst deviation after the first 20 s. Asserts nothing
    /// but that it ran: figures, not a verdict.
    func testBenchmarkLongRun() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let seconds = environment["BUSKER_TWO_CLOCK_SECONDS"].flatMap(Int.init) else {
            throw XCTSkip("a benchmark: set BUSKER_TWO_CLOCK_SECONDS (Tools/bench-clocks)")
        }
        let ppm = environment["BUSKER_TWO_CLOCK_PPM"].flatMap(Double.init) ?? Self.ppm
        let pair = PacedClockPair(captureRate: Self.rate * (1 + ppm / 1e6), playbackRate: Self.rate)
        let period = environment["BUSKER_TWO_CLOCK_PERIOD"].flatMap(Int.init) ?? 64
        let correct = environment["BUSKER_TWO_CLOCK_CORRECT"] != "0"
        let r = try run(pair, seconds: seconds, period: period, correct: correct)
        defer { r.driver.close() }
        XCTAssertEqual(r.driver.stopReason, r.driver.frameLimitReason)
        let settled = r.fills.filter { $0.seconds > 20 }
        let setPoint = Double(r.driver.granted.primedFrames)
        func spread(_ xs: [Double]) -> String {
            guard let lo = xs.min(), let hi = xs.max() else { return "none" }
            return String(format: "%+.1f … %+.1f frames (worst %.1f)", lo - setPoint, hi - setPoint,
                          max(abs(lo - setPoint), abs(hi - setPoint)))
        }
        let trips = r.roundTrips.filter { $0.at - (r.roundTrips.first?.at ?? 0) > 20 }.map(\.frames)
        print("BENCH two clocks: \(seconds) s at \(ppm) ppm, period \(period), set point \(Int(setPoint)) frames")
        print("BENCH \(r.xruns)")
        print("BENCH after 20 s: low-passed latency \(spread(settled.map(\.filtered)))")
        print("BENCH after 20 s: measured fill (every 50 ms) \(spread(settled.map(\.fill)))")
        print("BENCH after 20 s: pulse round trip (\(trips.count) pulses) \(spread(trips))")
        print(String(format: "BENCH drift estimate at the end: %+.2f ppm (true %+.2f)", settled.last?.drift ?? .nan,
                     (1 + ppm / 1e6 - 1) * 1e6))
    }
}
