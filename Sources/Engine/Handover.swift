import Synchronization

/// Hands objects built on the control thread (render plans, synths, drum
/// kits) to the audio thread without either side waiting, and brings back
/// the ones the audio thread is done with, to be freed on the control thread.
///
/// The control thread parks a retained object in an atomic slot (`offer`);
/// at the start of a block the audio thread takes it (`take`), and later
/// sends the object it replaced back through a wait-free queue (`retire`),
/// from which the control thread releases it (`collectRetired`). The audio
/// thread only takes an object when the queue has room for the one it will
/// retire, so it never has to free anything itself (JUCE's
/// `RenderSequenceExchange`, fundsp's `realnet`).
///
/// Objects travel as retained raw pointers so that the audio thread's hold
/// on them costs no reference counting; `Unmanaged<Object>.fromOpaque` reads them.
public final class Handover<Object: AnyObject>: @unchecked Sendable {
    // MARK: Shared (atomics)
    private let pending = Atomic<UnsafeMutableRawPointer?>(nil)
    private let retired: SPSCQueue<UnsafeMutableRawPointer>

    /// - Parameter retiredCapacity: objects the audio thread can retire before the control thread collects.
    public init(retiredCapacity: Int) {
        retired = SPSCQueue(capacity: retiredCapacity)
    }

    deinit {
        dropPending()
        collectRetired()
    }

    // MARK: Control thread

    /// Parks `object` for the audio thread. An object offered earlier and not
    /// yet taken is released here instead.
    /// - Thread: control
    /// - Realtime: unsafe (may free)
    public func offer(_ object: Object) {
        let raw = Unmanaged.passRetained(object).toOpaque()
        if let superseded = pending.exchange(raw, ordering: .acquiringAndReleasing) {
            Unmanaged<Object>.fromOpaque(superseded).release()
        }
    }

    /// Releases the objects the audio thread has retired: the consumer end
    /// of the retired queue.
    /// - Returns: how many were released.
    /// - Thread: control
    /// - Realtime: unsafe (frees)
    @discardableResult
    public func collectRetired() -> Int {
        var count = 0
        while let raw = retired.pop() {
            Unmanaged<Object>.fromOpaque(raw).release()
            count += 1
        }
        return count
    }

    /// Releases an offered object nobody took. Only once the audio thread is gone.
    /// - Realtime: unsafe (frees).
    public func dropPending() {
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            Unmanaged<Object>.fromOpaque(raw).release()
        }
    }

    /// Whether an offered object is still waiting for the audio thread.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var hasPending: Bool { pending.load(ordering: .acquiring) != nil }

    // MARK: Audio thread

    /// The offered object, retained for the caller, when there is one and the
    /// retired queue has room for the object it replaces; nil otherwise (the
    /// caller keeps what it has for another block).
    /// - Thread: audio
    /// - Realtime: safe
    public func take() -> UnsafeMutableRawPointer? {
        guard pending.load(ordering: .relaxed) != nil, retired.hasSpace else { return nil }
        return pending.exchange(nil, ordering: .acquiringAndReleasing)
    }

    /// Sends back an object (retained) the audio thread is done with. Call it
    /// at most once per `take`: `take` checked there is room. The producer
    /// end of the retired queue.
    /// - Thread: audio
    /// - Realtime: safe
    public func retire(_ object: UnsafeMutableRawPointer) {
        _ = retired.push(object)
    }
}
