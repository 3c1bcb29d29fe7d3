#if canImport(Glibc)
import Glibc
#endif
import CRealtimeSupport

/// Starts and joins the threads Busker renders on. Every render thread, the
/// offline file driver's included, is named `audio-render` (visible in `ps -L`,
/// `top -H` and debuggers) and runs with flush-to-zero on.
public final class RealtimeThread: @unchecked Sendable {
    public static let renderThreadName = "audio-render"

    private var thread: pthread_t
    private var joined = false

    private final class Box {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) { self.name = name; self.body = body }
    }

    /// Spawns a thread named `name` that runs `body` on it.
    /// - Thread: control
    /// - Realtime: unsafe (creates a thread)
    public init(name: String = RealtimeThread.renderThreadName, body: @escaping () -> Void) {
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { raw in
            // On the new thread (audio, midi-in, writer or reader), before its
            // work starts: name it, turn flush-to-zero on, run `body`. The box
            // is released here once `body` returns, as the thread ends.
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            _ = busker_set_current_thread_name(box.name)
            busker_enable_flush_to_zero()
            box.body()
            return nil
        }, box)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread = t
    }

    /// Waits for the thread to finish. Control thread only.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit { join() }

    // MARK: Audio thread

    /// Copies the calling thread's pthread name into `buffer`, NUL-terminated
    /// (Linux keeps at most 15 characters): how a render loop records which
    /// thread it ran on without allocating. The caller owns the buffer and
    /// turns it into a String off the audio thread.
    /// - Thread: any
    /// - Realtime: safe (one prctl system call into caller-owned memory)
    public static func copyCurrentName(into buffer: UnsafeMutableBufferPointer<CChar>) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = busker_get_current_thread_name(base, buffer.count)
    }

    // MARK: Control thread

    /// The calling thread's pthread name.
    /// - Thread: control, any
    /// - Realtime: unsafe (allocates an array and a String)
    public static var currentName: String {
        var buffer = [CChar](repeating: 0, count: 32)
        _ = busker_get_current_thread_name(&buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
