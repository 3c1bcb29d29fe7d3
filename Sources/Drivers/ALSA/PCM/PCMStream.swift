import CALSA
import Session
#if canImport(Glibc)
import Glibc
#endif

/// One opened ALSA PCM (the capture or the playback side of the duplex
/// driver): opening by name, negotiating hardware and software parameters,
/// and turning every failure on the way into an `ALSAError` that names the
/// device. It owns the `snd_pcm_t` and closes it.
///
/// - Realtime: unsafe; control thread only. The render loop uses the handle
///   and the negotiated values it exposes, never this object's methods.
final class PCMStream: @unchecked Sendable {
    /// What the driver asks of each side.
    struct Request {
        var sampleRate: Int
        var periodFrames: Int
        var periodCount: Int
        /// nil: two if the device takes two, else its smallest count.
        var channels: Int?
        var formats: [PCMSampleFormat]
        var allowNearestPeriod: Bool
        var allowResampling: Bool
    }

    let name: String
    let direction: StreamDirection
    let handle: OpaquePointer
    private let calls: PCMCalls
    private var closed = false

    // Negotiated by `configure`.
    private(set) var format: PCMSampleFormat = .float32
    private(set) var interleaved = true
    private(set) var channels = 0
    private(set) var sampleRate = 0
    private(set) var periodFrames = 0
    private(set) var bufferFrames = 0

    var periodCount: Int { periodFrames > 0 ? bufferFrames / periodFrames : 0 }
    var bytesPerFrame: Int { format.bytesPerSample * channels }

    private init(name: String, direction: StreamDirection, handle: OpaquePointer, calls: PCMCalls) {
        self.name = name
        self.direction = direction
        self.handle = handle
        self.calls = calls
    }

    deinit { close() }

    func close() {
        guard !closed else { return }
        closed = true
        _ = calls.close(handle)
    }

    // MARK: Opening

    /// Opens `name` for `direction`, non-blocking (the render loop waits with
    /// `snd_pcm_wait` and a timeout, so it can never block forever on a dead device).
    static func open(name: String, direction: StreamDirection, configuration: ALSAConfigurationTree?,
                     calls: PCMCalls) throws(ALSAError) -> PCMStream {
        ALSALibrary.captureMessages()
        _ = ALSALibrary.takeLastMessage()
        var handle: OpaquePointer?
        let rc = name.withCString { calls.open(&handle, $0, direction.stream, SND_PCM_NONBLOCK, configuration?.root) }
        guard rc >= 0, let handle else {
            let message = ALSALibrary.takeLastMessage()
            throw classifyOpenFailure(code: rc < 0 ? rc : -EINVAL, message: message, name: name,
                                      direction: direction, configuration: configuration, calls: calls)
        }
        return PCMStream(name: name, direction: direction, handle: handle, calls: calls)
    }

    private static func classifyOpenFailure(code: Int32, message: String, name: String, direction: StreamDirection,
                                            configuration: ALSAConfigurationTree?, calls: PCMCalls) -> ALSAError {
        switch -code {
        case EBUSY:
            return .deviceBusy(device: name, direction: direction,
                               holders: calls.deviceHolders(name, direction))
        case EACCES, EPERM:
            return .permissionDenied(device: name, direction: direction)
        default:
            break
        }
        // "cannot find card '0'" is how the stock `default` fails without hardware.
        let needsCard = message.localizedCaseInsensitiveContains("card")
            || name.hasPrefix("hw:") || name.hasPrefix("plughw:")
        if needsCard && DeviceList.cardIndices().isEmpty {
            return .noSoundCard(device: name)
        }
        if message.hasPrefix("Unknown PCM") {
            return .unknownPCM(device: name, direction: direction, detail: "")
        }
        // A name that opens the other way has no side for this direction
        // (a playback-only card, an asym PCM without capture).
        var other: OpaquePointer?
        let otherDirection: StreamDirection = direction == .capture ? .playback : .capture
        let otherRC = name.withCString {
            calls.open(&other, $0, otherDirection.stream, SND_PCM_NONBLOCK, configuration?.root)
        }
        _ = ALSALibrary.takeLastMessage()
        if otherRC >= 0, let other {
            _ = calls.close(other)
            return .noChannels(device: name, direction: direction)
        }
        if -code == ENOENT || -code == ENODEV || -code == ENXIO {
            return .unknownPCM(device: name, direction: direction, detail: message)
        }
        return .callFailed(device: name, direction: direction, call: "snd_pcm_open", code: code, detail: message)
    }

    // MARK: Negotiation

    /// Negotiates access, format, channels, rate, period and buffer, then
    /// installs them; afterwards the properties above hold what was granted.
    func configure(_ request: Request) throws(ALSAError) {
        var hwOptional: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&hwOptional) >= 0, let hw = hwOptional else {
            throw fail("snd_pcm_hw_params_malloc", -ENOMEM)
        }
        defer { snd_pcm_hw_params_free(hw) }
        var rc = snd_pcm_hw_params_any(handle, hw)
        if rc < 0 { throw fail("snd_pcm_hw_params_any", rc) }

        // Access: read/write (not mmap), interleaved if possible. Copying a
        // period costs far less than the bookkeeping of mmap on plugin PCMs.
        if snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED) == 0 {
            interleaved = true
        } else if snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_NONINTERLEAVED) == 0 {
            interleaved = false
        } else {
            throw .noSupportedAccess(device: name, direction: direction)
        }

        guard let chosen = request.formats.first(where: { snd_pcm_hw_params_test_format(handle, hw, $0.alsaFormat) == 0 }) else {
            throw .noSupportedFormat(device: name, direction: direction, tried: request.formats)
        }
        rc = snd_pcm_hw_params_set_format(handle, hw, chosen.alsaFormat)
        if rc < 0 { throw fail("snd_pcm_hw_params_set_format", rc) }
        format = chosen

        var minChannels: UInt32 = 0
        var maxChannels: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hw, &minChannels)
        snd_pcm_hw_params_get_channels_max(hw, &maxChannels)
        if maxChannels == 0 { throw .noChannels(device: name, direction: direction) }
        let supportedChannels = Int(minChannels)...Int(max(minChannels, maxChannels))
        let wantedChannels = request.channels ?? (supportedChannels.contains(2) ? 2 : supportedChannels.lowerBound)
        if wantedChannels < 1 || snd_pcm_hw_params_set_channels(handle, hw, UInt32(clamping: wantedChannels)) < 0 {
            throw .channelsRefused(device: name, direction: direction, requested: wantedChannels, supported: supportedChannels)
        }

        snd_pcm_hw_params_set_rate_resample(handle, hw, request.allowResampling ? 1 : 0)
        var rate = UInt32(clamping: request.sampleRate)
        var dir: Int32 = 0
        rc = snd_pcm_hw_params_set_rate_near(handle, hw, &rate, &dir)
        if rc < 0 || rate == 0 {
            var low: UInt32 = 0, high: UInt32 = 0
            snd_pcm_hw_params_get_rate_min(hw, &low, &dir)
            snd_pcm_hw_params_get_rate_max(hw, &high, &dir)
            throw .rateRefused(device: name, direction: direction, requested: request.sampleRate, detail: "it takes \(low)…\(high) Hz")
        }

        // The period is set exactly (unless the caller allows the nearest):
        // asking for 64 frames and silently running at 1024 is the kind of
        // surprise a latency-minded user should hear about.
        var low: snd_pcm_uframes_t = 0, high: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_period_size_min(hw, &low, &dir)
        snd_pcm_hw_params_get_period_size_max(hw, &high, &dir)
        let periodRange = Int(clamping: low)...Int(clamping: max(low, high))
        let period = snd_pcm_uframes_t(clamping: request.periodFrames)
        if request.periodFrames < 1 {
            throw .periodRefused(device: name, direction: direction, requested: request.periodFrames, supported: periodRange)
        }
        if snd_pcm_hw_params_set_period_size(handle, hw, period, 0) < 0 {
            var near = period
            guard request.allowNearestPeriod, snd_pcm_hw_params_set_period_size_near(handle, hw, &near, &dir) == 0 else {
                throw .periodRefused(device: name, direction: direction, requested: request.periodFrames, supported: periodRange)
            }
        }

        // The smallest buffer that holds the requested periods: a larger
        // one would only add latency, since the round trip is set by the
        // priming (see DuplexDriver), not by the buffer.
        var grantedPeriod: snd_pcm_uframes_t = 0
        snd_pcm_hw_params_get_period_size(hw, &grantedPeriod, &dir)
        var minimumBuffer = grantedPeriod * snd_pcm_uframes_t(clamping: max(1, request.periodCount))
        var buffer: snd_pcm_uframes_t = 0
        if request.periodCount < 1
            || snd_pcm_hw_params_set_buffer_size_min(handle, hw, &minimumBuffer) < 0
            || snd_pcm_hw_params_set_buffer_size_first(handle, hw, &buffer) < 0 {
            var lowCount: UInt32 = 0, highCount: UInt32 = 0
            snd_pcm_hw_params_get_periods_min(hw, &lowCount, &dir)
            snd_pcm_hw_params_get_periods_max(hw, &highCount, &dir)
            throw .periodCountRefused(device: name, direction: direction, requested: request.periodCount,
                                      supported: Int(lowCount)...Int(max(lowCount, highCount)))
        }

        _ = ALSALibrary.takeLastMessage()
        rc = calls.commitHardwareParameters(handle, hw)
        if rc < 0 { throw fail("snd_pcm_hw_params", rc) }

        var grantedRate: UInt32 = 0
        var grantedChannels: UInt32 = 0
        snd_pcm_hw_params_get_rate(hw, &grantedRate, &dir)
        snd_pcm_hw_params_get_channels(hw, &grantedChannels)
        snd_pcm_hw_params_get_period_size(hw, &grantedPeriod, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &buffer)
        sampleRate = Int(grantedRate)
        channels = Int(grantedChannels)
        periodFrames = Int(clamping: grantedPeriod)
        bufferFrames = Int(clamping: buffer)

        try configureSoftware()
    }

    /// Wakes the loop once per period; no automatic start (the driver starts
    /// both sides together after priming playback); an xrun stops the stream
    /// (the default) so that recovery can restore the exact round trip.
    private func configureSoftware() throws(ALSAError) {
        var swOptional: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&swOptional) >= 0, let sw = swOptional else {
            throw fail("snd_pcm_sw_params_malloc", -ENOMEM)
        }
        defer { snd_pcm_sw_params_free(sw) }
        var rc = snd_pcm_sw_params_current(handle, sw)
        if rc < 0 { throw fail("snd_pcm_sw_params_current", rc) }
        var boundary: snd_pcm_uframes_t = 0
        snd_pcm_sw_params_get_boundary(sw, &boundary)
        snd_pcm_sw_params_set_avail_min(handle, sw, snd_pcm_uframes_t(periodFrames))
        snd_pcm_sw_params_set_start_threshold(handle, sw, boundary)
        snd_pcm_sw_params_set_stop_threshold(handle, sw, snd_pcm_uframes_t(bufferFrames))
        rc = calls.commitSoftwareParameters(handle, sw)
        if rc < 0 { throw fail("snd_pcm_sw_params", rc) }
    }

    private func fail(_ call: String, _ code: Int32) -> ALSAError {
        .callFailed(device: name, direction: direction, call: call, code: code, detail: ALSALibrary.takeLastMessage())
    }
}
