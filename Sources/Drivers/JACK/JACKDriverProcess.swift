import CJACK
import CRealtimeSupport
import Engine
import Session
import Synchronization

/// The JACK driver's side that JACK's threads call: the process callback
/// (the render thread), the thread-init, latency, xrun, buffer-size,
/// sample-rate and shutdown callbacks. `JACKDriver` owns it and passes it
/// (unretained) as every callback's argument; the client is closed before
/// it goes away, so no callback outlives it.
///
/// Only the process callback renders and only it pushes to `events`; every
/// other callback, whatever thread JACK calls it on, only stores atomics,
/// which the control thread turns into `DriverEvent`s
/// (`JACKDriver.nextEvent()`). The shutdown callback, which may come on any
/// thread, also copies JACK's reason into a buffer allocated up front.
///
/// Everything the process callback touches is allocated in `init`.
final class JACKDriverProcess: @unchecked Sendable {
    // MARK: Shared (atomics)
    /// Whether cycles render (start … stop); else they output silence.
    let rendering = Atomic<Bool>(false)
    /// Set while the process callback is inside a cycle: `stop()` waits for
    /// it to clear before the engine may be touched again.
    let inCycle = Atomic<Bool>(false)
    /// Process callbacks since open, rendering or not: the server's pulse.
    let cyclesSeen = Atomic<Int>(0)
    /// Cycles rendered since the last start.
    let cyclesRendered = Atomic<Int>(0)
    /// Frames rendered since the last start.
    let framesProcessed = Atomic<Int>(0)
    /// Cycles that output silence while rendering because the server's cycle
    /// was longer than the graph was compiled for (a buffer-size change,
    /// until the rebuild).
    let silencedCycles = Atomic<Int>(0)
    /// The block size the installed graph was compiled for (set at start).
    let compiledFrames = Atomic<Int>(0)
    /// Set at each start once `engine` and `cycleMIDI` are in place: from
    /// then on every cycle reads `midi_in`, rendered or not.
    let readsMIDI = Atomic<Bool>(false)
    /// Xruns JACK reported since open.
    let xruns = Atomic<Int>(0)
    /// The server's buffer size and rate, as the callbacks last told.
    let bufferSize = Atomic<Int>(0)
    let sampleRate = Atomic<Int>(0)
    /// Incremented each time either changes after open.
    let formatGeneration = Atomic<Int>(0)
    /// The server shut down (`jack_on_info_shutdown`).
    let serverLost = Atomic<Bool>(false)
    /// JACK's status bits at shutdown.
    let lostStatus = Atomic<UInt32>(0)
    /// Busker's own latency in frames, added to what its ports publish.
    let ownLatencyFrames = Atomic<Int>(0)
    /// Events only the process callback produces (`.started`).
    let events = SPSCQueue<DriverEvent>(capacity: 64)
    /// The shutdown reason, NUL-terminated; read after `serverLost` is seen.
    let lostReason: UnsafeMutablePointer<CChar>
    static let lostReasonCapacity = 256

    // MARK: Set before activation, read by the callbacks
    let inputPorts: [OpaquePointer]
    let outputPorts: [OpaquePointer]
    let midiPort: OpaquePointer?
    /// The MIDI reader (`JACKDriver.cycleMIDI`): changed only while not rendering.
    var cycleMIDI: (any JACKDriver.CycleMIDI)?
    /// The engine: changed only while not rendering and not in a cycle.
    var engine: Unmanaged<RenderEngine>?
    /// The libjack calls a cycle makes (`JACKDriver.Options.calls`).
    let calls: JACKCalls

    // MARK: Audio thread only
    private let inputCount: Int
    /// `out_L`, `out_R` and the direct outputs after them.
    private let outputCount: Int
    private let inputPortList: UnsafeMutablePointer<OpaquePointer>
    private let outputPortList: UnsafeMutablePointer<OpaquePointer>
    private let inputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private var startReported = false

    /// - Realtime: unsafe (allocates). Control thread.
    init(inputPorts: [OpaquePointer], outputPorts: [OpaquePointer], midiPort: OpaquePointer?, calls: JACKCalls) {
        self.inputPorts = inputPorts
        self.outputPorts = outputPorts
        self.midiPort = midiPort
        self.calls = calls
        inputCount = inputPorts.count
        outputCount = outputPorts.count
        inputPortList = .allocate(capacity: max(1, inputPorts.count))
        outputPortList = .allocate(capacity: max(1, outputPorts.count))
        for (i, p) in inputPorts.enumerated() { (inputPortList + i).initialize(to: p) }
        for (i, p) in outputPorts.enumerated() { (outputPortList + i).initialize(to: p) }
        // Placeholders until the first cycle points them at the ports' buffers.
        let placeholder = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        placeholder.initialize(to: 0)
        inputPointers = .allocate(capacity: max(1, inputPorts.count))
        inputPointers.initialize(repeating: placeholder, count: max(1, inputPorts.count))
        outputPointers = .allocate(capacity: max(1, outputPorts.count))
        outputPointers.initialize(repeating: placeholder, count: max(1, outputPorts.count))
        self.placeholder = placeholder
        lostReason = .allocate(capacity: Self.lostReasonCapacity)
        lostReason.initialize(repeating: 0, count: Self.lostReasonCapacity)
    }

    private let placeholder: UnsafeMutablePointer<Float>

    deinit {
        inputPortList.deallocate()
        outputPortList.deallocate()
        inputPointers.deallocate()
        outputPointers.deallocate()
        placeholder.deallocate()
        lostReason.deallocate()
    }

    /// Before a start: counters for the new run.
    /// - Thread: control (not rendering)
    func resetForRun(compiledFrames frames: Int) {
        cyclesRendered.store(0, ordering: .relaxed)
        framesProcessed.store(0, ordering: .relaxed)
        compiledFrames.store(frames, ordering: .relaxed)
        startReported = false
        readsMIDI.store(true, ordering: .releasing)
    }

    /// The server's shutdown reason as JACK gave it.
    /// - Thread: control, after `serverLost` was seen
    /// - Realtime: unsafe (makes a String)
    var lostReasonText: String { String(cString: lostReason) }

    // MARK: Audio thread

    /// One process cycle: `nframes` frames from the input ports through the
    /// engine to `out_L`/`out_R` (and the direct outputs after them). Silence instead when not rendering, when
    /// the cycle is longer than the graph was compiled for (counted).
    /// - Thread: audio (JACK's process thread, `audio-render`)
    /// - Realtime: safe (port buffers, atomics, the MIDI reader, the engine)
    @inline(__always)
    func process(frames nframes: jack_nframes_t) -> Int32 {
        inCycle.store(true, ordering: .sequentiallyConsistent)
        defer { inCycle.store(false, ordering: .sequentiallyConsistent) }
        cyclesSeen.add(1, ordering: .relaxed)
        let frames = Int(nframes)
        for c in 0..<outputCount {
            outputPointers[c] = calls.portBuffer(outputPortList[c], nframes)!.assumingMemoryBound(to: Float.self)
        }
        let output = AudioBlock(channels: UnsafePointer(outputPointers), channelCount: outputCount, frameCount: frames)
        guard rendering.load(ordering: .sequentiallyConsistent), let engine else {
            output.clear()
            keepMIDI(frames: nframes)
            return 0
        }
        if frames > compiledFrames.load(ordering: .relaxed) {
            // The graph's block is shorter than this cycle: silence until the rebuild for the new size.
            silencedCycles.add(1, ordering: .relaxed)
            output.clear()
            keepMIDI(frames: nframes)
            return 0
        }
        for c in 0..<inputCount {
            inputPointers[c] = calls.portBuffer(inputPortList[c], nframes)!.assumingMemoryBound(to: Float.self)
        }
        if let midiPort, let cycleMIDI, let buffer = calls.portBuffer(midiPort, nframes) {
            cycleMIDI.readCycle(buffer: buffer, frames: frames)
        }
        let input = inputCount > 0 ? AudioBlock(channels: UnsafePointer(inputPointers), channelCount: inputCount, frameCount: frames) : nil
        engine._withUnsafeGuaranteedRef { $0.render(input: input, output: output) }
        if !startReported {
            startReported = true
            _ = events.push(.started)
        }
        cyclesRendered.add(1, ordering: .relaxed)
        framesProcessed.add(frames, ordering: .relaxed)
        return 0
    }

    /// Reads `midi_in` in a cycle the engine does not render, once it has
    /// rendered (a rebuild for a new buffer size stops it, then silences the
    /// cycles until it is back): the events are queued for the first frame
    /// of the next rendered cycle, so a note-off, a pedal or a program change
    /// sent meanwhile is late, never lost.
    /// - Thread: audio (JACK's process thread, `audio-render`)
    /// - Realtime: safe (the MIDI reader's queue)
    @inline(__always)
    private func keepMIDI(frames nframes: jack_nframes_t) {
        guard readsMIDI.load(ordering: .acquiring), let midiPort, let cycleMIDI, let buffer = calls.portBuffer(midiPort, nframes) else { return }
        cycleMIDI.readCycle(buffer: buffer, frames: 1)
    }

    /// Names JACK's process thread `audio-render`, turns flush-to-zero on.
    /// - Thread: audio (JACK's process thread, before its first cycle)
    /// - Realtime: safe (one prctl call)
    func threadStarted() {
        _ = busker_set_current_thread_name(RealtimeThread.renderThreadName)
        busker_enable_flush_to_zero()
    }

    /// Publishes Busker's latency on its ports: in capture direction, each
    /// output carries the inputs' capture latency plus Busker's own; in
    /// playback direction, each input carries the outputs' playback latency
    /// plus Busker's own.
    /// - Thread: JACK's (the latency callback; not the process thread)
    /// - Realtime: safe (JACK's latency calls only)
    func publishLatency(_ mode: jack_latency_callback_mode_t) {
        let own = jack_nframes_t(clamping: ownLatencyFrames.load(ordering: .relaxed))
        let capture = mode == JackCaptureLatency
        let from = capture ? inputPorts : outputPorts
        var low = jack_nframes_t.max, high: jack_nframes_t = 0
        var range = jack_latency_range_t()
        for port in from {
            jack_port_get_latency_range(port, mode, &range)
            low = min(low, range.min)
            high = max(high, range.max)
        }
        if from.isEmpty { low = 0 }
        range.min = low + own
        range.max = high + own
        if capture {
            for port in outputPorts { jack_port_set_latency_range(port, mode, &range) }
        } else {
            for port in inputPorts { jack_port_set_latency_range(port, mode, &range) }
            if let midiPort { jack_port_set_latency_range(midiPort, mode, &range) }
        }
    }

    /// Counts an xrun JACK reported.
    /// - Thread: JACK's (any)
    /// - Realtime: safe (an atomic)
    func xrunOccurred() { xruns.add(1, ordering: .relaxed) }

    /// A buffer size or rate from the server: a new format when it differs.
    /// - Thread: JACK's (any)
    /// - Realtime: safe (atomics)
    func formatReported(bufferSize size: Int? = nil, sampleRate rate: Int? = nil) {
        var changed = false
        if let size, bufferSize.exchange(size, ordering: .relaxed) != size { changed = true }
        if let rate, sampleRate.exchange(rate, ordering: .relaxed) != rate { changed = true }
        if changed { formatGeneration.add(1, ordering: .releasing) }
    }

    /// The server shut down: no JACK call here (the client is dead), only
    /// the atomics and the reason copied into its buffer.
    /// - Thread: JACK's (any)
    /// - Realtime: safe (a bounded copy, atomics)
    func serverShutDown(status: UInt32, reason: UnsafePointer<CChar>?) {
        if let reason {
            var i = 0
            while i < Self.lostReasonCapacity - 1 && reason[i] != 0 {
                lostReason[i] = reason[i]
                i += 1
            }
            lostReason[i] = 0
        }
        lostStatus.store(status, ordering: .relaxed)
        rendering.store(false, ordering: .relaxed)
        serverLost.store(true, ordering: .releasing)
    }
}
