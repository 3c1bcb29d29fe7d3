import CALSA
import Engine
import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The live driver: an ALSA capture PCM and a playback PCM run in lockstep by
/// one `audio-render` thread, with a `RenderEngine` in between — or, in
/// playback-only mode (`Options(playback:)`, for instruments), a playback
/// PCM alone, with no capture PCM opened at all.
///
/// Life cycle (control thread): `init` opens and negotiates both devices and
/// allocates every buffer — all errors a user can cause surface here as an
/// `ALSAError`; `start(engine:)` starts the render thread and returns once
/// audio flows (or throws); `stop()` ends it promptly; `close()` (or deinit)
/// releases the devices. While running, poll `nextEvent()` and the counters.
///
/// ## Latency
/// Both devices get the smallest buffer that holds `periodCount` periods.
/// Before each start, playback is primed with `(1 + periodsAhead)` periods of
/// silence and both streams start together (linked when the devices allow).
/// When the first capture period completes, one period has played and
/// `periodsAhead` periods of silence are still queued; the rendered period is
/// written behind them. So the round trip is `(1 + periodsAhead) × period`
/// frames: 2 periods with the default `periodsAhead = 1` — 128 frames
/// (2.7 ms at 48 kHz) for 64-frame periods, the same as JACK with `-n 2`.
/// Priming fewer (`periodsAhead = 0`) would put the playback pointer on the
/// write pointer at every period boundary: an xrun each time the render
/// thread wakes a microsecond late. More periods in the buffer than primed
/// leave headroom the loop does not use; `periodsAhead` is what buys safety.
///
/// ## Two clocks
/// Capture and playback that are not linked (two cards, a USB mic and the
/// laptop's speaker, most plugin PCMs) run on clocks that differ by tens to
/// hundreds of ppm. Then the render loop resamples the engine's output to
/// the playback clock, steered once a period by a slow control loop
/// (`FillController`) that holds the path's fill — capture available +
/// frames in the resampler + playback delay — at the primed round trip.
/// `clockCorrection` reports the measured drift and the latency; an xrun
/// re-primes the path to its set point and keeps the drift estimate.
/// Linked streams share one clock and are not resampled, nor are two PCMs
/// of one sound server (JACK, PulseAudio, PipeWire: `ioplug` PCMs), which
/// runs both on its own clock.
///
/// ## Playback only
/// Without capture, the playback device paces the loop: it is primed the
/// same way (`(1 + periodsAhead)` periods of silence, so the first rendered
/// frame is the `primedFrames`-th frame played), then each period the loop
/// waits (`snd_pcm_wait`) until a period of room is free, renders it with no
/// input and writes it. So the loop keeps the whole buffer queued, and a
/// rendered frame plays at most `bufferFrames` (`periodCount × period`)
/// later: `GrantedConfiguration.outputLatencyFrames`. `--periods` sets it;
/// `periodsAhead` only decides how much of the first buffer is silence.
///
/// ## Errors at run time
/// An xrun (`-EPIPE`) is recovered on the render thread within a period and
/// counted (`xrunCount`, `DriverEvent.xrunRecovered`). Suspend (`-ESTRPIPE`),
/// device loss (`-ENODEV`, disconnected) and failed recovery end the loop
/// with a `DriverStopReason` and a `.stopped` event: the thread never spins
/// on a dead device. `snd_pcm_wait` with a timeout notices stop requests and
/// stalls (`DriverEvent.stalled`) even when a device delivers nothing.
public final class DuplexDriver: AudioDriver, @unchecked Sendable {
    /// What to open and how.
    public struct Options: Sendable {
        /// ALSA PCM names (`default`, `hw:1,0`, `plughw:…`, any configured PCM).
        /// No capture PCM (nil): playback-only mode, nothing is opened for capture.
        public var capturePCM: String?
        public var playbackPCM: String
        public var sampleRate: Int = 48000
        /// Frames per period (JACK's `-p`).
        public var periodFrames: Int = 128
        /// Periods per buffer (JACK's `-n`).
        public var periodCount: Int = 2
        /// nil: two if the device takes two, else its smallest count.
        /// Unused without a capture PCM.
        public var captureChannels: Int?
        public var playbackChannels: Int?
        /// Formats to try, in order.
        public var formats: [PCMSampleFormat] = PCMSampleFormat.preferenceOrder
        /// Accept the device's nearest period instead of failing with `.periodRefused`.
        public var allowNearestPeriod = false
        /// Let ALSA's plug layer resample when the device lacks the rate.
        public var allowResampling = true
        /// Periods of playback queued ahead of capture (see "Latency" above).
        /// Playback only: the silence primed before the first rendered period.
        public var periodsAhead = 1
        /// Link capture and playback (`snd_pcm_link`) when the devices allow.
        /// Unused without a capture PCM.
        public var link = true
        /// When capture and playback are not linked (two clocks), resample
        /// adaptively so the round trip holds its primed latency (see "Two
        /// clocks" above). Off: the devices' drift fills or empties the path
        /// until it xruns.
        public var correctClockDrift = true
        public var configuration: ALSAConfiguration = .system
        /// SCHED_FIFO priority for the render thread; nil to not ask.
        public var realtimePriority: Int32? = 70
        /// mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) at start (`RealtimeScheduling.lockAllMemory`).
        public var lockMemory = true
        /// A wait longer than this without a period is reported as `.stalled`.
        public var stallMilliseconds = 500
        /// The libasound calls; replace entries to inject faults.
        public var calls: PCMCalls = .live

        /// One device for both directions (`--device`).
        public init(device: String = "default") {
            capturePCM = device
            playbackPCM = device
        }

        /// Separate devices (`--input`, `--output`).
        public init(capture: String, playback: String) {
            capturePCM = capture
            playbackPCM = playback
        }

        /// Playback only (`busker play`): no capture PCM is opened, the
        /// engine renders with no input, the playback device sets the pace.
        public init(playback: String) {
            capturePCM = nil
            playbackPCM = playback
        }
    }

    public let options: Options
    /// What the devices granted.
    public let granted: GrantedConfiguration

    // MARK: Control thread only
    private let configurationTree: ALSAConfigurationTree?
    /// nil in playback-only mode.
    private let capture: PCMStream?
    private let playback: PCMStream
    private let renderLoop: DuplexRenderLoop
    private var thread: RealtimeThread?
    private var closed = false
    /// Set by `start`; the render thread's scheduling result is folded in when it reports.
    public private(set) var realtime: RealtimeScheduling?
    private static let memoryLocked = Atomic<Bool>(false)

    /// Opens both PCMs (or playback alone), negotiates them, links them if
    /// possible and allocates the render loop's buffers. Nothing plays yet.
    /// - Throws: `ALSAError`, one line naming the device and what to try.
    /// - Realtime: unsafe (allocates, opens devices). Control thread.
    public init(options: Options) throws(ALSAError) {
        self.options = options
        configurationTree = try options.configuration.makeTree()
        let request = { (channels: Int?) in
            PCMStream.Request(sampleRate: options.sampleRate, periodFrames: options.periodFrames,
                              periodCount: options.periodCount, channels: channels, formats: options.formats,
                              allowNearestPeriod: options.allowNearestPeriod, allowResampling: options.allowResampling)
        }
        if let captureName = options.capturePCM {
            let stream = try PCMStream.open(name: captureName, direction: .capture,
                                            configuration: configurationTree, calls: options.calls)
            try stream.configure(request(options.captureChannels))
            capture = stream
        } else {
            capture = nil
        }
        playback = try PCMStream.open(name: options.playbackPCM, direction: .playback,
                                      configuration: configurationTree, calls: options.calls)
        try playback.configure(request(options.playbackChannels))

        var linked = false
        if let capture {
            if capture.sampleRate != playback.sampleRate {
                throw .duplexMismatch(capture: capture.name, playback: playback.name, what: "sample rate",
                                      captureValue: capture.sampleRate, playbackValue: playback.sampleRate)
            }
            if capture.periodFrames != playback.periodFrames {
                throw .duplexMismatch(capture: capture.name, playback: playback.name, what: "period size",
                                      captureValue: capture.periodFrames, playbackValue: playback.periodFrames)
            }
            // Linking fails (harmlessly) across cards and on most plugin PCMs.
            linked = options.link && options.calls.link(capture.handle, playback.handle) == 0
            _ = ALSALibrary.takeLastMessage()
        }

        let period = playback.periodFrames
        let primedPeriods = max(1, min(1 + max(0, options.periodsAhead), playback.bufferFrames / max(1, period)))
        let primed = primedPeriods * period
        func describe(_ s: PCMStream) -> GrantedConfiguration.Stream {
            GrantedConfiguration.Stream(device: s.name, format: s.format, channels: s.channels,
                                        periodFrames: s.periodFrames, periodCount: s.periodCount,
                                        bufferFrames: s.bufferFrames, interleaved: s.interleaved)
        }
        granted = GrantedConfiguration(capture: capture.map(describe), playback: describe(playback),
                                       sampleRate: playback.sampleRate, periodFrames: period,
                                       primedFrames: primed, linked: linked)
        renderLoop = DuplexRenderLoop(calls: options.calls, capture: capture, playback: playback,
                                      primedFrames: primed, linked: linked,
                                      resample: !linked && options.correctClockDrift && !Self.sameServer(capture, playback),
                                      stallMilliseconds: options.stallMilliseconds)
    }

    deinit { close() }

    /// Whether both streams are a sound server's (ALSA `ioplug` PCMs: jack,
    /// pulse, pipewire): the server runs them on its one clock, resampling
    /// its own devices, so there is no drift to follow. Their pointers also
    /// move by the server's whole cycles and a playback cycle takes whatever
    /// is queued, so the fill measured here does not track the round trip
    /// (on the virtual sound card, jack_iodelay saw it wander from 100 to
    /// 166 frames with the resampler on).
    /// - Realtime: unsafe. Control thread.
    private static func sameServer(_ capture: PCMStream?, _ playback: PCMStream) -> Bool {
        guard let capture else { return false }
        return snd_pcm_type(capture.handle) == SND_PCM_TYPE_IOPLUG && snd_pcm_type(playback.handle) == SND_PCM_TYPE_IOPLUG
    }

    // MARK: What a session reads (AudioDriver)

    /// The PCMs it was opened on: capture (nil in playback-only mode) → playback.
    public var route: DeviceRoute { DeviceRoute(input: options.capturePCM, output: options.playbackPCM) }
    /// The granted format, as graphs are compiled for it.
    public var format: AudioFormat { granted.audioFormat }
    /// The round trip (duplex) or the output latency (playback only), in frames.
    public var latencyFrames: Int { granted.roundTripFrames }
    /// The granted configuration in one line; with two clocks, the
    /// correction's state too ("…; two clocks, resampled: drift +12 ppm ·
    /// latency 128 frames (2.7 ms)").
    public var summary: String {
        guard let clock = clockCorrection else { return granted.description }
        return "\(granted.description); two clocks, resampled: \(clock.description)"
    }

    /// Two clocks: the drift the control loop measures and the latency it
    /// holds (low-passed). nil when linked or playback only.
    /// - Thread: any
    /// - Realtime: safe
    public var clockCorrection: ClockCorrection? {
        guard renderLoop.resampler != nil else { return nil }
        return ClockCorrection(setPointFrames: granted.primedFrames,
                               latencyFrames: Double(bitPattern: renderLoop.filteredFillBits.load(ordering: .relaxed)),
                               driftPPM: Double(bitPattern: renderLoop.driftPPMBits.load(ordering: .relaxed)),
                               sampleRate: granted.sampleRate)
    }

    /// Two clocks: the fill measured after the last write, in frames,
    /// before the low-pass (benchmarks read its spread). nil when linked.
    /// - Thread: any
    /// - Realtime: safe
    public var measuredFillFrames: Double? {
        guard renderLoop.resampler != nil else { return nil }
        return Double(bitPattern: renderLoop.measuredFillBits.load(ordering: .relaxed))
    }
    /// One line when real-time priority or locked memory was refused at the last start.
    public var realtimeNotice: String? { realtime?.notice }

    // MARK: Running

    /// Starts the `audio-render` thread on `engine` and returns once the
    /// streams run. Install a plan on the engine before or after; without
    /// one it plays silence.
    /// - Throws: `ALSAError.callFailed` when prepare, priming or start fails.
    /// - Realtime: unsafe (creates a thread). Control thread.
    public func start(engine: RenderEngine) throws(ALSAError) {
        guard !closed else { throw .invalidState("start after close") }
        if thread != nil {
            // A loop that ended by itself (device lost, an error) is
            // joined here; a running one must be stopped first.
            guard stopReason != nil else { throw .invalidState("already running; stop() first") }
            stop()
        }
        var lockError: Int32 = 0
        if options.lockMemory && !Self.memoryLocked.load(ordering: .relaxed) {
            lockError = RealtimeScheduling.lockAllMemory()
            if lockError == 0 { Self.memoryLocked.store(true, ordering: .relaxed) }
        }
        renderLoop.resetForRun()
        let loop = renderLoop
        let priority = options.realtimePriority
        thread = RealtimeThread(name: RealtimeThread.renderThreadName) {
            loop.run(engine: engine, priority: priority)
        }
        // The handshake: the thread publishes .running or .failedToStart.
        // Starting a device takes microseconds to (for a plugin PCM) a few
        // milliseconds; poll gently.
        var phase = DuplexRenderLoop.Phase.starting
        while phase == .starting {
            var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
            nanosleep(&pause, nil)
            phase = DuplexRenderLoop.Phase(rawValue: loop.phase.load(ordering: .acquiring)) ?? .failedToStart
        }
        realtime = RealtimeScheduling(requestedPriority: priority,
                                      schedulingError: priority == nil ? 0 : loop.schedulingError.load(ordering: .relaxed),
                                      lockRequested: options.lockMemory, lockError: lockError)
        if phase == .failedToStart {
            thread?.join()
            thread = nil
            dropStreams()
            let failure = loop.startFailure ?? ("start", .playback, -EIO)
            let device = failure.direction == .capture ? capture?.name ?? playback.name : playback.name
            throw .callFailed(device: device, direction: failure.direction, call: "\(failure.call)",
                              code: failure.code, detail: ALSALibrary.takeLastMessage())
        }
    }

    /// Asks the render thread to stop, waits for it (at most one wait
    /// timeout, ≤ 100 ms, plus the current period) and stops the streams,
    /// dropping what is queued: a live mic should go quiet at once.
    /// - Realtime: unsafe (joins a thread). Control thread.
    public func stop() {
        guard let thread else { return }
        renderLoop.stopRequested.store(true, ordering: .relaxed)
        thread.join()
        self.thread = nil
        dropStreams()
    }

    /// Ends the run after what is queued has played (`snd_pcm_drain` on
    /// playback; capture is dropped): for an ending that should not cut the
    /// last notes, as when a song ends. Never waits longer than
    /// `timeoutMilliseconds` — a plugin PCM whose server died never drains —
    /// and drops what is left then.
    /// - Returns: nil when everything played (or nothing was running), else
    ///   why not: the device lost or suspended meanwhile, an error, or
    ///   `-ETIMEDOUT` as an `ioError`.
    /// - Realtime: unsafe (joins a thread, sleeps). Control thread.
    @discardableResult
    public func finish(timeoutMilliseconds: Int = 2000) -> DriverStopReason? {
        guard let thread else { return nil }
        renderLoop.stopRequested.store(true, ordering: .relaxed)
        thread.join()
        self.thread = nil
        if let capture { _ = options.calls.drop(capture.handle) }
        // Non-blocking: drain answers -EAGAIN and leaves the PCM draining until it is done.
        var rc = options.calls.drain(playback.handle)
        var waited = 0
        while rc == -EAGAIN {
            if options.calls.state(playback.handle) != SND_PCM_STATE_DRAINING { rc = 0; break }
            if waited >= timeoutMilliseconds { rc = -ETIMEDOUT; break }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
            waited += 5
        }
        guard rc < 0 else { return nil }
        _ = options.calls.drop(playback.handle)
        switch -rc {
        case EPIPE: return nil  // an underrun at the end: everything queued has played
        case ESTRPIPE: return .suspended(.playback)
        case ENODEV, ENOTTY, ESHUTDOWN, ENXIO: return .deviceLost(.playback, code: rc)
        default:
            if options.calls.state(playback.handle) == SND_PCM_STATE_DISCONNECTED { return .deviceLost(.playback, code: rc) }
            return .ioError(.playback, code: rc)
        }
    }

    /// `snd_pcm_drop` on every open stream. Control thread, render thread joined.
    private func dropStreams() {
        if let capture { _ = options.calls.drop(capture.handle) }
        _ = options.calls.drop(playback.handle)
    }

    /// After a `.suspended` stop: waits for the devices to come back
    /// (`snd_pcm_resume`, which may answer -EAGAIN for a while), then starts
    /// again on `engine`. Devices that cannot resume are prepared afresh.
    /// - Realtime: unsafe (sleeps). Control thread.
    public func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int = 5000) throws(ALSAError) {
        guard case .suspended = stopReason else { throw .invalidState("resume without a suspend") }
        stop()
        for handle in [capture?.handle, playback.handle].compactMap({ $0 }) {
            var waited = 0
            while options.calls.resume(handle) == -EAGAIN && waited < timeoutMilliseconds {
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
                waited += 10
            }
        }
        try start(engine: engine)
    }

    /// Stops, unlinks and closes the devices. Afterwards the driver cannot start again.
    public func close() {
        guard !closed else { return }
        stop()
        closed = true
        if let capture {
            if granted.linked { _ = options.calls.unlink(capture.handle) }
            capture.close()
        }
        playback.close()
    }

    // MARK: Observing (any thread)

    /// Whether `close()` has released the devices.
    public var isClosed: Bool { closed }

    /// Whether the render thread is running its loop.
    /// - Thread: any
    /// - Realtime: safe
    public var isRunning: Bool {
        renderLoop.phase.load(ordering: .acquiring) == DuplexRenderLoop.Phase.running.rawValue
    }

    /// Why the loop ended, once it has (nil while running or before start).
    /// - Thread: any
    /// - Realtime: safe
    public var stopReason: DriverStopReason? {
        guard renderLoop.phase.load(ordering: .acquiring) == DuplexRenderLoop.Phase.finished.rawValue else { return nil }
        return renderLoop.stopReason
    }

    /// Xruns recovered since open.
    /// - Thread: any
    /// - Realtime: safe
    public var xrunCount: Int { renderLoop.xrunCount.load(ordering: .relaxed) }
    /// Frames through the loop (captured in duplex mode, rendered and
    /// written) since the last start; the priming silence is not counted.
    /// - Thread: any
    /// - Realtime: safe
    public var framesProcessed: Int { renderLoop.framesProcessed.load(ordering: .relaxed) }
    /// Stalls reported since open.
    /// - Thread: any
    /// - Realtime: safe
    public var stallCount: Int { renderLoop.stallCount.load(ordering: .relaxed) }

    /// The next event from the render thread, or nil. One consumer: the control thread.
    /// - Thread: control (the consumer end of the render loop's event queue;
    ///   the audio thread is its producer)
    /// - Realtime: safe
    public func nextEvent() -> DriverEvent? { renderLoop.events.pop() }
}
