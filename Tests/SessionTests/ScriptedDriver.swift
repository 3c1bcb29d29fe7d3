import Engine
import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An in-memory driver that plays a script, for running `SessionRunner`
/// without any device: its `audio-render` thread renders the engine one
/// period at a time, paced at the period's real duration, feeding a
/// constant input and keeping channel 0 of what comes out; at the periods
/// the script names it reports an xrun, a stall, a format change, or ends
/// its loop with a stop reason. Nothing in it knows the runner: the runner
/// knows it only as an `AudioDriver`.
final class ScriptedDriver: AudioDriver, @unchecked Sendable {
    /// What happens after a given period of a run.
    enum Step: Sendable, Equatable {
        case xrun
        case stall(milliseconds: Int)
        case stallEnded
        /// The driver runs at the script's `changedFormat` from here (a sound server's new buffer size).
        case formatChange
        case end(DriverStopReason)
    }

    struct Script: Sendable {
        /// Steps by period index within a run (counted from 0 at each start).
        var steps: [Int: Step] = [:]
        var changedFormat: AudioFormat?
        /// `start` throws this once, then works.
        var startFailure: StartFailure?
        /// What `finish` answers (nil: everything played).
        var drainResult: DriverStopReason?
        /// The constant every input sample holds.
        var inputValue: Float = 1
    }

    /// The failure `start` throws, as a driver's own error type would.
    struct Failure: DriverError {
        let startFailure: StartFailure
        var description: String { startFailure.message }
    }

    let route: DeviceRoute
    private let initialFormat: AudioFormat
    private let script: Script

    // MARK: Shared with the render thread
    private let events = SPSCQueue<DriverEvent>(capacity: 256)
    private let running = Atomic<Bool>(false)
    private let stopRequested = Atomic<Bool>(false)
    private let formatChanged = Atomic<Bool>(false)
    private let xruns = Atomic<Int>(0)
    private let periodsRendered = Atomic<Int>(0)
    private let samplesKept = Atomic<Int>(0)
    /// Written by the render thread before `running` goes false.
    private var loopEnd: DriverStopReason?
    /// Channel 0 of every rendered period, preallocated.
    private let kept: UnsafeMutablePointer<Float>
    private let keptCapacity = 1 << 20

    // MARK: Control thread only
    private var thread: RealtimeThread?
    private var pendingStartFailure: StartFailure?
    private(set) var isClosed = false
    private(set) var startCount = 0
    private(set) var resumeCount = 0
    private(set) var finishCount = 0
    /// The engine the last start rendered on.
    private(set) weak var lastEngine: RenderEngine?

    init(route: DeviceRoute, format: AudioFormat, script: Script = Script()) {
        self.route = route
        initialFormat = format
        self.script = script
        pendingStartFailure = script.startFailure
        kept = .allocate(capacity: keptCapacity)
    }

    deinit {
        close()
        kept.deallocate()
    }

    // MARK: AudioDriver

    var format: AudioFormat {
        formatChanged.load(ordering: .acquiring) ? (script.changedFormat ?? initialFormat) : initialFormat
    }
    var latencyFrames: Int { 2 * format.periodFrames }
    var summary: String { "scripted: \(format)" }
    var realtimeNotice: String? { nil }
    var isRunning: Bool { running.load(ordering: .acquiring) }
    var xrunCount: Int { xruns.load(ordering: .relaxed) }
    /// Why the last run ended (its script's reason, or `.requested` after a
    /// stop), as a device driver keeps it until the next start; nil while
    /// running or before the first start.
    var stopReason: DriverStopReason? {
        running.load(ordering: .acquiring) ? nil : loopEnd
    }

    func nextEvent() -> DriverEvent? { events.pop() }

    func start(engine: RenderEngine) throws {
        precondition(!isClosed, "start after close")
        if let failure = pendingStartFailure {
            pendingStartFailure = nil
            throw Failure(startFailure: failure)
        }
        stop()
        startCount += 1
        lastEngine = engine
        stopRequested.store(false, ordering: .relaxed)
        loopEnd = nil
        running.store(true, ordering: .releasing)
        // Buffers for the largest period the script may switch to, allocated here.
        let largest = max(initialFormat.periodFrames, script.changedFormat?.periodFrames ?? 0)
        let input = AudioBuffer(channelCount: max(1, initialFormat.inputChannels), capacity: largest)
        let output = AudioBuffer(channelCount: max(1, initialFormat.outputChannels), capacity: largest)
        for c in 0..<input.channelCount { input[c].update(repeating: script.inputValue, count: largest) }
        thread = RealtimeThread(name: RealtimeThread.renderThreadName) { [self] in
            loop(engine: engine, input: input, output: output)
        }
    }

    func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws {
        resumeCount += 1
        try start(engine: engine)
    }

    func stop() {
        guard let thread else { return }
        stopRequested.store(true, ordering: .relaxed)
        thread.join()
        // A loop that ended by itself keeps its reason; a requested stop is `.requested`.
        if loopEnd == nil { loopEnd = .requested }
        self.thread = nil
        running.store(false, ordering: .releasing)
    }

    func finish(timeoutMilliseconds: Int) -> DriverStopReason? {
        finishCount += 1
        stop()
        return script.drainResult
    }

    func close() {
        guard !isClosed else { return }
        stop()
        isClosed = true
    }

    // MARK: What the test reads

    /// Periods rendered since open.
    var periods: Int { periodsRendered.load(ordering: .relaxed) }
    /// Channel 0 of everything rendered since open.
    var output: [Float] { Array(UnsafeBufferPointer(start: kept, count: samplesKept.load(ordering: .acquiring))) }

    // MARK: Audio thread

    /// - Thread: audio
    /// - Realtime: safe (the buffers are allocated before it starts and events
    ///   are plain values; it sleeps a period's length to pace itself, as a
    ///   device's wait would)
    private func loop(engine: RenderEngine, input: AudioBuffer, output: AudioBuffer) {
        var period = 0
        while !stopRequested.load(ordering: .relaxed) {
            let frames = format.periodFrames
            engine.render(input: input.block(frames: frames), output: output.block(frames: frames))
            let start = samplesKept.load(ordering: .relaxed)
            let n = min(frames, keptCapacity - start)
            (kept + start).update(from: output[0], count: n)
            samplesKept.store(start + n, ordering: .releasing)
            periodsRendered.add(1, ordering: .relaxed)
            var pause = timespec(tv_sec: 0, tv_nsec: frames * 1_000_000_000 / format.sampleRate)
            nanosleep(&pause, nil)
            switch script.steps[period] {
            case .xrun?:
                let total = xruns.add(1, ordering: .relaxed).newValue
                events.push(.xrunRecovered(.playback, total: total))
            case let .stall(ms)?:
                events.push(.stalled(.playback, milliseconds: ms))
            case .stallEnded?:
                events.push(.stallEnded(.playback))
            case .formatChange?:
                formatChanged.store(true, ordering: .releasing)
                events.push(.formatChanged(format))
            case let .end(reason)?:
                loopEnd = reason
                events.push(.stopped(reason))
                running.store(false, ordering: .releasing)
                return
            case nil:
                break
            }
            period += 1
        }
        running.store(false, ordering: .releasing)
    }
}

/// A device watcher the test switches: the watched route comes back when it says so.
final class ScriptedWatcher: DeviceWatching {
    var watchedRoute: DeviceRoute? {
        didSet { reported = false }
    }
    /// Whether the watched route opens now.
    var routeOpens = false
    private var reported = false

    func poll() -> [DeviceChange] {
        guard watchedRoute != nil, routeOpens, !reported else { return [] }
        reported = true
        return [.routeAvailable]
    }
}
