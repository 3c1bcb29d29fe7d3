import CJACK
import Foundation
import Synchronization

/// A test JACK client with one MIDI output, `midi_out`, that writes a chosen
/// set of events at chosen frames into one process cycle and says which
/// cycle (its frame time) that was.
final class JACKMIDISender: @unchecked Sendable {
    struct Event {
        var frame: Int
        var bytes: [UInt8]
    }

    static let maximumEvents = 64
    static let maximumBytes = 8

    let client: OpaquePointer
    let name: String
    private let port: OpaquePointer

    // MARK: Shared (atomics)
    /// 0 idle, 1 events waiting for the next cycle, 2 written.
    private let state = Atomic<Int>(0)
    private let writtenAt = Atomic<UInt32>(0)
    /// Cycles left in which to write the events again (a steady stream).
    private let repeatsLeft = Atomic<Int>(0)
    private let writeFailures = Atomic<Int>(0)

    // MARK: Written by the control thread while idle, read by the process thread
    private let frames = UnsafeMutablePointer<UInt32>.allocate(capacity: maximumEvents)
    private let sizes = UnsafeMutablePointer<Int>.allocate(capacity: maximumEvents)
    private let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: maximumEvents * maximumBytes)
    private var eventCount = 0

    init(name: String) throws {
        self.name = name
        client = try JACKTestClient.open(name)
        port = try JACKTestClient.register(client, "midi_out", type: JACKTestClient.midiType, output: true)
        jack_set_process_callback(client, { frameCount, context in
            Unmanaged<JACKMIDISender>.fromOpaque(context!).takeUnretainedValue().process(frameCount)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        jack_activate(client)
    }

    deinit {
        frames.deallocate()
        sizes.deallocate()
        bytes.deallocate()
    }

    func close() {
        jack_deactivate(client)
        jack_client_close(client)
    }

    var portName: String { "\(name):midi_out" }

    /// Writes `events` in the next cycle (and `repeats` cycles more); returns
    /// that cycle's frame time once written.
    func send(_ events: [Event], repeats: Int = 0) -> UInt32? {
        precondition(events.count <= Self.maximumEvents && state.load(ordering: .acquiring) != 1)
        for (index, event) in events.enumerated() {
            precondition(event.bytes.count <= Self.maximumBytes)
            frames[index] = UInt32(event.frame)
            sizes[index] = event.bytes.count
            for (b, byte) in event.bytes.enumerated() { bytes[index * Self.maximumBytes + b] = byte }
        }
        eventCount = events.count
        repeatsLeft.store(repeats, ordering: .relaxed)
        state.store(1, ordering: .releasing)
        guard JACKTestClient.wait(until: { state.load(ordering: .acquiring) == 2 && repeatsLeft.load(ordering: .relaxed) == 0 }) else {
            return nil
        }
        return writtenAt.load(ordering: .acquiring)
    }

    /// Events JACK refused to write (a full buffer, a frame past the cycle).
    var failedWrites: Int { writeFailures.load(ordering: .relaxed) }

    // MARK: Audio thread

    private func process(_ frameCount: jack_nframes_t) {
        guard let buffer = jack_port_get_buffer(port, frameCount) else { return }
        jack_midi_clear_buffer(buffer)
        let armed = state.load(ordering: .acquiring)
        guard armed == 1 || (armed == 2 && repeatsLeft.load(ordering: .relaxed) > 0) else { return }
        if armed == 2 { repeatsLeft.subtract(1, ordering: .relaxed) }
        for index in 0..<eventCount {
            if jack_midi_event_write(buffer, frames[index], bytes + index * Self.maximumBytes, sizes[index]) != 0 {
                writeFailures.add(1, ordering: .relaxed)
            }
        }
        if armed == 1 {
            writtenAt.store(jack_last_frame_time(client), ordering: .releasing)
            state.store(2, ordering: .releasing)
        }
    }
}
