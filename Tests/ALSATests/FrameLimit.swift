import ALSA
import CALSA
import Session
#if canImport(Glibc)
import Glibc
#endif

/// Ends a `DuplexDriver`'s run after a number of rendered frames, from below
/// the driver, through its call table: once the driver has counted the frames
/// (`framesProcessed`, which a start resets), every wait, read, write and
/// avail or delay query the render loop makes fails with `-ECANCELED`. The
/// loop meets that at the first call of the next period, before anything
/// more is read or rendered, and stops with `DuplexDriver.frameLimitReason`:
/// an I/O error with a code no other test injects, so a test tells the end
/// it asked for from any other.
///
/// Open a driver with one through `DuplexDriver(options:stopAfterFrames:)`.
final class FrameLimit: @unchecked Sendable {
    /// The code every device call answers once the limit is reached.
    static let code = -ECANCELED

    let frames: Int
    /// The driver whose count is watched; set once, after it opens and before it starts.
    weak var driver: DuplexDriver?

    init(frames: Int) {
        self.frames = frames
    }

    /// Whether the run has its frames.
    /// - Thread: audio (the render loop's calls)
    /// - Realtime: safe (a weak load and an atomic load; no allocation)
    var reached: Bool { (driver?.framesProcessed ?? 0) >= frames }

    /// `calls` with the render loop's device calls (wait, avail, delay, reads
    /// and writes) failing once the limit is reached; the control thread's
    /// (open, prepare, drop, drain, state, close…) are left alone.
    func wrapping(_ calls: PCMCalls) -> PCMCalls {
        var limited = calls
        let code = Self.code
        limited.wait = { [self] pcm, timeout in reached ? code : calls.wait(pcm, timeout) }
        limited.availUpdate = { [self] pcm in reached ? snd_pcm_sframes_t(code) : calls.availUpdate(pcm) }
        limited.delay = { [self] pcm, frames in reached ? code : calls.delay(pcm, frames) }
        limited.readInterleaved = { [self] pcm, buffer, frames in
            reached ? snd_pcm_sframes_t(code) : calls.readInterleaved(pcm, buffer, frames)
        }
        limited.writeInterleaved = { [self] pcm, buffer, frames in
            reached ? snd_pcm_sframes_t(code) : calls.writeInterleaved(pcm, buffer, frames)
        }
        limited.readNoninterleaved = { [self] pcm, planes, frames in
            reached ? snd_pcm_sframes_t(code) : calls.readNoninterleaved(pcm, planes, frames)
        }
        limited.writeNoninterleaved = { [self] pcm, planes, frames in
            reached ? snd_pcm_sframes_t(code) : calls.writeNoninterleaved(pcm, planes, frames)
        }
        return limited
    }
}

extension DuplexDriver {
    /// Opens a driver whose runs each end after `frames` rendered frames (`FrameLimit`).
    convenience init(options: Options, stopAfterFrames frames: Int) throws(ALSAError) {
        let limit = FrameLimit(frames: frames)
        var limited = options
        limited.calls = limit.wrapping(options.calls)
        try self.init(options: limited)
        limit.driver = self
    }

    /// Why a run that `FrameLimit` ended stops: the first call of a period
    /// fails, a capture read (duplex) or the wait for playback room (playback only).
    var frameLimitReason: DriverStopReason {
        .ioError(granted.isPlaybackOnly ? .playback : .capture, code: FrameLimit.code)
    }
}
