import CJACK
import JACK
import Synchronization

extension JACKCalls {
    /// This table with `body` run once on JACK's process thread, at the first
    /// port buffer it asks for: the start of its first cycle, after the driver
    /// named it `audio-render` and before anything is rendered. Tests switch
    /// the render thread's allocation counter on there.
    /// - Thread: audio (JACK's process thread).
    /// - Realtime: as `body` (tests allocate there on purpose, once).
    func withProcessThreadStart(_ body: @escaping @Sendable () -> Void) -> JACKCalls {
        final class Once: Sendable {
            let done = Atomic<Bool>(false)
        }
        let once = Once()
        var calls = self
        let portBuffer = calls.portBuffer
        calls.portBuffer = { port, frames in
            if !once.done.load(ordering: .relaxed) {
                once.done.store(true, ordering: .relaxed)
                body()
            }
            return portBuffer(port, frames)
        }
        return calls
    }
}
