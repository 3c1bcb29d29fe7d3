import CALSA
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Process-wide setup of libasound and its messages. This is the only file
/// that calls the message helpers of `CALSA/shim.h`, and its two functions
/// that do are `@inline(never)`: the helpers' buffer is a `static` in the
/// header, so every object file that emits them has its own copy, and a
/// release build (whole-module, but one object file per source file) that
/// inlined `takeLastMessage` elsewhere would read a buffer nobody writes.
///
/// libasound normally prints its diagnostics to stderr, several lines per
/// failure ("ALSA lib confmisc.c:855:(parse_card) cannot find card '0'" and
/// five more). Busker promises one-line errors, so the driver and the device
/// list capture those messages instead and fold the useful one into their own
/// `ALSAError`.
///
/// - Realtime: unsafe. The control thread; the sequencer thread takes and
///   describes messages too. Never the audio thread.
public enum ALSALibrary {
    private static let messagesCaptured = Atomic<Bool>(false)

    /// Installs the capturing error handler once. Set `BUSKER_ALSA_VERBOSE=1`
    /// to keep libasound's own stderr messages (for debugging a config file).
    @inline(never)
    public static func captureMessages() {
        guard !messagesCaptured.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let verbose = getenv("BUSKER_ALSA_VERBOSE"), verbose.pointee != 0, verbose.pointee != 0x30 { return }
        _ = busker_alsa_capture_messages()
    }

    /// The first message libasound reported on this thread since the last
    /// call (the cause, when a failure produces several), consumed; "" if none.
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates)
    @inline(never)
    public static func takeLastMessage() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        busker_alsa_take_last_message(&buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// libasound's text for a negative error code ("Device or resource busy").
    /// - Thread: midi-in, control
    /// - Realtime: unsafe (allocates)
    public static func describe(_ code: Int32) -> String {
        String(cString: snd_strerror(code))
    }
}
