import Engine

/// What a session needs of a driver, whatever it drives: ALSA PCMs, a sound
/// server's client, files offline, or a script in a test. `SessionRunner`
/// knows drivers only through this protocol.
///
/// Life cycle, all on the control thread: a driver is opened on its route
/// when it is made (its initializer throws the user's one-line error) and
/// reports what it was granted (`format`, `latencyFrames`, `summary`);
/// `start(engine:)` runs its render thread (named `audio-render`) on the
/// engine and returns once audio flows; `stop()` ends it at once, dropping
/// what is queued; `finish(timeoutMilliseconds:)` ends it after what is
/// queued has played; after a `.suspended` stop `resumeAfterSuspend(engine:)`
/// continues; `close()` lets the devices go for good. While it runs, the
/// session polls `nextEvent()` and `stopReason`.
///
/// Faults are injected below a driver, in its call table (ALSA's `PCMCalls`),
/// so the same tests exercise the real driver.
public protocol AudioDriver: AnyObject {
    /// The devices it was opened on (the user's choice; never another).
    var route: DeviceRoute { get }
    /// What the devices granted: the rate, block and channels a graph is compiled for.
    var format: AudioFormat { get }
    /// Duplex: frames from a sample entering to it leaving, as far as this
    /// driver's buffering decides. Playback only: the longest a rendered
    /// frame waits before it plays. Offline: 0.
    var latencyFrames: Int { get }
    /// The one line printed at start: what was granted and the latency.
    var summary: String { get }
    /// One line when real-time scheduling or locked memory was refused at
    /// the last start, else nil.
    var realtimeNotice: String? { get }

    /// Starts the render thread on `engine` and returns once audio flows.
    /// Install a plan on the engine before or after; without one it renders
    /// silence. A device driver starts again after a stop; an offline driver
    /// reads its input once and refuses a second start.
    /// - Throws: a `DriverError` (or any error) when the devices refuse to start.
    func start(engine: RenderEngine) throws
    /// After a `.suspended` stop: waits up to the timeout for the devices to
    /// come back, then starts again.
    func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws
    /// Stops the render thread at once, dropping what is queued (a live mic goes quiet now).
    func stop()
    /// Ends the run after what is queued has played, never waiting longer than
    /// the timeout for a device. An offline driver renders what is left of its
    /// input instead (faster than real time, its tail bounded), however long that takes.
    /// - Returns: nil when everything played, else why not.
    @discardableResult
    func finish(timeoutMilliseconds: Int) -> DriverStopReason?
    /// Stops and lets the devices go. Afterwards the driver cannot start again.
    func close()
    /// `close()`, but returns within `milliseconds` whatever the device does:
    /// a close still waiting then (a sound server that died under a plugin
    /// PCM or a client, whose library waits seconds on it) finishes on a
    /// detached thread that the process's exit does not wait for. Afterwards
    /// the session uses the driver no more (it may be closing on that thread).
    /// - Returns: whether the close returned in time.
    func release(withinMilliseconds milliseconds: Int) -> Bool

    /// Whether `close()` has let the devices go.
    var isClosed: Bool { get }
    /// Whether the render thread is running its loop.
    var isRunning: Bool { get }
    /// Why the render loop ended, once it has (nil while running or before start).
    var stopReason: DriverStopReason? { get }
    /// The driver's own words for an error that ended its loop, when it knows
    /// more than the stop reason's code says (an offline driver's truncated
    /// input); nil otherwise.
    var stopDetail: String? { get }
    /// Xruns recovered since open.
    var xrunCount: Int { get }
    /// Whether a period has gone all the way through since the last start
    /// (captured, rendered and written; a sound server's cycle rendered):
    /// when audio is said to be back (`SessionEvent.firstPeriod`). The
    /// driver's `.noFirstPeriod` report comes only while this is false.
    /// - Thread: control
    /// - Realtime: safe (an atomic load)
    var completedPeriodSinceStart: Bool { get }
    /// Two clocks bridged by an adaptive resampler: its measured drift and
    /// the latency now. nil when one clock paces both sides (or before start).
    var clockCorrection: ClockCorrection? { get }
    /// The next report from the render thread, or nil. One consumer: the control thread.
    func nextEvent() -> DriverEvent?

    // MARK: What a session asks beyond the stream

    /// A new driver on the same route with the options this one was opened
    /// with, publishing the same own latency and providing the same MIDI
    /// input (its port, and so the scheduler's lane, carries on). The session
    /// calls it after a loss (`--reconnect`), on a driver it has let go: it
    /// reads only what the driver was opened with.
    /// - Throws: a `DriverError` when the route does not open again.
    /// - Thread: control
    /// - Realtime: unsafe (opens devices)
    func reopen() throws -> any AudioDriver
    /// Busker's own latency in frames (the chain's look-ahead), for a driver
    /// that publishes it to the programs it serves (a sound server's client
    /// on its ports). A driver with nobody to tell keeps nothing.
    var ownLatencyFrames: Int { get set }
    /// Whether `summary` counts `ownLatencyFrames` already (the start-up line
    /// adds the chain's latency otherwise).
    var publishesOwnLatency: Bool { get }
    /// The MIDI input the driver provides itself (a JACK client's `midi_in`), or nil.
    var midiInput: (any DriverMIDIInput)? { get }
    /// What watches this route's devices come and go (nil: nothing to watch, as offline).
    func makeDeviceWatcher() -> (any DeviceWatching)?
    /// What was granted, in one line, without the running state that
    /// `summary` adds (a clock correction): the start-up line of a take.
    var grantedSummary: String { get }
    /// What `-v` prints: what was asked of the devices and what they granted, one fact a line.
    var verboseLines: [String] { get }
}

extension AudioDriver {
    /// No more to say than the stop reason.
    public var stopDetail: String? { nil }

    /// Opens once only.
    public func reopen() throws -> any AudioDriver {
        throw ReopenRefused(route: route)
    }

    /// Nobody to publish Busker's own latency to.
    public var ownLatencyFrames: Int {
        get { 0 }
        set {}
    }

    public var publishesOwnLatency: Bool { false }

    /// No MIDI input of its own.
    public var midiInput: (any DriverMIDIInput)? { nil }

    /// No devices to watch.
    public func makeDeviceWatcher() -> (any DeviceWatching)? { nil }

    public var grantedSummary: String { summary }

    public var verboseLines: [String] { ["driver: \(summary)"] }

    /// One clock: nothing to correct.
    public var clockCorrection: ClockCorrection? { nil }

    /// No watch for a first period (files offline, a script): every start flows.
    public var completedPeriodSinceStart: Bool { true }

    /// Resumes after a suspend, waiting up to five seconds for the devices.
    public func resumeAfterSuspend(engine: RenderEngine) throws {
        try resumeAfterSuspend(engine: engine, timeoutMilliseconds: 5000)
    }

    /// The spec to compile render graphs for: the granted rate, one period per block.
    public var processSpec: ProcessSpec {
        ProcessSpec(sampleRate: Double(format.sampleRate), maximumBlockSize: format.periodFrames)
    }
}
