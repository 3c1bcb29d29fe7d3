import Engine
import MIDI
import Sequencing
import Synchronization

/// A test instrument whose output shows exactly when its notes are on: each
/// held note adds velocity / 127 to every frame (channel ignored). A note-on at
/// offset k therefore changes the output from frame k on, which lets tests see
/// the frame an event landed on without any pitch or envelope in the way.
final class GateInstrument: AudioNode {
    private let events: MIDIEventBuffer
    private var level = [Float](repeating: 0, count: 128)
    private var sum: Float = 0
    /// The allocation counter's negative control: when set, the next render
    /// allocates once on the render thread (and clears it).
    let allocateOnce = Atomic<Bool>(false)
    private var kept: [Int] = []

    init(events: MIDIEventBuffer) {
        self.events = events
        super.init(name: "gate")
    }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }

    override func reset() {
        for i in 0..<128 { level[i] = 0 }
        sum = 0
    }

    /// - Realtime: safe, but for the negative control (`allocateOnce`).
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        if allocateOnce.load(ordering: .acquiring) {
            kept = [Int](repeating: sum > 0 ? 1 : 2, count: 8)
            allocateOnce.store(false, ordering: .releasing)
        }
        let out = output[0]
        var frame = 0
        for index in 0..<events.count {
            let event = events[index]
            while frame < event.offset { out[frame] = sum; frame += 1 }
            apply(event.message)
        }
        while frame < output.frameCount { out[frame] = sum; frame += 1 }
    }

    private func apply(_ message: MIDIMessage) {
        switch message {
        case .noteOn(_, let note, let velocity) where velocity > 0:
            level[Int(note)] = Float(velocity) / 127
        case .noteOn(_, let note, _), .noteOff(_, let note, _):
            level[Int(note)] = 0
        default:
            return
        }
        sum = 0
        for value in level { sum += value }
    }
}
