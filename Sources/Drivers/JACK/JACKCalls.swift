import CJACK

/// The libjack calls `JACKDriver`'s process callback makes each cycle, as a
/// table of swappable functions (as `PCMCalls` is for ALSA): the default
/// `live` table calls libjack; a test copies it and replaces an entry to
/// watch the process thread make the call (switch its allocation counter on
/// at the first cycle) or to change what a cycle sees.
///
/// The driver copies the table once, when it opens: calling an entry is an
/// indirect call, with no allocation, lock or reference counting on the
/// process thread. Entries must keep that promise too.
public struct JACKCalls: @unchecked Sendable {
    /// `jack_port_get_buffer`: (port, frames of this cycle) → the port's buffer for the cycle.
    /// - Thread: audio (JACK's process thread, `audio-render`)
    /// - Realtime: safe (a libjack call; an injected entry must keep the promise)
    public var portBuffer: @Sendable (_ port: OpaquePointer, _ frames: jack_nframes_t) -> UnsafeMutableRawPointer?

    public init(portBuffer: @escaping @Sendable (OpaquePointer, jack_nframes_t) -> UnsafeMutableRawPointer?) {
        self.portBuffer = portBuffer
    }

    /// The real libjack function.
    public static let live = JACKCalls(portBuffer: { jack_port_get_buffer($0, $1) })
}
