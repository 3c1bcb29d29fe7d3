import CJACK
import CRealtimeSupport
import Engine
import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Busker as one JACK client (jackd, or PipeWire through its JACK API):
/// audio ports `in_1` … `in_N` and `out_L`, `out_R` (and `midi_in` when
/// asked), rendering exactly each server cycle through a `RenderEngine`.
///
/// Life cycle (control thread): `init` opens the client (never starting a
/// server), registers the ports and sets the callbacks — every error a user
/// can cause surfaces here as a `JACKDriverError`; the first `start(engine:)`
/// activates the client, makes the connections `Options.connections` asks
/// for, and returns once a cycle has rendered; `stop()` makes the cycles
/// output silence at once (the client stays active, so its connections and
/// the user's patching stay too); `start` again renders again; `close()` (or
/// deinit) deactivates and closes the client.
///
/// ## Threads
/// JACK runs the process callback on its own real-time thread, which the
/// thread-init callback names `audio-render` (and sets flush-to-zero on):
/// that thread is the render thread, as `DuplexDriver`'s loop is on ALSA. It
/// reads the input ports' buffers, lets the MIDI reader (`cycleMIDI`) see
/// `midi_in`, renders `nframes` frames with the engine straight into `out_L`
/// and `out_R`, and allocates, locks and logs nothing. The other callbacks
/// (xrun, buffer size, sample rate, shutdown; JACK calls them on its other
/// threads) only store atomics; `nextEvent()` turns those into events on the
/// control thread. `stop()` waits for a cycle in progress to end before the
/// engine may change.
///
/// ## Format changes
/// A buffer-size or sample-rate change is reported as `.formatChanged`; the
/// session rebuilds the graph for `format` and starts again. Until then a
/// cycle longer than the graph was compiled for outputs silence (counted in
/// `silencedCycles`) instead of rendering past the plan's block; a shorter
/// one renders.
///
/// ## Latency
/// The server's capture latency (what `in_1` reports, from the ports feeding
/// it) plus Busker's own (`ownLatencyFrames`: the chain's look-ahead and
/// voice processing) plus the server's playback latency (what `out_L`
/// reports) is the round trip the summary states. Busker's own is published
/// on its ports in the latency callback: outputs carry the inputs' capture
/// latency plus it, inputs the outputs' playback latency plus it, so other
/// clients (a recorder compensating its takes) see it.
///
/// ## Loss
/// The server shutting down (`jack_on_info_shutdown`) ends the run with
/// `.deviceLost`; the client can then only be closed. The session reopens a
/// new driver with the same options when the server is back (`--reconnect`).
public final class JACKDriver: AudioDriver, @unchecked Sendable {
    /// What to open and how.
    public struct Options: Sendable {
        /// The client name asked for; JACK renames on a clash (`clientName` says the one granted).
        public var clientName = "busker"
        /// The server; nil: `$JACK_DEFAULT_SERVER`, else `default`.
        public var serverName: String?
        /// Audio inputs `in_1` … `in_N`; 0 for none (playback only).
        public var inputChannels = 1
        /// How the ports are patched at the first start.
        public var connections: Connections = .auto
        /// Whether `auto` connects `out_L`/`out_R` to the playback ports too
        /// (`busker record` leaves its monitor outputs unpatched: no mic to the speakers unasked).
        public var autoConnectsOutputs = true
        /// Register `midi_in` (read each cycle by `cycleMIDI`).
        public var midiInput = false
        /// Output ports after `out_L`/`out_R`, one per channel the engine
        /// renders after its main two (`--direct-outs`: `strip1`, `keys_L`, …).
        public var directOutputs: [String] = []
        /// Busker's own latency published on its ports (see "Latency").
        public var ownLatencyFrames = 0
        /// How long `start` waits for the first cycle before it returns
        /// anyway: the stall watch then reports `.noFirstPeriod`.
        public var startTimeoutMilliseconds = 1000
        /// No process cycle for this long while running is reported as
        /// `.stalled` (a server that died without telling: PipeWire's JACK
        /// API killed, a wedged graph); the session calls a long one a loss.
        public var stallMilliseconds = 500
        /// The libjack calls of the process callback; replace entries to watch or change a cycle.
        public var calls: JACKCalls = .live

        public init(clientName: String = "busker", inputChannels: Int = 1, connections: Connections = .auto) {
            self.clientName = clientName
            self.inputChannels = inputChannels
            self.connections = connections
        }
    }

    public let options: Options
    /// The name JACK granted the client (the one asked for, or JACK's rename on a clash).
    public let clientName: String
    /// The server the client is on.
    public let serverName: String
    /// Busker's ports without the client name: `in_1` …, `out_L`, `out_R`[, `midi_in`].
    public let portNames: [String]
    /// The reader of `midi_in` (`Options.midiInput`), plugged in when the
    /// client opened; nil without it.
    public let midiIn: JACKMIDIInput?

    // MARK: Control thread only
    private var client: OpaquePointer?
    private let process: JACKDriverProcess
    private var engine: RenderEngine?
    private var activated = false
    private var closed = false
    private var stoppedOnRequest = false
    private var reportedXruns = 0
    private var reportedGeneration = 0
    private var stopEventReported = false
    /// The stall watch (control thread): the last cycle count seen and when it moved.
    private var lastCyclesSeen = 0
    private var lastPulseNanoseconds: UInt64 = 0
    private var stalled = false

    /// Opens a client on the server (never starting one), registers the
    /// ports, sets the callbacks, plugs the reader into `midi_in` and checks
    /// the ports `--connect` names. Nothing runs until `start`.
    /// - Parameter midiInput: with `Options.midiInput`, the reader of
    ///   `midi_in`: the one of the client this one replaces (`reopen()`), so
    ///   its port carries on; nil: a new one.
    /// - Throws: `JACKDriverError`, one line naming the server and what to try.
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server, allocates)
    public init(options: Options, midiInput: JACKMIDIInput? = nil) throws(JACKDriverError) {
        self.options = options
        Self.quietLibrary()
        let server = options.serverName ?? Self.defaultServerName
        serverName = server
        var status = jack_status_t(rawValue: 0)
        let opened = options.clientName.withCString { name in
            options.serverName.withOptionalCString { busker_jack_client_open(name, JackNoStartServer, &status, $0) }
        }
        guard let client = opened else {
            if status.rawValue & JackServerFailed.rawValue != 0 { throw .serverNotRunning(server: server) }
            throw .clientRefused(server: server, status: status.rawValue)
        }
        self.client = client
        clientName = String(cString: jack_get_client_name(client))

        func register(_ name: String, type: String, flags: JackPortFlags) throws(JACKDriverError) -> OpaquePointer {
            guard let port = jack_port_register(client, name, type, UInt(flags.rawValue), 0) else {
                jack_client_close(client)
                throw .portRefused(port: name)
            }
            return port
        }
        let inputNames = (0..<max(0, options.inputChannels)).map { "in_\($0 + 1)" }
        var inputs: [OpaquePointer] = []
        for name in inputNames { inputs.append(try register(name, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsInput)) }
        var outputs: [OpaquePointer] = []
        for name in ["out_L", "out_R"] + options.directOutputs {
            outputs.append(try register(name, type: JACK_DEFAULT_AUDIO_TYPE, flags: JackPortIsOutput))
        }
        let midi = options.midiInput ? try register("midi_in", type: JACK_DEFAULT_MIDI_TYPE, flags: JackPortIsInput) : nil
        portNames = inputNames + ["out_L", "out_R"] + options.directOutputs + (options.midiInput ? ["midi_in"] : [])

        if case let .ports(patches) = options.connections {
            for patch in patches {
                guard portNames.contains(patch.own) else {
                    jack_client_close(client)
                    throw .unknownOwnPort(port: patch.own, available: portNames)
                }
                guard jack_port_by_name(client, patch.other) != nil else {
                    jack_client_close(client)
                    throw .unknownServerPort(port: patch.other, server: server)
                }
            }
        }

        process = JACKDriverProcess(inputPorts: inputs, outputPorts: outputs, midiPort: midi, calls: options.calls)
        process.bufferSize.store(Int(jack_get_buffer_size(client)), ordering: .relaxed)
        process.sampleRate.store(Int(jack_get_sample_rate(client)), ordering: .relaxed)
        process.ownLatencyFrames.store(max(0, options.ownLatencyFrames), ordering: .relaxed)
        if options.midiInput {
            // JACK takes the connection callback only before the client is activated.
            let reader = midiInput ?? JACKMIDIInput()
            guard reader.follow(client: client) else {
                jack_client_close(client)
                throw .midiInputRefused(client: clientName)
            }
            process.cycleMIDI = reader
            midiIn = reader
        } else {
            midiIn = nil
        }
        setCallbacks(client)
    }

    deinit { close() }

    /// The server `$JACK_DEFAULT_SERVER` names, else `default`, as libjack picks it.
    public static var defaultServerName: String {
        guard let name = getenv("JACK_DEFAULT_SERVER"), name.pointee != 0 else { return "default" }
        return String(cString: name)
    }

    /// The route a JACK driver reports: the server (a session never moves to another one).
    public static func routeName(server: String?) -> String { "jack:\(server ?? defaultServerName)" }

    /// libjack's own messages go nowhere: Busker says what went wrong in its one line.
    private static func quietLibrary() {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
    }

    /// Every callback gets the process object, unretained: the client is
    /// closed before it goes away.
    private func setCallbacks(_ client: OpaquePointer) {
        let arg = Unmanaged.passUnretained(process).toOpaque()
        jack_set_process_callback(client, { nframes, arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.process(frames: nframes) }
        }, arg)
        jack_set_thread_init_callback(client, { arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.threadStarted() }
        }, arg)
        jack_set_latency_callback(client, { mode, arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.publishLatency(mode) }
        }, arg)
        jack_set_xrun_callback(client, { arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.xrunOccurred() }
            return 0
        }, arg)
        jack_set_buffer_size_callback(client, { frames, arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.formatReported(bufferSize: Int(frames)) }
            return 0
        }, arg)
        jack_set_sample_rate_callback(client, { rate, arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef { $0.formatReported(sampleRate: Int(rate)) }
            return 0
        }, arg)
        jack_on_info_shutdown(client, { status, reason, arg in
            Unmanaged<JACKDriverProcess>.fromOpaque(arg!)._withUnsafeGuaranteedRef {
                $0.serverShutDown(status: status.rawValue, reason: reason)
            }
        }, arg)
    }

    // MARK: What a session reads (AudioDriver)

    /// The server, on both sides (no input side without inputs).
    public var route: DeviceRoute {
        let name = Self.routeName(server: serverName)
        return DeviceRoute(input: options.inputChannels > 0 ? name : nil, output: name)
    }

    /// The server's rate and buffer size as last told; channels as registered (always stereo out).
    public var format: AudioFormat {
        AudioFormat(sampleRate: process.sampleRate.load(ordering: .relaxed),
                    periodFrames: process.bufferSize.load(ordering: .relaxed),
                    inputChannels: max(0, options.inputChannels), outputChannels: 2)
    }

    /// The server's capture latency (at `in_1`) plus its playback latency
    /// (at `out_L`), in frames; Busker's own is the chain's, not counted here.
    /// 0 before the client is active.
    public var latencyFrames: Int { serverCaptureLatency + serverPlaybackLatency }

    /// The capture latency the server reports at `in_1` (from what feeds it); 0 without inputs.
    public var serverCaptureLatency: Int {
        guard let port = process.inputPorts.first, activated, !lost else { return 0 }
        return Int(latencyRange(of: port, JackCaptureLatency).max)
    }

    /// The playback latency the server reports at `out_L` (from what it feeds).
    public var serverPlaybackLatency: Int {
        guard let port = process.outputPorts.first, activated, !lost else { return 0 }
        return Int(latencyRange(of: port, JackPlaybackLatency).max)
    }

    private func latencyRange(of port: OpaquePointer, _ mode: jack_latency_callback_mode_t) -> jack_latency_range_t {
        var range = jack_latency_range_t()
        jack_port_get_latency_range(port, mode, &range)
        return range
    }

    /// Busker's own latency (the chain's look-ahead, voice processing),
    /// published on its ports; setting it asks the server to recompute
    /// every client's latencies.
    /// - Thread: control
    public var ownLatencyFrames: Int {
        get { process.ownLatencyFrames.load(ordering: .relaxed) }
        set {
            process.ownLatencyFrames.store(max(0, newValue), ordering: .relaxed)
            if let client, activated, !lost { jack_recompute_total_latencies(client) }
        }
    }

    /// `jack client 'busker' on server 'default': 48000 Hz, 64 frames per
    /// cycle; in_1 ← system:capture_1, out_L → system:playback_1, …; latency
    /// 64 capture + 0 Busker + 64 playback = 128 frames (2.7 ms)`.
    public var summary: String {
        let f = format
        let own = ownLatencyFrames
        let capture = serverCaptureLatency, playback = serverPlaybackLatency
        let total = capture + own + playback
        let ms = Double(total) * 1000 / Double(max(1, f.sampleRate))
        let patched = connectionSummary
        return "jack client '\(clientName)' on server '\(serverName)': \(f.sampleRate) Hz, \(f.periodFrames) frames per cycle, "
            + "\(f.inputChannels) in / \(2 + options.directOutputs.count) out; \(patched.isEmpty ? "nothing connected" : patched); "
            + "latency \(capture) capture + \(own) Busker + \(playback) playback = \(total) frames (\(String(format1: ms)) ms)"
    }

    /// Whether our port `name` (without the client name) is an output: `out_L`, `out_R` and the direct outputs.
    private func isOutput(_ name: String) -> Bool { name.hasPrefix("out_") || options.directOutputs.contains(name) }

    /// What each port is connected to, `in_1 ← system:capture_1, out_L → system:playback_1`.
    public var connectionSummary: String {
        var parts: [String] = []
        for name in portNames {
            let others = connections(of: name)
            guard !others.isEmpty else { continue }
            let arrow = isOutput(name) ? "→" : "←"
            parts.append("\(name) \(arrow) \(others.joined(separator: " + "))")
        }
        return parts.joined(separator: ", ")
    }

    /// The ports (of other clients) one of ours is connected to.
    /// - Parameter own: `in_1`, `out_L`, … (without the client name).
    /// - Thread: control
    public func connections(of own: String) -> [String] {
        guard let client, !lost, let port = jack_port_by_name(client, "\(clientName):\(own)") else { return [] }
        return Self.strings(jack_port_get_connections(port))
    }

    /// A NULL-terminated list from libjack, freed.
    static func strings(_ list: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        defer { jack_free(list) }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            i += 1
        }
        return result
    }

    /// JACK runs the process thread at the server's priority; nothing is refused here.
    public var realtimeNotice: String? { nil }

    // MARK: MIDI

    /// The reader `midi_in` is handed to each cycle (`Options.midiInput`).
    /// Set it before `start`, or while stopped.
    /// - Thread: control
    public var cycleMIDI: (any CycleMIDI)? {
        get { process.cycleMIDI }
        set {
            precondition(!process.rendering.load(ordering: .relaxed), "set cycleMIDI while stopped")
            process.readsMIDI.store(false, ordering: .sequentiallyConsistent)
            waitForCycleEnd()
            process.cycleMIDI = newValue
        }
    }

    /// The JACK client handle, for code that adds to this client (JACK MIDI
    /// in's port queries). Nil after `close()`.
    public var clientHandle: OpaquePointer? { client }

    // MARK: Running

    /// Activates the client (the first time: then connects its ports as
    /// `Options.connections` says), and renders on `engine` from the next
    /// cycle; returns once a cycle has rendered, or after
    /// `Options.startTimeoutMilliseconds` without one (then `nextEvent`
    /// reports `.noFirstPeriod`, and the session opens a new client).
    /// - Throws: `JACKDriverError` (activation or a connection refused, the server gone).
    /// - Thread: control
    /// - Realtime: unsafe
    public func start(engine: RenderEngine) throws(JACKDriverError) {
        guard !closed, let client else { throw .invalidState("start after close") }
        if lost { throw .serverGone(server: serverName) }
        if process.rendering.load(ordering: .relaxed) { throw .invalidState("already running; stop() first") }
        stop()
        self.engine = engine
        process.engine = Unmanaged.passUnretained(engine)
        process.resetForRun(compiledFrames: format.periodFrames)
        stoppedOnRequest = false
        stopEventReported = false
        stalled = false
        lastPulseNanoseconds = busker_monotonic_nanoseconds()
        lastCyclesSeen = process.cyclesSeen.load(ordering: .relaxed)
        if !activated {
            let rc = jack_activate(client)
            guard rc == 0 else { throw .activateFailed(server: serverName, code: rc) }
            activated = true
            try connect(client)
        }
        process.rendering.store(true, ordering: .sequentiallyConsistent)
        let began = lastPulseNanoseconds
        while process.cyclesRendered.load(ordering: .relaxed) == 0 {
            if lost { throw .serverGone(server: serverName) }
            if (busker_monotonic_nanoseconds() &- began) / 1_000_000 >= UInt64(max(0, options.startTimeoutMilliseconds)) { break }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// Makes the connections `Options.connections` asks for (the client is active).
    private func connect(_ client: OpaquePointer) throws(JACKDriverError) {
        func link(_ own: String, _ other: String) throws(JACKDriverError) {
            let mine = "\(clientName):\(own)"
            let (from, to) = isOutput(own) ? (mine, other) : (other, mine)
            let rc = jack_connect(client, from, to)
            guard rc == 0 || rc == EEXIST else { throw .connectFailed(from: from, to: to, code: rc) }
        }
        switch options.connections {
        case .none:
            return
        case let .ports(patches):
            for patch in patches { try link(patch.own, patch.other) }
        case .auto:
            let captures = Self.physicalPorts(client, flags: JackPortIsOutput)
            for (i, port) in captures.prefix(max(0, options.inputChannels)).enumerated() { try link("in_\(i + 1)", port) }
            let playbacks = options.autoConnectsOutputs ? Self.physicalPorts(client, flags: JackPortIsInput) : []
            if let first = playbacks.first {
                try link("out_L", first)
                try link("out_R", playbacks.count > 1 ? playbacks[1] : first)
            }
        }
    }

    /// The server's physical audio ports of one direction, in its order.
    private static func physicalPorts(_ client: OpaquePointer, flags: JackPortFlags) -> [String] {
        strings(jack_get_ports(client, nil, JACK_DEFAULT_AUDIO_TYPE, UInt(JackPortIsPhysical.rawValue | flags.rawValue)))
    }

    /// No suspend on JACK: starts again.
    public func resumeAfterSuspend(engine: RenderEngine, timeoutMilliseconds: Int) throws(JACKDriverError) {
        stop()
        try start(engine: engine)
    }

    /// Cycles output silence from now on; returns once no cycle is inside
    /// the engine (at most a second: a dead server runs none).
    /// - Thread: control
    public func stop() {
        let wasRendering = process.rendering.exchange(false, ordering: .sequentiallyConsistent)
        waitForCycleEnd()
        if wasRendering { stoppedOnRequest = true }
    }

    /// Waits until the process callback is outside a cycle.
    private func waitForCycleEnd() {
        var waited = 0
        while process.inCycle.load(ordering: .sequentiallyConsistent) && waited < 10_000 {
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            nanosleep(&pause, nil)
            waited += 1
        }
    }

    /// Nothing is queued beyond the cycle being played: stops.
    /// - Returns: `.deviceLost` when the server went away meanwhile, else nil.
    @discardableResult
    public func finish(timeoutMilliseconds: Int = 2000) -> DriverStopReason? {
        stop()
        return lost ? stopReason : nil
    }

    /// Deactivates (while the server lives) and closes the client.
    public func close() {
        guard !closed else { return }
        stop()
        closed = true
        if let client {
            if activated && !lost { jack_deactivate(client) }
            jack_client_close(client)
        }
        client = nil
        process.engine = nil
        engine = nil
    }

    // MARK: Observing

    private var lost: Bool { process.serverLost.load(ordering: .acquiring) }

    public var isClosed: Bool { closed }

    /// Whether cycles render.
    /// - Thread: any
    /// - Realtime: safe
    public var isRunning: Bool { process.rendering.load(ordering: .relaxed) && !lost }

    /// `.deviceLost` once the server shut down; `.requested` after `stop()`;
    /// nil while running or before a start.
    public var stopReason: DriverStopReason? {
        if lost { return .deviceLost(.playback, code: -ESHUTDOWN) }
        return stoppedOnRequest ? .requested : nil
    }

    /// The server's words when it shut down.
    public var stopDetail: String? {
        guard lost else { return nil }
        let reason = process.lostReasonText
        return "the JACK server '\(serverName)' shut down" + (reason.isEmpty ? "" : ": \(reason)")
    }

    /// Xruns the server reported since open.
    public var xrunCount: Int { process.xruns.load(ordering: .relaxed) }
    /// Frames rendered since the last start.
    public var framesProcessed: Int { process.framesProcessed.load(ordering: .relaxed) }
    /// Cycles rendered since the last start.
    public var cyclesRendered: Int { process.cyclesRendered.load(ordering: .relaxed) }
    /// Cycles that output silence because they were longer than the graph's block (see "Format changes").
    public var silencedCycles: Int { process.silencedCycles.load(ordering: .relaxed) }

    /// The process callback's `.started`, then what the other callbacks
    /// stored: new xruns, a new format, the loss; and,
    /// watched here, a stall: no cycle for `Options.stallMilliseconds` while
    /// running (`.stalled`, or `.noFirstPeriod` before the first; once), and cycles again (`.stallEnded`).
    /// - Thread: control (the one consumer)
    public func nextEvent() -> DriverEvent? {
        if let event = process.events.pop() { return event }
        if let event = watchForStall() { return event }
        let xruns = process.xruns.load(ordering: .relaxed)
        if xruns != reportedXruns {
            reportedXruns = xruns
            return .xrunRecovered(.playback, total: xruns)
        }
        let generation = process.formatGeneration.load(ordering: .acquiring)
        if generation != reportedGeneration {
            reportedGeneration = generation
            return .formatChanged(format)
        }
        if !stopEventReported, let reason = stopReason, reason != .requested {
            stopEventReported = true
            return .stopped(reason)
        }
        return nil
    }
}

extension JACKDriver {
    /// `.stalled` when the server has run no cycle for the stall time while
    /// Busker renders (`.noFirstPeriod` when none rendered since the start),
    /// `.stallEnded` when cycles come again; else nil.
    /// - Thread: control
    private func watchForStall() -> DriverEvent? {
        guard process.rendering.load(ordering: .relaxed), !lost else { return nil }
        let now = busker_monotonic_nanoseconds()
        let seen = process.cyclesSeen.load(ordering: .relaxed)
        if seen != lastCyclesSeen {
            lastCyclesSeen = seen
            lastPulseNanoseconds = now
            if stalled {
                stalled = false
                return .stallEnded(.playback)
            }
            return nil
        }
        let milliseconds = Int((now &- lastPulseNanoseconds) / 1_000_000)
        guard !stalled, milliseconds >= options.stallMilliseconds else { return nil }
        stalled = true
        if process.cyclesRendered.load(ordering: .relaxed) == 0 { return .noFirstPeriod(.playback, milliseconds: milliseconds) }
        return .stalled(.playback, milliseconds: milliseconds)
    }
}

extension Optional<String> {
    /// The C string of the value, or NULL.
    func withOptionalCString<R>(_ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let self else { return body(nil) }
        return self.withCString { body($0) }
    }
}

extension String {
    /// One decimal: "2.7".
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
