import CALSA
import Session

/// The libasound calls the driver makes on a PCM, as a table of swappable
/// functions, after swift-system's `Mocking.swift`: the default `live` table
/// calls libasound; a test copies it and replaces any entry to fail with any
/// error at any point — open, hardware/software parameter commit, prepare,
/// start, read, write, recover, resume, drop, drain, close — to pace a
/// simulated device by a clock of its own (the two-clock tests), or to watch the
/// render thread make the call.
///
/// The table covers every call that acts on a device, and the one look
/// outside libasound that opening makes: who holds a busy device (read from
/// `/proc`; a test answers from a tree of its own). The `snd_pcm_hw_params_set_*`
/// refinements only narrow a local parameter object and are called directly;
/// their outcome reaches the device only through `commitHardwareParameters`,
/// which is in the table.
///
/// The driver copies the table into its render loop once, before the loop
/// starts: calling an entry is an indirect call, with no allocation, lock or
/// reference counting on the audio thread. Entries used there must keep that
/// promise too (a fault injector should count with atomics, not append to arrays).
public struct PCMCalls: @unchecked Sendable {
    public typealias PCM = OpaquePointer
    /// `snd_pcm_open` / `snd_pcm_open_lconf`: (out handle, name, stream, mode, configuration tree or nil).
    public var open: @Sendable (_ handle: UnsafeMutablePointer<OpaquePointer?>, _ name: UnsafePointer<CChar>,
                                _ stream: snd_pcm_stream_t, _ mode: Int32, _ configuration: OpaquePointer?) -> Int32
    public var close: @Sendable (PCM) -> Int32
    /// `snd_pcm_hw_params`: installs the negotiated hardware parameters.
    public var commitHardwareParameters: @Sendable (PCM, OpaquePointer) -> Int32
    /// `snd_pcm_sw_params`.
    public var commitSoftwareParameters: @Sendable (PCM, OpaquePointer) -> Int32
    public var link: @Sendable (PCM, PCM) -> Int32
    public var unlink: @Sendable (PCM) -> Int32
    /// `snd_pcm_prepare`.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var prepare: @Sendable (PCM) -> Int32
    /// `snd_pcm_start`.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var start: @Sendable (PCM) -> Int32
    /// `snd_pcm_drop`: stop now, discarding pending frames.
    /// - Thread: audio, control
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var drop: @Sendable (PCM) -> Int32
    /// `snd_pcm_drain`: stop after pending frames have played.
    public var drain: @Sendable (PCM) -> Int32
    /// `snd_pcm_resume`, after a suspend (`-ESTRPIPE`).
    public var resume: @Sendable (PCM) -> Int32
    /// `snd_pcm_recover(pcm, error, silent)`: the driver uses it for `-EPIPE` only.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var recover: @Sendable (PCM, Int32, Int32) -> Int32
    /// `snd_pcm_wait(pcm, timeoutMilliseconds)`: 1 ready, 0 timeout, negative error.
    /// - Thread: audio
    /// - Realtime: safe (blocks until the device is ready or the timeout: the wait that
    ///   paces the render loop; an injected entry must not block longer)
    public var wait: @Sendable (PCM, Int32) -> Int32
    /// `snd_pcm_state`.
    /// - Thread: audio, control
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var state: @Sendable (PCM) -> snd_pcm_state_t
    /// `snd_pcm_avail_update`: frames ready to read (capture) or room to write
    /// (playback), or a negative error (-EPIPE after an xrun).
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var availUpdate: @Sendable (PCM) -> snd_pcm_sframes_t
    /// `snd_pcm_delay`: (handle, out frames) → 0 or a negative error. Playback:
    /// frames written and not yet played.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var delay: @Sendable (PCM, UnsafeMutablePointer<snd_pcm_sframes_t>) -> Int32
    /// `snd_pcm_readi`: (handle, buffer, frames) → frames read, or a negative error.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var readInterleaved: @Sendable (PCM, UnsafeMutableRawPointer, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    /// `snd_pcm_writei`: (handle, buffer, frames) → frames written, or a negative error.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var writeInterleaved: @Sendable (PCM, UnsafeRawPointer, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    /// `snd_pcm_readn`: `snd_pcm_readi` with one buffer per channel.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var readNoninterleaved: @Sendable (PCM, UnsafeMutablePointer<UnsafeMutableRawPointer?>, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    /// `snd_pcm_writen`: `snd_pcm_writei` with one buffer per channel.
    /// - Thread: audio
    /// - Realtime: safe (a device call; an injected entry must keep the promise)
    public var writeNoninterleaved: @Sendable (PCM, UnsafeMutablePointer<UnsafeMutableRawPointer?>, snd_pcm_uframes_t) -> snd_pcm_sframes_t
    /// The processes holding the device an open found busy (`-EBUSY`):
    /// (ALSA name, direction) → holders (`DeviceHolder.holders(of:direction:)`).
    /// - Thread: control
    /// - Realtime: unsafe (reads `/proc`)
    public var deviceHolders: @Sendable (_ device: String, _ direction: StreamDirection) -> [DeviceHolder]

    public init(
        open: @escaping @Sendable (UnsafeMutablePointer<OpaquePointer?>, UnsafePointer<CChar>, snd_pcm_stream_t, Int32, OpaquePointer?) -> Int32,
        close: @escaping @Sendable (PCM) -> Int32,
        commitHardwareParameters: @escaping @Sendable (PCM, OpaquePointer) -> Int32,
        commitSoftwareParameters: @escaping @Sendable (PCM, OpaquePointer) -> Int32,
        link: @escaping @Sendable (PCM, PCM) -> Int32,
        unlink: @escaping @Sendable (PCM) -> Int32,
        prepare: @escaping @Sendable (PCM) -> Int32,
        start: @escaping @Sendable (PCM) -> Int32,
        drop: @escaping @Sendable (PCM) -> Int32,
        drain: @escaping @Sendable (PCM) -> Int32,
        resume: @escaping @Sendable (PCM) -> Int32,
        recover: @escaping @Sendable (PCM, Int32, Int32) -> Int32,
        wait: @escaping @Sendable (PCM, Int32) -> Int32,
        state: @escaping @Sendable (PCM) -> snd_pcm_state_t,
        availUpdate: @escaping @Sendable (PCM) -> snd_pcm_sframes_t,
        delay: @escaping @Sendable (PCM, UnsafeMutablePointer<snd_pcm_sframes_t>) -> Int32,
        readInterleaved: @escaping @Sendable (PCM, UnsafeMutableRawPointer, snd_pcm_uframes_t) -> snd_pcm_sframes_t,
        writeInterleaved: @escaping @Sendable (PCM, UnsafeRawPointer, snd_pcm_uframes_t) -> snd_pcm_sframes_t,
        readNoninterleaved: @escaping @Sendable (PCM, UnsafeMutablePointer<UnsafeMutableRawPointer?>, snd_pcm_uframes_t) -> snd_pcm_sframes_t,
        writeNoninterleaved: @escaping @Sendable (PCM, UnsafeMutablePointer<UnsafeMutableRawPointer?>, snd_pcm_uframes_t) -> snd_pcm_sframes_t,
        deviceHolders: @escaping @Sendable (String, StreamDirection) -> [DeviceHolder] = { DeviceHolder.holders(of: $0, direction: $1) }
    ) {
        self.open = open
        self.close = close
        self.commitHardwareParameters = commitHardwareParameters
        self.commitSoftwareParameters = commitSoftwareParameters
        self.link = link
        self.unlink = unlink
        self.prepare = prepare
        self.start = start
        self.drop = drop
        self.drain = drain
        self.resume = resume
        self.recover = recover
        self.wait = wait
        self.state = state
        self.availUpdate = availUpdate
        self.delay = delay
        self.readInterleaved = readInterleaved
        self.writeInterleaved = writeInterleaved
        self.readNoninterleaved = readNoninterleaved
        self.writeNoninterleaved = writeNoninterleaved
        self.deviceHolders = deviceHolders
    }

    /// The real libasound functions.
    public static let live = PCMCalls(
        open: { handle, name, stream, mode, configuration in
            if let configuration {
                return snd_pcm_open_lconf(handle, name, stream, mode, configuration)
            }
            return snd_pcm_open(handle, name, stream, mode)
        },
        close: { snd_pcm_close($0) },
        commitHardwareParameters: { snd_pcm_hw_params($0, $1) },
        commitSoftwareParameters: { snd_pcm_sw_params($0, $1) },
        link: { snd_pcm_link($0, $1) },
        unlink: { snd_pcm_unlink($0) },
        prepare: { snd_pcm_prepare($0) },
        start: { snd_pcm_start($0) },
        drop: { snd_pcm_drop($0) },
        drain: { snd_pcm_drain($0) },
        resume: { snd_pcm_resume($0) },
        recover: { snd_pcm_recover($0, $1, $2) },
        wait: { snd_pcm_wait($0, $1) },
        state: { snd_pcm_state($0) },
        availUpdate: { snd_pcm_avail_update($0) },
        delay: { snd_pcm_delay($0, $1) },
        readInterleaved: { snd_pcm_readi($0, $1, $2) },
        writeInterleaved: { snd_pcm_writei($0, $1, $2) },
        readNoninterleaved: { snd_pcm_readn($0, $1, $2) },
        writeNoninterleaved: { snd_pcm_writen($0, $1, $2) }
    )
}
