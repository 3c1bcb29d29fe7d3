#if canImport(Glibc)
import Glibc
#endif
import CFluidSynth
import Synchronization

/// Keeps FluidSynth's log off the terminal, and keeps the first error it
/// logs while a SoundFont loads, for the one-line error Busker prints.
///
/// FluidSynth logs through one process-wide function per level. Busker
/// replaces the ERR, WARN, INFO and DBG functions (PANIC keeps FluidSynth's
/// default: it means the synthesizer cannot go on) with one that keeps a
/// message only when it comes from the thread loading right now, and only
/// the first error: for a corrupt file that is the parser's reason ("Invalid
/// chunk id in level 0 parse", "EOF while attempting to read 8 bytes"); the
/// later ones only say that loading failed. Every other call (the audio
/// thread's voice-stealing warnings, say) returns at once, so the function is
/// safe on the audio thread: two thread ids compared, no allocation
/// (FluidSynth formats the text into its own stack buffer).
///
/// When FluidSynth's own loader refuses a file, FluidSynth (as Debian builds
/// it) hands it to libinstpatch's DLS loader, which reports through GLib's
/// log, straight to stderr ("CRITICAL **: ipatch_container_init_iter…").
/// GLib's default log handler is therefore replaced too: on the loading
/// thread its messages are dropped, everywhere else they go on to GLib's own
/// handler unchanged. GLib is only an indirect dependency (through
/// libfluidsynth), so its two functions are looked up with `dlsym`; without
/// them nothing changes but the noise.
enum SoundFontLoadLog {
    static let capacity = 512

    /// The first error kept, NUL-terminated; empty until one arrives. Written
    /// only by the capturing thread.
    nonisolated(unsafe) private static let firstError: UnsafeMutablePointer<CChar> = {
        let storage = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
        return storage
    }()
    /// The thread whose messages are kept (a `pthread_t`), 0 for none.
    private static let capturingThread = Atomic<UInt>(0)
    /// One load captures at a time.
    private static let loads = Mutex<Int>(0)

    typealias GLibLogFunction = @convention(c) (UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    private typealias GLibSetDefaultHandler = @convention(c) (GLibLogFunction?, UnsafeMutableRawPointer?) -> GLibLogFunction?
    /// GLib's handler before ours, to pass other threads' messages on to. Set once, before ours is installed.
    nonisolated(unsafe) private static var glibPreviousHandler: GLibLogFunction?

    private static let installation: Void = {
        // Touch the storage first: a log function must never be the one to
        // initialise a global (that takes a lock), least of all on the audio thread.
        _ = firstError
        _ = capturingThread.load(ordering: .relaxed)
        let receive: @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = { level, message, _ in
            SoundFontLoadLog.receive(level: level, message)
        }
        for level in [FLUID_ERR, FLUID_WARN, FLUID_INFO, FLUID_DBG] {
            _ = fluid_set_log_function(Int32(level.rawValue), receive, nil)
        }
        if let symbol = dlsym(nil, "g_log_set_default_handler") {
            let setDefaultHandler = unsafeBitCast(symbol, to: GLibSetDefaultHandler.self)
            let receiveGLib: GLibLogFunction = { domain, level, message, data in
                SoundFontLoadLog.receiveGLib(domain: domain, level: level, message: message, data: data)
            }
            glibPreviousHandler = dlsym(nil, "g_log_default_handler").map { unsafeBitCast($0, to: GLibLogFunction.self) }
            if glibPreviousHandler != nil { _ = setDefaultHandler(receiveGLib, nil) }
        }
    }()

    /// Routes FluidSynth's log here. Idempotent; call before any synthesizer exists.
    /// - Realtime: unsafe (first call initialises globals). Control thread.
    static func install() {
        _ = installation
    }

    /// Runs `body` (creating a synth, loading a SoundFont) and returns its
    /// result with the first error FluidSynth logged on this thread meanwhile.
    /// - Realtime: unsafe. Control or loader thread.
    static func capturing<Result>(_ body: () -> Result) -> (result: Result, firstError: String?) {
        install()
        return loads.withLock { _ in
            firstError[0] = 0
            capturingThread.store(UInt(pthread_self()), ordering: .releasing)
            let result = body()
            capturingThread.store(0, ordering: .releasing)
            let text = String(cString: firstError)
            return (result, text.isEmpty ? nil : text)
        }
    }

    /// GLib's default log handler, while Busker runs: GLib calls it on
    /// whichever thread logs (libinstpatch on the loading thread, in practice).
    /// - Thread: any
    /// - Realtime: unsafe (off the loading thread it passes the message to
    ///   GLib's own handler, which formats it and writes to stderr)
    private static func receiveGLib(domain: UnsafePointer<CChar>?, level: Int32, message: UnsafePointer<CChar>?, data: UnsafeMutableRawPointer?) {
        let fatal: Int32 = 1 << 1 | 1 << 2  // G_LOG_FLAG_FATAL, G_LOG_LEVEL_ERROR: GLib aborts; say why
        if onCapturingThread && level & fatal == 0 { return }
        glibPreviousHandler?(domain, level, message, data)
    }

    // MARK: Audio thread (and any other thread FluidSynth logs on)

    /// Whether the calling thread is the one loading.
    /// - Thread: audio, control (whichever thread logs)
    /// - Realtime: safe
    @inline(__always)
    private static var onCapturingThread: Bool {
        capturingThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// FluidSynth's log function: FluidSynth calls it on whichever thread
    /// logs, the audio thread included (voice-stealing warnings, say).
    /// - Thread: audio, control (whichever thread FluidSynth logs on)
    /// - Realtime: safe (a thread-id comparison; a bounded copy on the loading thread only)
    private static func receive(level: Int32, _ message: UnsafePointer<CChar>?) {
        guard let message, level <= Int32(FLUID_ERR.rawValue), onCapturingThread, firstError[0] == 0 else { return }
        _ = strncpy(firstError, message, capacity - 1)
        firstError[capacity - 1] = 0
    }
}
