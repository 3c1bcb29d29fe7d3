import Foundation
import Synchronization

/// The allocation counter's negative control for the live render tests:
/// allocates a class instance the optimizer cannot remove, on the thread
/// that calls `allocateOnce`, to prove the counter is on there.
final class AllocationProbe: @unchecked Sendable {
    let countSeen = Atomic<Int>(0)
    private var kept: AnyObject?
    func allocateOnce() { kept = NSObject() }
}
