import ALSA
import CALSA
import Foundation
import Synchronization

/// A sound device with a clock of its own, behind `PCMCalls`: the driver
/// opens and negotiates a real ALSA `null` PCM, and the calls that move
/// audio and report pointers — prepare, start, drop, recover, wait, state,
/// avail, delay, readi, writei — follow a ring buffer whose hardware pointer
/// advances with CLOCK_MONOTONIC at `rate` frames per second, in real time.
/// So two of them at 48000 × (1 + ppm) and 48000 are two cards on two
/// crystals, as the render thread sees them: reads wait for frames to be
/// captured, writes for room, an empty playback buffer underruns and a full
/// capture buffer overruns (-EPIPE), and snd_pcm_wait sleeps until avail_min
/// (one period) is ready.
///
/// The capture side delivers a raised-cosine pulse every `pulseInterval`
/// frames; the playback side finds each pulse in what is written and notes
/// when it plays, so the true round trip is measured in real time,
/// independently of what the driver reports.
///
/// Render-thread calls take no lock and allocate nothing (the model is
/// touched by one thread at a time: the control thread before start and
/// after join, the render thread in between).
final class PacedClockDevice: @unchecked Sendable {
    let rate: Double
    let isCapture: Bool
    var handle: OpaquePointer?
    private(set) var bufferFrames = 0
    private(set) var periodFrames = 0
    private var running = false
    private var xrun = false
    private var startNanos: UInt64 = 0
    /// Frames the application has read or written since prepare.
    private var applFrames = 0
    /// Capture: frames delivered since open (the pulse train's time base).
    private var deliveredTotal = 0
    /// Playback: frames played before the current run, and pulse detection state.
    private var previousSample: Float = 0

    static let pulseInterval = 24000
    static let pulseLength = 64
    static let pulsePeak: Float = 0.8

    /// Capture: when the rising half-peak of each pulse was captured (CLOCK_MONOTONIC s).
    /// Playback: when the rising half-peak crossing of each found pulse played.
    let times: UnsafeMutablePointer<Double>
    let timeCapacity = 4096
    let timeCount = Atomic<Int>(0)

    init(rate: Double, capture: Bool) {
        self.rate = rate
        isCapture = capture
        times = .allocate(capacity: timeCapacity)
        times.initialize(repeating: 0, count: timeCapacity)
    }

    deinit { times.deallocate() }

    static func nowNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    private func hardwareFrames(_ now: UInt64) -> Int {
        running ? Int(Double(now &- startNanos) * rate / 1e9) : 0
    }

    /// Checks for an xrun now; capture: frames ready, playback: room.
    private func available(_ now: UInt64) -> Int {
        let hw = hardwareFrames(now)
        if isCapture {
            if hw - applFrames > bufferFrames { xrun = true; running = false }
            return hw - applFrames
        }
        if running && hw >= applFrames { xrun = true; running = false }
        return bufferFrames - (applFrames - hw)
    }

    func prepare() -> Int32 {
        var buffer: snd_pcm_uframes_t = 0, period: snd_pcm_uframes_t = 0
        if let handle, snd_pcm_get_params(handle, &buffer, &period) == 0 {
            bufferFrames = Int(buffer)
            periodFrames = Int(period)
        }
        running = false
        xrun = false
        applFrames = 0
        return 0
    }

    func start() -> Int32 {
        startNanos = Self.nowNanos()
        running = true
        return 0
    }

    func drop() -> Int32 {
        running = false
        return 0
    }

    var state: snd_pcm_state_t {
        if xrun { return SND_PCM_STATE_XRUN }
        _ = available(Self.nowNanos())
        if xrun { return SND_PCM_STATE_XRUN }
        return running ? SND_PCM_STATE_RUNNING : SND_PCM_STATE_PREPARED
    }

    func availUpdate() -> snd_pcm_sframes_t {
        if xrun { return -snd_pcm_sframes_t(EPIPE) }
        let a = available(Self.nowNanos())
        return xrun ? -snd_pcm_sframes_t(EPIPE) : snd_pcm_sframes_t(a)
    }

    func delay(_ out: UnsafeMutablePointer<snd_pcm_sframes_t>) -> Int32 {
        if xrun { return -EPIPE }
        let now = Self.nowNanos()
        let a = available(now)
        if xrun { return -EPIPE }
        out.pointee = snd_pcm_sframes_t(isCapture ? a : bufferFrames - a)
        return 0
    }

    /// Sleeps until avail_min (one period) is ready or the timeout: 1, 0, or -EPIPE.
    func wait(timeoutMilliseconds: Int32) -> Int32 {
        let now = Self.nowNanos()
        let a = available(now)
        if xrun { return -EPIPE }
        if a >= periodFrames || !running { return 1 }
        // Frame index of the hardware pointer at which a period is ready.
        let target = isCapture ? applFrames + periodFrames : applFrames + periodFrames - bufferFrames
        let due = startNanos &+ UInt64((Double(target) * 1e9 / rate).rounded(.up))
        let limit = now &+ UInt64(timeoutMilliseconds) * 1_000_000
        var until = timespec(tv_sec: Int(min(due, limit) / 1_000_000_000), tv_nsec: Int(min(due, limit) % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
        return due <= limit ? 1 : 0
    }

    func read(_ buffer: UnsafeMutableRawPointer, frames: Int, channels: Int) -> snd_pcm_sframes_t {
        if xrun { return -snd_pcm_sframes_t(EPIPE) }
        let a = available(Self.nowNanos())
        if xrun { return -snd_pcm_sframes_t(EPIPE) }
        let n = min(frames, a)
        if n <= 0 { return -snd_pcm_sframes_t(EAGAIN) }
        let samples = buffer.assumingMemoryBound(to: Float.self)
        for i in 0..<n {
            let index = deliveredTotal + i
            let phase = index % Self.pulseInterval
            var value: Float = 0
            if phase < Self.pulseLength {
                value = Self.pulsePeak * 0.5 * (1 - cosf(2 * .pi * Float(phase) / Float(Self.pulseLength)))
            }
            if phase == Self.pulseLength / 4 {
                // The rising half-peak of the pulse: captured at the hardware time of this frame.
                let at = Double(startNanos) / 1e9 + Double(applFrames + i) / rate
                let k = timeCount.load(ordering: .relaxed)
                if k < timeCapacity { times[k] = at; timeCount.store(k + 1, ordering: .relaxed) }
            }
            for c in 0..<channels { samples[i * channels + c] = value }
        }
        deliveredTotal += n
        applFrames += n
        return snd_pcm_sframes_t(n)
    }

    /// - Parameter halfPeak: the level of the pulse's rising half-peak as it arrives here.
    func write(_ buffer: UnsafeRawPointer, frames: Int, channels: Int, halfPeak: Float) -> snd_pcm_sframes_t {
        if xrun { return -snd_pcm_sframes_t(EPIPE) }
        let a = available(Self.nowNanos())
        if xrun { return -snd_pcm_sframes_t(EPIPE) }
        let n = min(frames, a)
        if n <= 0 { return -snd_pcm_sframes_t(EAGAIN) }
        let samples = buffer.assumingMemoryBound(to: Float.self)
        for i in 0..<n {
            let x = samples[i * channels]
            if previousSample < halfPeak && x >= halfPeak {
                let fraction = Double((halfPeak - previousSample) / (x - previousSample))
                // Frame applFrames + i plays when the hardware pointer reaches it.
                let position = Double(applFrames + i) - 1 + fraction
                if running {
                    let at = Double(startNanos) / 1e9 + position / rate
                    let k = timeCount.load(ordering: .relaxed)
                    if k < timeCapacity { times[k] = at; timeCount.store(k + 1, ordering: .relaxed) }
                }
            }
            previousSample = x
        }
        applFrames += n
        return snd_pcm_sframes_t(n)
    }

    /// The capture times recorded so far.
    func recordedTimes() -> [Double] { (0..<timeCount.load(ordering: .relaxed)).map { times[$0] } }
}

/// Two paced devices behind one `PCMCalls` table, over ALSA `null` PCMs
/// (FLOAT_LE, interleaved: the format the model reads and writes).
final class PacedClockPair: @unchecked Sendable {
    let capture: PacedClockDevice
    let playback: PacedClockDevice
    let channels: Int
    /// The level of the pulse's half-peak after the graph (half gain).
    let halfPeak: Float

    init(captureRate: Double, playbackRate: Double, channels: Int = 2, graphGain: Float = 0.5) {
        capture = PacedClockDevice(rate: captureRate, capture: true)
        playback = PacedClockDevice(rate: playbackRate, capture: false)
        self.channels = channels
        halfPeak = PacedClockDevice.pulsePeak * 0.5 * graphGain
    }

    private func device(_ pcm: OpaquePointer) -> PacedClockDevice? {
        pcm == capture.handle ? capture : pcm == playback.handle ? playback : nil
    }

    /// `live` with the moving parts replaced by the two clocks.
    var calls: PCMCalls {
        var calls = PCMCalls.live
        let open = calls.open
        calls.open = { [self] handle, name, stream, mode, configuration in
            let rc = open(handle, name, stream, mode, configuration)
            if rc == 0 {
                if stream == SND_PCM_STREAM_CAPTURE { capture.handle = handle.pointee } else { playback.handle = handle.pointee }
            }
            return rc
        }
        // Two cards: one start cannot start both.
        calls.link = { _, _ in -ENOSYS }
        calls.prepare = { [self] pcm in device(pcm)?.prepare() ?? snd_pcm_prepare(pcm) }
        calls.start = { [self] pcm in device(pcm)?.start() ?? snd_pcm_start(pcm) }
        calls.drop = { [self] pcm in device(pcm)?.drop() ?? snd_pcm_drop(pcm) }
        calls.recover = { [self] pcm, _, _ in device(pcm)?.prepare() ?? -EINVAL }
        calls.drain = { [self] pcm in device(pcm)?.drop() ?? snd_pcm_drain(pcm) }
        calls.state = { [self] pcm in device(pcm)?.state ?? snd_pcm_state(pcm) }
        calls.wait = { [self] pcm, timeout in device(pcm)?.wait(timeoutMilliseconds: timeout) ?? snd_pcm_wait(pcm, timeout) }
        calls.availUpdate = { [self] pcm in device(pcm)?.availUpdate() ?? snd_pcm_avail_update(pcm) }
        calls.delay = { [self] pcm, out in device(pcm)?.delay(out) ?? snd_pcm_delay(pcm, out) }
        calls.readInterleaved = { [self] pcm, buffer, frames in
            capture.read(buffer, frames: Int(frames), channels: channels)
        }
        calls.writeInterleaved = { [self] pcm, buffer, frames in
            playback.write(buffer, frames: Int(frames), channels: channels, halfPeak: halfPeak)
        }
        return calls
    }

    /// Round trips of the pulses found on both sides, in frames at the
    /// playback rate: (capture time, round trip), in order.
    func roundTrips() -> [(at: Double, frames: Double)] {
        let sent = capture.recordedTimes(), heard = playback.recordedTimes()
        var result: [(Double, Double)] = []
        var j = 0
        for t in sent {
            while j < heard.count && heard[j] < t { j += 1 }
            guard j < heard.count else { break }
            let trip = heard[j] - t
            // A pulse lost to an xrun would pair with the next one: skip pairs over 100 ms.
            if trip < 0.1 { result.append((t, trip * playback.rate)) }
        }
        return result
    }
}
