import CAllocationCounter
import CJACK
import Engine
import Foundation
import JACK
import Sequencing
import Synchronization

/// Busker's side of the JACK MIDI tests: a client with `midi_in`, `out_L`
/// and `out_R` whose process callback does what Busker's does, reads
/// `midi_in` through `JACKMIDIInput`, then renders the engine, whose plan is
/// an `EventMarkerInstrument` behind a `MIDIScheduler`.
final class JACKMIDIHost: @unchecked Sendable {
    let client: OpaquePointer
    let name: String
    let input: JACKMIDIInput
    let scheduler: MIDIScheduler
    let engine = RenderEngine()
    private let midiPort: OpaquePointer
    private let outputs: [OpaquePointer]
    private let channelPointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)

    // MARK: Shared (atomics)
    /// Set: the process thread starts counting its allocations at its next cycle.
    let countAllocations = Atomic<Bool>(false)
    /// Set: the process thread allocates once (the counter's negative control).
    let allocateOnce = Atomic<Bool>(false)
    private let cycles = Atomic<Int>(0)
    private let skips = Atomic<Int>(0)

    // MARK: Audio thread only
    private var counting = false
    private var nextFrameTime: UInt32?
    private var kept: AnyObject?

    init(name: String, watchdogSeconds: Double = 30) throws {
        self.name = name
        let client = try JACKTestClient.open(name)
        self.client = client
        midiPort = try JACKTestClient.register(client, JACKMIDIInput.portName, type: JACKTestClient.midiType, output: false)
        outputs = try ["out_L", "out_R"].map { try JACKTestClient.register(client, $0, type: JACKTestClient.audioType, output: true) }
        input = JACKMIDIInput()
        scheduler = MIDIScheduler(ports: [input.port], watchdogSeconds: watchdogSeconds)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(EventMarkerInstrument(events: scheduler.events))
        let spec = ProcessSpec(sampleRate: Double(jack_get_sample_rate(client)), maximumBlockSize: Int(jack_get_buffer_size(client)))
        engine.attach(scheduler)
        engine.install(try graph.compile(spec: spec))
        input.follow(client: client)
        jack_set_process_callback(client, { frameCount, context in
            Unmanaged<JACKMIDIHost>.fromOpaque(context!).takeUnretainedValue().process(frameCount)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        jack_activate(client)
    }

    deinit { channelPointers.deallocate() }

    func close() {
        jack_deactivate(client)
        jack_client_close(client)
        engine.releaseAll()
    }

    var midiInName: String { "\(name):\(JACKMIDIInput.portName)" }
    func outputName(_ channel: Int) -> String { "\(name):\(channel == 0 ? "out_L" : "out_R")" }
    var cycleCount: Int { cycles.load(ordering: .acquiring) }
    /// Times the process callback found a cycle missing since the last (the server skipped it: a stalled host).
    var skippedCycles: Int { skips.load(ordering: .acquiring) }

    // MARK: Audio thread

    private func process(_ frameCount: jack_nframes_t) {
        if !counting && countAllocations.load(ordering: .acquiring) {
            busker_allocation_counting_begin()
            counting = true
        }
        if allocateOnce.exchange(false, ordering: .acquiring) { kept = NSObject() }
        let frames = Int(frameCount)
        let now = jack_last_frame_time(client)
        if let expected = nextFrameTime, expected != now { skips.add(1, ordering: .relaxed) }
        nextFrameTime = now &+ frameCount
        if let buffer = jack_port_get_buffer(midiPort, frameCount) { input.readCycle(buffer: buffer, frames: frames) }
        for channel in 0..<2 {
            channelPointers[channel] = jack_port_get_buffer(outputs[channel], frameCount)!.assumingMemoryBound(to: Float.self)
        }
        engine.render(input: nil, output: AudioBlock(channels: channelPointers, channelCount: 2, frameCount: frames))
        cycles.add(1, ordering: .releasing)
    }
}
