import CALSA
import Engine
import Session
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The code and state of the `audio-render` thread of `DuplexDriver`: read a
/// period from capture, convert it to planar Float32, render it with the
/// `RenderEngine`, convert, write it to playback; recover from xruns; report
/// everything else as events and stop.
///
/// The capture side is optional. Without it (playback-only mode) the loop is
/// paced by the playback device instead: wait until a period of room is
/// free, render with no input, convert, write. Both modes share the start,
/// priming, transfer, error and xrun code, so they fail and recover alike.
///
/// Two clocks: when capture and playback are not linked, the duplex loop
/// puts an `AdaptiveResampler` between the engine and playback, steered by a
/// `FillController` that holds the path's fill (capture available + frames
/// in the resampler + playback delay) at the primed round trip. The engine
/// stays on the capture clock, whole periods in and out, exactly as when
/// linked; only the playback write varies (a frame more or less now and
/// then), and it never waits: the loop writes what the room allows and the
/// resampler keeps the rest. Resampling the capture side instead would make
/// the *read* vary, and a read of one frame more than a period waits for the
/// next whole period (avail_min), which a two-period buffer cannot ride out.
///
/// Everything the loop touches is allocated in `init`, on the control thread.
/// Between the start handshake and the end of `run`, the thread makes no
/// allocation, takes no lock of ours, logs nothing and builds no String; it
/// calls only the PCM table (`PCMCalls`), the format conversions and
/// `RenderEngine.render(input:output:)`.
final class DuplexRenderLoop: @unchecked Sendable {
    /// How `run` started, published with a release store on `phase`.
    enum Phase: Int {
        case idle, starting, running, finished, failedToStart
    }

    /// The outcome of one period's transfer on one side.
    enum Transfer {
        case done
        /// An xrun was recovered: streams restarted, begin a new cycle.
        case restart
        case stop(DriverStopReason)
    }

    /// After this many xruns in a row without one period getting through,
    /// recovery is declared failed: a plugin PCM whose server died may keep
    /// answering -EPIPE and succeed at prepare, and we must not loop forever.
    static let maximumConsecutiveXruns = 8

    // MARK: Shared (atomics)
    let stopRequested = Atomic<Bool>(false)
    let phase = Atomic<Int>(Phase.idle.rawValue)
    let xrunCount = Atomic<Int>(0)
    let framesProcessed = Atomic<Int>(0)
    let stallCount = Atomic<Int>(0)
    /// 0, or the errno of pthread_setschedparam on the render thread.
    let schedulingError = Atomic<Int32>(0)
    /// Events for the control thread; the render thread is the only producer.
    let events = SPSCQueue<DriverEvent>(capacity: 256)
    /// Two clocks only (bit patterns of Doubles): the low-passed fill (frames),
    /// the last measured fill (frames) and the drift estimate (ppm).
    let filteredFillBits = Atomic<UInt64>(0)
    let measuredFillBits = Atomic<UInt64>(0)
    let driftPPMBits = Atomic<UInt64>(0)

    // MARK: Written by the render thread, read after a `phase` acquire
    private(set) var stopReason: DriverStopReason?
    private(set) var startFailure: (call: StaticString, direction: StreamDirection, code: Int32)?

    // MARK: Audio thread only
    private let calls: PCMCalls
    /// nil in playback-only mode: nothing is read, the engine renders with no input.
    private let capture: OpaquePointer?
    private let playback: OpaquePointer
    private let captureFormat: PCMSampleFormat
    private let playbackFormat: PCMSampleFormat
    private let captureInterleaved: Bool
    private let playbackInterleaved: Bool
    private let captureChannels: Int
    private let playbackChannels: Int
    private let period: Int
    private let primedFrames: Int
    private let linked: Bool
    private let waitTimeoutMilliseconds: Int32
    private let stallMilliseconds: Int
    /// Raw device-format periods. Non-interleaved sides keep their planes
    /// back to back, `period` frames apart.
    private let captureRaw: UnsafeMutableRawPointer
    private let playbackRaw: UnsafeMutableRawPointer
    /// Plane pointers handed to snd_pcm_readn/writen, rewritten for partial transfers.
    private let capturePlanes: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let playbackPlanes: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let captureBuffer: AudioBuffer
    private let playbackBuffer: AudioBuffer
    private var consecutiveXruns = 0
    /// Whether a period has gone through since the start: a stall before the
    /// first is reported as `.noFirstPeriod` (the session may restart the streams).
    private var periodDone = false
    /// Frames the playback raw buffer and `playbackBuffer` hold: a period, or
    /// two when resampling (a write may carry more than a period).
    private let playbackCapacity: Int
    /// Two clocks: the resampler, the engine's output (before it) and the
    /// controller. nil/unused when linked or playback only.
    let resampler: AdaptiveResampler?
    private let engineOutputBuffer: AudioBuffer
    private var controller: FillController
    /// The resampler's step for the next write.
    private var step = 1.0

    /// - Parameter capture: the capture stream, or nil for playback-only
    ///   mode (the capture fields then describe an empty, unused side).
    /// - Realtime: unsafe (allocates). Control thread.
    init(calls: PCMCalls, capture: PCMStream?, playback: PCMStream, primedFrames: Int, linked: Bool,
         resample: Bool, stallMilliseconds: Int) {
        self.calls = calls
        self.capture = capture?.handle
        self.playback = playback.handle
        captureFormat = capture?.format ?? playback.format
        playbackFormat = playback.format
        captureInterleaved = capture?.interleaved ?? true
        playbackInterleaved = playback.interleaved
        let captureChannels = capture?.channels ?? 0
        self.captureChannels = captureChannels
        playbackChannels = playback.channels
        // The driver has checked that both sides agree on the period.
        period = playback.periodFrames
        self.primedFrames = primedFrames
        self.linked = linked
        let periodMilliseconds = Double(period) * 1000 / Double(max(1, playback.sampleRate))
        // Short enough to notice a stop request promptly, long enough not to
        // wake for nothing: four periods, between 10 and 100 ms.
        waitTimeoutMilliseconds = Int32(min(100, max(10, (4 * periodMilliseconds).rounded(.up))))
        self.stallMilliseconds = stallMilliseconds
        let resampling = resample && capture != nil
        playbackCapacity = resampling ? 2 * period : period
        let captureBytes = max(1, period * (capture?.bytesPerFrame ?? 0))
        captureRaw = .allocate(byteCount: captureBytes, alignment: 64)
        playbackRaw = .allocate(byteCount: max(1, playbackCapacity * playback.bytesPerFrame), alignment: 64)
        captureRaw.initializeMemory(as: UInt8.self, repeating: 0, count: captureBytes)
        playbackRaw.initializeMemory(as: UInt8.self, repeating: 0, count: max(1, playbackCapacity * playback.bytesPerFrame))
        capturePlanes = .allocate(capacity: max(1, captureChannels))
        capturePlanes.initialize(repeating: nil, count: max(1, captureChannels))
        playbackPlanes = .allocate(capacity: max(1, playback.channels))
        playbackPlanes.initialize(repeating: nil, count: max(1, playback.channels))
        captureBuffer = AudioBuffer(channelCount: captureChannels, capacity: period)
        playbackBuffer = AudioBuffer(channelCount: playback.channels, capacity: playbackCapacity)
        // Four periods of input: room for the playback side to take nothing
        // for two periods before input is dropped (an xrun comes sooner).
        resampler = resampling ? AdaptiveResampler(channelCount: playback.channels, capacity: 4 * period + 8) : nil
        engineOutputBuffer = AudioBuffer(channelCount: playback.channels, capacity: resampling ? period : 1)
        controller = FillController(setPoint: Double(primedFrames), sampleRate: Double(max(1, playback.sampleRate)),
                                    periodFrames: period)
    }

    deinit {
        captureRaw.deallocate()
        playbackRaw.deallocate()
        capturePlanes.deallocate()
        playbackPlanes.deallocate()
    }

    /// Control thread, before spawning the thread for a new run.
    func resetForRun() {
        stopRequested.store(false, ordering: .relaxed)
        framesProcessed.store(0, ordering: .relaxed)
        stopReason = nil
        startFailure = nil
        consecutiveXruns = 0
        periodDone = false
        controller = FillController(setPoint: controller.setPoint, sampleRate: Double(period) / controller.interval,
                                    periodFrames: period)
        step = 1
        resampler?.reset()
        publishClock(measuredFill: controller.setPoint)
        phase.store(Phase.starting.rawValue, ordering: .releasing)
    }

    // MARK: Audio thread

    /// The body of the `audio-render` thread: promote, start the streams,
    /// loop until stopped, publish why.
    /// - Thread: audio
    /// - Realtime: safe (syscalls: setting its own priority once, then only the PCM
    ///   calls, whose waits pace the loop)
    func run(engine: RenderEngine, priority: Int32?) {
        if let priority {
            schedulingError.store(RealtimeScheduling.promoteCurrentThread(priority: priority), ordering: .relaxed)
        }
        if let failure = startStreams() {
            startFailure = failure
            phase.store(Phase.failedToStart.rawValue, ordering: .releasing)
            return
        }
        phase.store(Phase.running.rawValue, ordering: .releasing)
        events.push(.started)
        let reason = loop(engine: engine)
        stopReason = reason
        events.push(.stopped(reason))
        phase.store(Phase.finished.rawValue, ordering: .releasing)
    }

    /// The loop of the mode the driver was opened in, until it stops.
    /// - Thread: audio
    /// - Realtime: safe (blocks only in the PCM calls that pace the loop)
    private func loop(engine: RenderEngine) -> DriverStopReason {
        capture == nil ? playbackOnlyLoop(engine: engine) : duplexLoop(engine: engine)
    }

    /// Duplex: each capture period, once read, paces one render and one write.
    /// - Thread: audio
    /// - Realtime: safe (blocks only in the PCM reads, writes and waits that pace the loop)
    private func duplexLoop(engine: RenderEngine) -> DriverStopReason {
        let input = captureBuffer.block(frames: period)
        let output = resampler == nil ? playbackBuffer.block(frames: period) : engineOutputBuffer.block(frames: period)
        let captureChannelStride = captureInterleaved ? captureFormat.bytesPerSample : period * captureFormat.bytesPerSample
        let captureFrameStride = captureInterleaved ? captureFormat.bytesPerSample * captureChannels : captureFormat.bytesPerSample
        let playbackChannelStride = playbackInterleaved ? playbackFormat.bytesPerSample : playbackCapacity * playbackFormat.bytesPerSample
        let playbackFrameStride = playbackInterleaved ? playbackFormat.bytesPerSample * playbackChannels : playbackFormat.bytesPerSample
        var frames = 0
        while true {
            if stopRequested.load(ordering: .relaxed) { return .requested }
            switch transfer(.capture) {
            case .done: break
            case .restart: continue
            case .stop(let reason): return reason
            }
            captureFormat.decode(captureRaw, channelStride: captureChannelStride, frameStride: captureFrameStride,
                                 into: input, frames: period)
            engine.render(input: input, output: output)
            if let resampler {
                switch writeResampled(output, through: resampler, channelStride: playbackChannelStride,
                                      frameStride: playbackFrameStride) {
                case .done: break
                case .restart: continue
                case .stop(let reason): return reason
                }
            } else {
                playbackFormat.encode(output, into: playbackRaw, channelStride: playbackChannelStride,
                                      frameStride: playbackFrameStride, frames: period)
                switch transfer(.playback) {
                case .done: break
                case .restart: continue
                case .stop(let reason): return reason
                }
            }
            consecutiveXruns = 0
            periodDone = true
            frames += period
            framesProcessed.store(frames, ordering: .relaxed)
        }
    }

    /// Two clocks: passes the engine's period through the resampler and
    /// writes what playback has room for (never waiting for more), then
    /// measures the path's fill and lets the controller set the next step.
    /// - Thread: audio
    /// - Realtime: safe (PCM calls only: avail, delay, the write)
    private func writeResampled(_ output: AudioBlock, through resampler: AdaptiveResampler,
                                channelStride: Int, frameStride: Int) -> Transfer {
        resampler.push(output, frames: period)
        let room = calls.availUpdate(playback)
        if room < 0 {
            switch handle(error: Int32(clamping: room), direction: .playback) {
            case .done: return .done  // EAGAIN/EINTR: write next period
            case .restart: return .restart
            case .stop(let reason): return .stop(reason)
            }
        }
        let block = playbackBuffer.block(frames: playbackCapacity)
        let count = resampler.produce(into: block, maximumFrames: min(Int(room), playbackCapacity), step: step)
        if count > 0 {
            playbackFormat.encode(block, into: playbackRaw, channelStride: channelStride, frameStride: frameStride,
                                  frames: count)
            switch transfer(.playback, frames: count) {
            case .done: break
            case .restart: return .restart
            case .stop(let reason): return .stop(reason)
            }
        }
        // The fill: frames captured and not read, held by the resampler,
        // queued on playback. A failed query skips this period's update; the
        // next transfer meets the error and handles it.
        let captured = capture.map { calls.availUpdate($0) } ?? 0
        var queued: snd_pcm_sframes_t = 0
        if captured >= 0 && calls.delay(playback, &queued) == 0 {
            let fill = Double(captured) + Double(queued) + resampler.pendingFrames
            step = controller.update(fill: fill)
            publishClock(measuredFill: fill)
        }
        return .done
    }

    /// Publishes the controller's state for the control thread.
    /// - Thread: audio (or control before the render thread starts)
    /// - Realtime: safe (three atomic stores)
    private func publishClock(measuredFill: Double) {
        measuredFillBits.store(measuredFill.bitPattern, ordering: .relaxed)
        filteredFillBits.store(controller.filteredFill.bitPattern, ordering: .relaxed)
        driftPPMBits.store((controller.driftEstimate * 1e6).bitPattern, ordering: .relaxed)
    }

    /// Playback only: the device paces the loop. Wait until a period of room
    /// is free, then render it: rendering as late as possible keeps what it
    /// plays (MIDI events, knob turns) as fresh as the buffer allows. The
    /// write that follows finds its room and does not wait (except on a
    /// plugin that said "ready" early; `transfer` copes). After an xrun the
    /// period already rendered is dropped, as duplex drops its captured one:
    /// the recovery's priming silence takes its place.
    /// - Thread: audio
    /// - Realtime: safe (blocks only in the PCM writes and waits that pace the loop)
    private func playbackOnlyLoop(engine: RenderEngine) -> DriverStopReason {
        let output = playbackBuffer.block(frames: period)
        let playbackChannelStride = playbackInterleaved ? playbackFormat.bytesPerSample : playbackCapacity * playbackFormat.bytesPerSample
        let playbackFrameStride = playbackInterleaved ? playbackFormat.bytesPerSample * playbackChannels : playbackFormat.bytesPerSample
        var frames = 0
        while true {
            if stopRequested.load(ordering: .relaxed) { return .requested }
            switch waitForPlaybackRoom() {
            case .done: break
            case .restart: continue
            case .stop(let reason): return reason
            }
            engine.render(input: nil, output: output)
            playbackFormat.encode(output, into: playbackRaw, channelStride: playbackChannelStride,
                                  frameStride: playbackFrameStride, frames: period)
            switch transfer(.playback) {
            case .done: break
            case .restart: continue
            case .stop(let reason): return reason
            }
            consecutiveXruns = 0
            periodDone = true
            frames += period
            framesProcessed.store(frames, ordering: .relaxed)
        }
    }

    /// Blocks in `snd_pcm_wait` until playback has room for a period (its
    /// avail_min is one period), one timeout at a time, so that a stop
    /// request is noticed and a device that stopped consuming is reported
    /// as stalled. This is the device wait of playback-only mode.
    /// - Thread: audio
    /// - Realtime: safe (blocks only in `snd_pcm_wait`, the device wait that paces the loop)
    private func waitForPlaybackRoom() -> Transfer {
        var waitedMilliseconds = 0
        var stalled = false
        while true {
            if stopRequested.load(ordering: .relaxed) { return .stop(.requested) }
            let w = calls.wait(playback, waitTimeoutMilliseconds)
            if w > 0 {
                if stalled { events.push(.stallEnded(.playback)) }
                return .done
            }
            if w == 0 {
                waitedMilliseconds += Int(waitTimeoutMilliseconds)
                if !stalled && waitedMilliseconds >= stallMilliseconds {
                    stalled = true
                    reportStall(.playback, milliseconds: waitedMilliseconds)
                }
                continue
            }
            switch handle(error: w, direction: .playback) {
            case .done: continue
            case .restart: return .restart
            case .stop(let reason): return .stop(reason)
            }
        }
    }

    /// Prepares both streams (or playback alone), primes playback with
    /// `primedFrames` of silence and starts them (together when linked;
    /// capture first otherwise, so playback never starts short of its prime).
    /// - Returns: nil, or the failing call.
    /// - Thread: audio
    /// - Realtime: safe (PCM calls only: prepare, the priming writes, start)
    private func startStreams() -> (call: StaticString, direction: StreamDirection, code: Int32)? {
        var rc: Int32
        if let capture {
            rc = calls.prepare(capture)
            if rc < 0 { return ("snd_pcm_prepare", .capture, rc) }
        }
        rc = calls.prepare(playback)
        if rc < 0 { return ("snd_pcm_prepare", .playback, rc) }
        rc = primePlayback()
        if rc < 0 { return ("snd_pcm_writei", .playback, rc) }
        if let capture {
            rc = calls.start(capture)
            if rc < 0 { return ("snd_pcm_start", .capture, rc) }
        }
        if !linked {
            rc = calls.start(playback)
            if rc < 0 { return ("snd_pcm_start", .playback, rc) }
        }
        return nil
    }

    /// Writes `primedFrames` of silence, a period at a time.
    /// - Returns: 0 or a negative error.
    /// - Thread: audio
    /// - Realtime: safe (PCM writes and waits only)
    private func primePlayback() -> Int32 {
        playbackRaw.initializeMemory(as: UInt8.self, repeating: 0, count: playbackCapacity * playbackFormat.bytesPerSample * playbackChannels)
        var written = 0
        var waits = 0
        while written < primedFrames {
            let chunk = min(period, primedFrames - written)
            let n = io(.playback, offset: 0, frames: chunk)
            if n > 0 {
                written += n
                continue
            }
            if n == 0 || n == -Int(EAGAIN) {
                // A freshly prepared buffer has room; only a stuck device gets here.
                waits += 1
                if waits > 50 { return -EAGAIN }
                let w = calls.wait(playback, waitTimeoutMilliseconds)
                if w < 0 { return w }
                continue
            }
            return Int32(clamping: n)
        }
        return 0
    }

    /// Moves the rest of one period between the device and the raw buffer,
    /// waiting with a timeout whenever the device has nothing ready, so that
    /// a stop request or a stalled device is always noticed.
    /// - Thread: audio
    /// - Realtime: safe (blocks only in the PCM transfer and `snd_pcm_wait`, which pace the
    ///   loop, and in `pause` against a device that says ready with nothing ready)
    private func transfer(_ direction: StreamDirection, frames: Int? = nil) -> Transfer {
        guard let pcm = pcm(direction) else { return .stop(.ioError(direction, code: -EBADFD)) }
        let period = frames ?? self.period
        var done = 0
        var waitedMilliseconds = 0
        var stalled = false
        var readyButEmpty = 0
        while done < period {
            if stopRequested.load(ordering: .relaxed) { return .stop(.requested) }
            // Unlinked streams: read capture a whole period at a time. A device whose
            // pointer moves between interrupts (a DMA position, a timer) would
            // otherwise hand over the few frames captured while the last period
            // was rendered, and the wait after that partial read lasts a whole
            // period from there: the loop wakes later every period until
            // playback runs dry. Linked streams share their pointer's clock
            // with playback, whose wait paces the same way.
            var ready = snd_pcm_sframes_t(period - done)
            if direction == .capture && !linked { ready = calls.availUpdate(pcm) }
            let n = ready < 0 ? Int(ready) : ready < period - done ? 0 : io(direction, offset: done, frames: period - done)
            if n > 0 {
                done += n
                waitedMilliseconds = 0
                readyButEmpty = 0
                if stalled {
                    stalled = false
                    events.push(.stallEnded(direction))
                }
                continue
            }
            if n == 0 || n == -Int(EAGAIN) {
                let w = calls.wait(pcm, waitTimeoutMilliseconds)
                if w == 0 {
                    waitedMilliseconds += Int(waitTimeoutMilliseconds)
                    if !stalled && waitedMilliseconds >= stallMilliseconds {
                        stalled = true
                        reportStall(direction, milliseconds: waitedMilliseconds)
                    }
                    continue
                }
                if w > 0 {
                    // Some plugins report "ready" before a whole avail_min is
                    // there; never spin on that.
                    readyButEmpty += 1
                    if readyButEmpty > 16 { pause(microseconds: 100) }
                    continue
                }
                switch handle(error: w, direction: direction) {
                case .done: continue
                case .restart: return .restart
                case .stop(let reason): return .stop(reason)
                }
            }
            switch handle(error: Int32(clamping: n), direction: direction) {
            case .done: continue
            case .restart: return .restart
            case .stop(let reason): return .stop(reason)
            }
        }
        return .done
    }

    /// Counts a stall and reports it: `.noFirstPeriod` before any period of
    /// this run went through, else `.stalled`.
    /// - Thread: audio
    /// - Realtime: safe (an atomic add and a push on the wait-free queue)
    private func reportStall(_ direction: StreamDirection, milliseconds: Int) {
        stallCount.add(1, ordering: .relaxed)
        events.push(periodDone ? .stalled(direction, milliseconds: milliseconds)
                               : .noFirstPeriod(direction, milliseconds: milliseconds))
    }

    /// What an error from a read, write or wait means. `.done` here means
    /// "retry the call".
    /// - Thread: audio
    /// - Realtime: safe (at most one PCM call: the device's state)
    private func handle(error code: Int32, direction: StreamDirection) -> Transfer {
        switch -code {
        case EINTR, EAGAIN:
            return .done
        case EPIPE:
            return recoverFromXrun(direction)
        case ESTRPIPE:
            // Resuming can take seconds (snd_pcm_resume answers -EAGAIN until
            // the hardware is back): the control thread's job, not ours.
            return .stop(.suspended(direction))
        case ENODEV, ENOTTY, ESHUTDOWN, ENXIO:
            return .stop(.deviceLost(direction, code: code))
        default:
            if let pcm = pcm(direction), calls.state(pcm) == SND_PCM_STATE_DISCONNECTED {
                return .stop(.deviceLost(direction, code: code))
            }
            return .stop(.ioError(direction, code: code))
        }
    }

    /// An xrun: stop both sides (or playback alone), prepare, re-prime,
    /// restart — the same sequence as the first start, so the latency comes
    /// back exactly as granted and the loop resumes within a period.
    /// - Thread: audio
    /// - Realtime: safe (PCM calls only: drop, recover, the priming writes, start)
    private func recoverFromXrun(_ direction: StreamDirection) -> Transfer {
        let total = xrunCount.add(1, ordering: .relaxed).newValue
        consecutiveXruns += 1
        if consecutiveXruns > Self.maximumConsecutiveXruns {
            return .stop(.recoveryFailed(direction, code: -EPIPE))
        }
        if let capture { _ = calls.drop(capture) }
        _ = calls.drop(playback)
        var rc: Int32
        if let capture {
            rc = calls.recover(capture, -EPIPE, 1)
            if rc < 0 { return .stop(recoveryFailure(.capture, code: rc)) }
        }
        rc = calls.recover(playback, -EPIPE, 1)
        if rc < 0 { return .stop(recoveryFailure(.playback, code: rc)) }
        rc = primePlayback()
        if rc < 0 { return .stop(.deviceLost(.playback, code: rc)) }
        if let capture {
            rc = calls.start(capture)
            if rc < 0 { return .stop(.deviceLost(.capture, code: rc)) }
        }
        if !linked {
            rc = calls.start(playback)
            if rc < 0 { return .stop(.deviceLost(.playback, code: rc)) }
        }
        // Two clocks: the re-primed path is at its set point again; what the
        // resampler held is dropped with the rest, and the drift estimate
        // stays (the clocks have not changed).
        if let resampler {
            resampler.reset()
            controller.restart()
            step = 1 + controller.correction
            publishClock(measuredFill: controller.setPoint)
        }
        events.push(.xrunRecovered(direction, total: total))
        return .restart
    }

    /// Why the loop ends when preparing again after an xrun fails: the
    /// device was suspended meanwhile, or (anything else: a plugin whose
    /// server died fails exactly here) it is gone.
    /// - Thread: audio
    /// - Realtime: safe
    private func recoveryFailure(_ direction: StreamDirection, code: Int32) -> DriverStopReason {
        code == -ESTRPIPE ? .suspended(direction) : .deviceLost(direction, code: code)
    }

    /// One readi/writei (or readn/writen) of `frames` frames at `offset` into the period.
    /// - Thread: audio
    /// - Realtime: safe (one PCM read or write)
    @inline(__always)
    private func io(_ direction: StreamDirection, offset: Int, frames: Int) -> Int {
        let count = snd_pcm_uframes_t(frames)
        switch direction {
        case .capture:
            guard let capture else { return -Int(EBADFD) }
            let bytes = captureFormat.bytesPerSample
            if captureInterleaved {
                return calls.readInterleaved(capture, captureRaw + offset * bytes * captureChannels, count)
            }
            for c in 0..<captureChannels { capturePlanes[c] = captureRaw + (c * period + offset) * bytes }
            return calls.readNoninterleaved(capture, capturePlanes, count)
        case .playback:
            let bytes = playbackFormat.bytesPerSample
            if playbackInterleaved {
                return calls.writeInterleaved(playback, playbackRaw + offset * bytes * playbackChannels, count)
            }
            for c in 0..<playbackChannels { playbackPlanes[c] = playbackRaw + (c * playbackCapacity + offset) * bytes }
            return calls.writeNoninterleaved(playback, playbackPlanes, count)
        }
    }

    /// The handle of one side; nil for capture in playback-only mode.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private func pcm(_ direction: StreamDirection) -> OpaquePointer? {
        direction == .capture ? capture : playback
    }

    /// Sleeps `microseconds`.
    /// - Thread: audio
    /// - Realtime: safe (a 100 µs sleep, only against a device that says ready with nothing
    ///   ready, so as not to spin)
    private func pause(microseconds: Int) {
        var request = timespec(tv_sec: 0, tv_nsec: microseconds * 1000)
        _ = nanosleep(&request, nil)
    }
}
