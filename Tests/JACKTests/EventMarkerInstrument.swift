import Engine
import MIDI
import Sequencing

/// A test instrument that shows where its events landed, frame by frame.
///
/// Channel 0 (out_L) is a gate: every held note adds velocity / 127, so a
/// note-on at offset k raises the level from frame k on and a note-off lowers
/// it from its frame on. Channel 1 (out_R) marks each note-on's frame with
/// note / 128 and is 0 elsewhere, so a test can read which note landed on
/// which frame. Fixed storage: it renders without allocating.
final class EventMarkerInstrument: AudioNode {
    private let events: MIDIEventBuffer
    private let levels = UnsafeMutablePointer<Float>.allocate(capacity: 16 * 128)
    private var sum: Float = 0

    init(events: MIDIEventBuffer) {
        self.events = events
        levels.initialize(repeating: 0, count: 16 * 128)
        super.init(name: "event-marker")
    }

    deinit { levels.deallocate() }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    override func reset() {
        levels.update(repeating: 0, count: 16 * 128)
        sum = 0
    }

    /// - Thread: audio
    /// - Realtime: safe
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let gate = output[0], marks = output[1]
        marks.update(repeating: 0, count: output.frameCount)
        var frame = 0
        for index in 0..<events.count {
            let event = events[index]
            while frame < event.offset { gate[frame] = sum; frame += 1 }
            if case .noteOn(_, let note, let velocity) = event.message, velocity > 0 {
                marks[event.offset] = Float(note) / 128
            }
            apply(event.message)
        }
        while frame < output.frameCount { gate[frame] = sum; frame += 1 }
    }

    private func apply(_ message: MIDIMessage) {
        switch message {
        case .noteOn(let channel, let note, let velocity) where velocity > 0:
            levels[Int(channel) * 128 + Int(note)] = Float(velocity) / 127
        case .noteOn(let channel, let note, _), .noteOff(let channel, let note, _):
            levels[Int(channel) * 128 + Int(note)] = 0
        default:
            return
        }
        sum = 0
        for index in 0..<(16 * 128) { sum += levels[index] }
    }
}
