import Engine
import Foundation
import Synchronization

/// A silent source node that allocates once on the render thread when asked:
/// the allocation counter's negative control inside a real graph.
final class AllocationProbeNode: AudioNode, @unchecked Sendable {
    let allocateOnce = Atomic<Bool>(false)
    private var kept: AnyObject?

    init() { super.init(name: "allocation-probe") }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }

    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        output.clear()
        if allocateOnce.load(ordering: .acquiring) {
            kept = NSObject()
            allocateOnce.store(false, ordering: .releasing)
        }
    }
}
