import CHostStallProbe
import Foundation

/// Watches a driver's xrun counter during a real-time test while the host
/// stall probe (`CHostStallProbe`) watches every CPU, and says afterwards
/// which xruns fell on a stall of the host.
///
/// Why: on a shared VM the hypervisor takes a virtual CPU away for
/// milliseconds at a time. cyclictest at SCHED_FIFO 80 on the 2-core test
/// VM: about 60 wake-ups in 10 s late by a millisecond or more on each CPU,
/// the worst 9 ms; the probe sees 10–50 stalls of a millisecond or more per
/// second. While a CPU is gone nothing pinned there runs, however high its
/// priority, and a 64-frame duplex buffer (2.7 ms) cannot ride that out: the
/// same 2 s run gives 0 to 8 xruns from one minute to the next, with a plain
/// gain in place of the voice chain just as with it. So the real-time tests
/// cannot ask for none. They ask for what a noisy host cannot break (no
/// allocation, every xrun recovered, a loop that keeps up) and use this
/// report to show where the xruns fell, and to check that none fell where a
/// fault of ours would put it (during a load).
///
/// An xrun counts as on a stall when the probe saw a CPU stall of at least
/// `threshold` end no more than `window` before the poll that first saw the
/// xrun. A stall is only over, and the xrun only found, once the CPU runs
/// again; most were seen within 4 ms of their stall's end, and the recovery
/// that follows (re-priming two periods, restarting the streams) can miss
/// once more, hence a window of 25 ms.
///
/// Where the probe cannot run (no real-time rights), no xrun is on a stall.
public final class XrunAttribution: @unchecked Sendable {
    /// One poll that found the counter higher than the poll before.
    public struct Sighting: Sendable {
        /// When the poll before, and this poll, read the counter (CLOCK_MONOTONIC ns).
        public var previousPoll: UInt64, poll: UInt64
        public var newXruns: Int
        /// Whether a host stall explains it.
        public var onStall = false
    }

    /// A wake-up of the probe later than the threshold.
    public struct Stall: Sendable {
        /// When the probe should have woken, and when it did (CLOCK_MONOTONIC ns).
        public var deadline: UInt64, woke: UInt64
        public var cpu: Int
        public var milliseconds: Double { Double(woke - deadline) / 1e6 }
    }

    public struct Report: Sendable, CustomStringConvertible {
        public var sightings: [Sighting]
        public var stalls: [Stall]
        /// 0, or the errno of the probe's start (then no xrun is on a stall).
        public var probeError: Int32

        public var xruns: Int { sightings.reduce(0) { $0 + $1.newXruns } }
        /// Xruns on no host stall.
        public var offStall: Int { sightings.filter { !$0.onStall }.reduce(0) { $0 + $1.newXruns } }

        /// Xruns on no host stall first seen within `interval` (CLOCK_MONOTONIC ns).
        public func offStall(within interval: ClosedRange<UInt64>) -> Int {
            sightings.filter { !$0.onStall && interval.overlaps($0.previousPoll...$0.poll) }.reduce(0) { $0 + $1.newXruns }
        }

        public var description: String {
            let longest = stalls.map(\.milliseconds).max() ?? 0
            let probe = probeError == 0
                ? "host CPU stalls seen: \(stalls.count), longest \(String(format: "%.1f", longest)) ms"
                : "host stall probe unavailable (errno \(probeError))"
            return "xruns: \(xruns), \(xruns - offStall) on host stalls, \(offStall) off; \(probe)"
        }
    }

    private let threshold: UInt64
    private let window: UInt64
    private let readXruns: @Sendable () -> Int
    private let probeError: Int32
    private let done = DispatchSemaphore(value: 0)
    private let stopLock = NSLock()
    private var stopRequested = false
    // Written by the watcher thread only, read after `done`.
    private var sightings: [Sighting] = []
    private var lastCount = 0
    /// The report, once `finish` has made it.
    private var finished: Report?

    /// Starts the probe and the watcher. Create it before the driver starts.
    /// - Parameters:
    ///   - thresholdMicroseconds: the shortest CPU stall that can explain an
    ///     xrun (half a period is generous to the code under test).
    ///   - windowMilliseconds: how long after a stall ends its xruns may be found.
    ///   - readXruns: the driver's xrun counter.
    public init(thresholdMicroseconds: Int, windowMilliseconds: Int = 25, readXruns: @escaping @Sendable () -> Int) {
        threshold = UInt64(thresholdMicroseconds) * 1000
        window = UInt64(windowMilliseconds) * 1_000_000
        self.readXruns = readXruns
        // Priority 90: above the render thread (70) and the JACK server (10),
        // so only a CPU that is not running at all makes the probe late. A
        // wake-up every millisecond: every 250 µs cost the host enough to
        // raise the xrun counts under test.
        probeError = busker_stall_probe_start(1000, Int32(thresholdMicroseconds), 90)
        lastCount = readXruns()
        let thread = Thread { [self] in watch() }
        thread.name = "xrun-watch"
        thread.start()
    }

    private func watch() {
        var previous = busker_monotonic_ns()
        while true {
            stopLock.lock()
            let stop = stopRequested
            stopLock.unlock()
            // The count first: every xrun it holds happened before `now`.
            let count = readXruns()
            let now = busker_monotonic_ns()
            if count > lastCount {
                sightings.append(Sighting(previousPoll: previous, poll: now, newXruns: count - lastCount))
                lastCount = count
            }
            previous = now
            if stop { break }
            usleep(1000)
        }
        done.signal()
    }

    /// Stops watching (call once the driver has stopped, so that its last
    /// xruns are read) and places every xrun seen. Later calls return the
    /// same report: a test may also call it in a `defer`, so that a test that
    /// throws early leaves no probe thread running at priority 90.
    @discardableResult
    public func finish() -> Report {
        if let finished { return finished }
        stopLock.lock()
        stopRequested = true
        stopLock.unlock()
        done.wait()
        var stalls: [Stall] = []
        if probeError == 0 {
            busker_stall_probe_stop()
            for i in 0..<busker_stall_probe_count() {
                var deadline: UInt64 = 0, woke: UInt64 = 0
                var cpu: Int32 = 0
                if busker_stall_probe_get(i, &deadline, &woke, &cpu) == 0 {
                    stalls.append(Stall(deadline: deadline, woke: woke, cpu: Int(cpu)))
                }
            }
        }
        stalls = stalls.filter { $0.woke - $0.deadline >= threshold }
        let placed = sightings.map { sighting in
            var s = sighting
            let from = s.previousPoll > window ? s.previousPoll - window : 0
            s.onStall = stalls.contains { (from...s.poll).contains($0.woke) }
            return s
        }
        let report = Report(sightings: placed, stalls: stalls, probeError: probeError)
        finished = report
        return report
    }
}
