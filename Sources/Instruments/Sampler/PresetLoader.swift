#if canImport(Glibc)
import Glibc
#endif
import Engine
import Synchronization

/// The thread that makes presets resident when the audio thread asks: a
/// program change selected a preset whose samples are still on disk, so
/// the audio thread queues its index here (wait-free) and goes on; this
/// thread reads the samples (`SoundFontPresets.makeResident`), and the
/// audio thread sees the preset resident at a later block. It also frees
/// the presets the audio thread has let go (`SoundFontPresets.unload`).
///
/// The thread polls its queue every `pollMicroseconds` when idle: the audio
/// thread may not wake a sleeping thread (that is a system call), and a
/// load takes tens of milliseconds, so 2 ms of polling delay is noise.
final class PresetLoader: @unchecked Sendable {
    static let threadName = "preset-loader"
    static let pollMicroseconds: UInt32 = 2_000

    /// Everything the thread touches, so that the thread does not retain the loader.
    private final class Work: @unchecked Sendable {
        let presets: SoundFontPresets
        /// An index to read, or −(index + 1) to free.
        let requests = SPSCQueue<Int>(capacity: 128)
        let running = Atomic<Bool>(true)
        init(presets: SoundFontPresets) { self.presets = presets }
    }

    private let work: Work
    private let thread: RealtimeThread

    /// Starts the loader thread for `presets`.
    /// - Realtime: unsafe (creates a thread). Control thread.
    init(presets: SoundFontPresets) {
        let work = Work(presets: presets)
        self.work = work
        thread = RealtimeThread(name: Self.threadName) {
            while work.running.load(ordering: .acquiring) {
                if let request = work.requests.pop() {
                    if request >= 0 { work.presets.makeResident(request) } else { work.presets.unload(-request - 1) }
                } else {
                    usleep(Self.pollMicroseconds)
                }
            }
        }
    }

    /// Stops the thread (after the load under way, if any).
    /// - Realtime: unsafe (joins a thread). Control thread.
    deinit {
        work.running.store(false, ordering: .releasing)
        thread.join()
    }

    // MARK: Audio thread

    /// Asks for the preset at `index` to be made resident, once: later asks
    /// for a preset already asked for, or resident, do nothing.
    /// - Thread: audio (the queue's one producer)
    /// - Realtime: safe (a compare-and-exchange and a wait-free push)
    func request(_ index: Int) {
        guard work.presets.claimRequest(index) else { return }
        if !work.requests.push(index) { work.presets.withdrawRequest(index) }
    }

    /// Lets the preset at `index` go and asks for it to be freed, when
    /// `SoundFontPresets.beginRetiring` allows (see there for what the caller checks).
    /// - Returns: whether it is on its way out.
    /// - Thread: audio (the queue's one producer)
    /// - Realtime: safe (a compare-and-exchange and a wait-free push)
    func retire(_ index: Int) -> Bool {
        guard work.presets.beginRetiring(index) else { return false }
        if work.requests.push(-index - 1) { return true }
        work.presets.cancelRetiring(index)
        return false
    }
}
