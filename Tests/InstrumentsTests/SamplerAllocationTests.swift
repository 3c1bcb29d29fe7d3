#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import Engine
import InstrumentTestSupport
import Instruments
import MIDI
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// The sampler's audio-thread work allocates nothing: every kind of MIDI
/// message FluidSynth is given, its rendering, voice stealing, and a new
/// SoundFont handed over while it plays.
final class SamplerAllocationTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
    }

    /// Every message kind, applied straight to a synth and followed by a
    /// render, counted one at a time on this thread: if FluidSynth allocated
    /// anywhere, this names the call.
    func testEachMessageKindAndRenderingAllocateNothing() throws {
        let synth = try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3, polyphony: 16), sampleRate: 48_000)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 512), right = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { left.deallocate(); right.deallocate() }
        let script: [(String, [MIDIMessage])] = [
            ("note on", [.noteOn(channel: 0, note: 60, velocity: 100)]),
            ("note on, velocity 0", [.noteOn(channel: 0, note: 60, velocity: 0)]),
            ("note off", [.noteOn(channel: 0, note: 62, velocity: 90), .noteOff(channel: 0, note: 62, velocity: 40)]),
            ("voice stealing (20 notes, 16 voices)", (0..<20).map { .noteOn(channel: 1, note: UInt8(40 + $0), velocity: 100) }),
            ("sustain pedal", [.controlChange(channel: 0, controller: 64, value: 127), .noteOn(channel: 0, note: 64, velocity: 80),
                               .noteOff(channel: 0, note: 64, velocity: 0), .controlChange(channel: 0, controller: 64, value: 0)]),
            ("modulation", [.controlChange(channel: 0, controller: 1, value: 100)]),
            ("volume, pan, expression", [.controlChange(channel: 0, controller: 7, value: 90), .controlChange(channel: 0, controller: 10, value: 20),
                                         .controlChange(channel: 0, controller: 11, value: 100)]),
            ("pitch bend", [.pitchBend(channel: 0, value: 0), .pitchBend(channel: 0, value: 16383), .pitchBend(channel: 0, value: 8192)]),
            ("channel pressure", [.channelPressure(channel: 0, pressure: 70)]),
            ("poly pressure", [.polyPressure(channel: 0, note: 60, pressure: 70)]),
            ("program change", [.programChange(channel: 0, program: 13), .noteOn(channel: 0, note: 72, velocity: 100)]),
            ("bank select + program change", [.controlChange(channel: 0, controller: 0, value: 1), .controlChange(channel: 0, controller: 32, value: 0),
                                              .programChange(channel: 0, program: 0)]),
            ("program change to a missing preset (FluidSynth logs)", [.controlChange(channel: 2, controller: 0, value: 99), .programChange(channel: 2, program: 5),
                                                                      .noteOn(channel: 2, note: 60, velocity: 100)]),
            ("drum channel note", [.noteOn(channel: 9, note: 38, velocity: 100)]),
            ("all notes off (123)", [.controlChange(channel: 1, controller: 123, value: 0)]),
            ("all sound off (120)", [.controlChange(channel: 0, controller: 120, value: 0)]),
            ("reset controllers (121)", [.controlChange(channel: 0, controller: 121, value: 0)]),
            ("system reset", [.noteOn(channel: 0, note: 60, velocity: 100), .systemReset]),
        ]
        // The first render of anything on this thread is not the steady state.
        synth.render(left: left, right: right, frameCount: 512)
        // Negative control: the counter sees an allocation on this thread.
        busker_allocation_counts_reset()
        busker_allocation_counting_begin()
        samplerAllocationSink = malloc(16)
        busker_allocation_counting_end()
        free(samplerAllocationSink)
        XCTAssertEqual(busker_allocation_count(), 1, "the counter counts on this thread")
        var findings: [String] = []
        for (name, messages) in script {
            busker_allocation_counts_reset()
            busker_allocation_counting_begin()
            for message in messages { synth.apply(message) }
            synth.render(left: left, right: right, frameCount: 512)
            _ = synth.activeVoiceCount
            busker_allocation_counting_end()
            let allocations = busker_allocation_count(), frees = busker_free_count()
            if allocations != 0 || frees != 0 { findings.append("\(name): \(allocations) allocation(s), \(frees) free(s)") }
        }
        XCTAssertEqual(findings, [], findings.joined(separator: "; "))
    }

    /// A MIDI script through a scheduler and a port, rendered on the
    /// "audio-render" thread, while the control thread loads FluidR3_GM
    /// (148 MB) and later TimGM6mb and hands each over: no allocation and no
    /// free on the render thread, and the old synths are deleted on the control thread.
    func testLoadingASoundFontWhilePlayingDoesNotAllocateOnTheRenderThread() throws {
        let port = MIDIInputPort(name: "script")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        let node = SamplerNode(events: scheduler.events, sampleRate: 48_000)
        weak var firstSynth: SamplerSynth?
        weak var secondSynth: SamplerSynth?
        do {
            let synth = try node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.smallFont, polyphony: 48))
            firstSynth = synth
        }
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        engine.attach(scheduler)

        let frames = 64, blocks = 3_000, warmUp = 16
        let firstSwapBlock = 400, secondSwapBlock = 1_800
        // The script, in time order, from the first counted frame: every 40
        // blocks a burst of notes (more than the polyphony of 48 at times, so
        // voices are stolen), their releases, and every other kind of message.
        var frame = Int64(warmUp * frames)
        var sent = 0
        func send(_ message: MIDIMessage, after delay: Int64 = 0) {
            frame += delay
            if port.send(message, at: .sample(frame)) { sent += 1 }
        }
        var round = 0
        while frame < Int64((warmUp + blocks - 60) * frames) {
            let channel = UInt8(round % 3)
            let count = round % 4 == 3 ? 60 : 8
            for i in 0..<count { send(.noteOn(channel: channel, note: UInt8(36 + (i * 7 + round) % 60), velocity: UInt8(40 + (i * 13) % 87))) }
            send(.controlChange(channel: channel, controller: 64, value: round % 2 == 0 ? 127 : 0), after: 100)
            send(.pitchBend(channel: channel, value: UInt16((round * 997) % 16384)), after: 50)
            send(.controlChange(channel: channel, controller: 1, value: UInt8(round * 5 % 128)), after: 50)
            send(.channelPressure(channel: channel, pressure: 64), after: 10)
            send(.polyPressure(channel: channel, note: 60, pressure: 64), after: 10)
            send(.controlChange(channel: channel, controller: 7, value: 100), after: 10)
            send(.controlChange(channel: channel, controller: 10, value: UInt8(round * 11 % 128)), after: 10)
            if round % 5 == 1 { send(.programChange(channel: channel, program: UInt8(round % 2 == 0 ? 0 : 13)), after: 10) }
            for i in 0..<count { send(.noteOff(channel: channel, note: UInt8(36 + (i * 7 + round) % 60), velocity: 64), after: i == 0 ? 1_000 : 0) }
            if round % 6 == 2 { send(.controlChange(channel: channel, controller: 123, value: 0), after: 10) }
            if round % 6 == 4 { send(.controlChange(channel: channel, controller: 120, value: 0), after: 10) }
            if round % 6 == 5 { send(.controlChange(channel: channel, controller: 121, value: 0), after: 10) }
            if round == 20 { send(.systemReset, after: 10) }
            frame = Int64(warmUp * frames) + Int64((round + 1) * 40 * frames)
            round += 1
        }

        let swapsInstalled = Atomic<Int>(0)
        let silentBlocks = Atomic<Int>(0)
        let mostVoices = Atomic<Int>(0)
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: blocks, frames: frames, inputChannels: 0, outputChannels: 2, warmUpBlocks: warmUp,
            afterEachBlock: { block, output in
                var energy: Float = 0
                for i in 0..<output.frameCount { energy += abs(output[0][i]) }
                if energy == 0 { silentBlocks.add(1, ordering: .relaxed) }
                // Hold the render thread at these blocks until the control
                // thread has handed the new synth over, so the handover
                // happens mid-stream however fast the rendering runs.
                if block == firstSwapBlock || block == secondSwapBlock {
                    let wanted = block == firstSwapBlock ? 1 : 2
                    while swapsInstalled.load(ordering: .acquiring) < wanted { sched_yield() }
                }
            },
            control: { iteration in
                if iteration == 0 {
                    let loaded = try? node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3, polyphony: 64))
                    XCTAssertNotNil(loaded)
                    secondSynth = loaded
                    swapsInstalled.store(1, ordering: .releasing)
                } else if swapsInstalled.load(ordering: .relaxed) == 1, node.handoverCount == 2, firstSynth == nil {
                    // FluidR3_GM plays and the first synth is gone: hand the next one over.
                    let loaded = try? node.load(SamplerConfiguration(soundFontPath: SamplerTestRig.smallFont, instrument: .xylophone))
                    XCTAssertNotNil(loaded)
                    swapsInstalled.store(2, ordering: .releasing)
                }
                mostVoices.store(max(mostVoices.load(ordering: .relaxed), node.activeVoiceCount), ordering: .relaxed)
                node.collectRetired()
            })
        node.collectRetired()
        print("sampler on the render thread: \(counts); \(sent) MIDI events; handovers \(node.handoverCount); most voices seen \(mostVoices.load(ordering: .relaxed)); silent blocks \(silentBlocks.load(ordering: .relaxed))")
        XCTAssertEqual(counts.blocks, blocks)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertEqual(node.handoverCount, 3, "the first synth, FluidR3_GM, then TimGM6mb again")
        XCTAssertNil(firstSynth, "retired and deleted on the control thread")
        XCTAssertNil(secondSynth, "retired and deleted on the control thread")
        XCTAssertLessThan(silentBlocks.load(ordering: .relaxed), blocks / 4, "it really played")
        XCTAssertGreaterThan(mostVoices.load(ordering: .relaxed), 8)
        XCTAssertEqual(port.droppedCount, 0)
        XCTAssertEqual(scheduler.overflowCount, 0)
        engine.releaseAll()
    }
}

/// Where the negative control's allocation goes, so the optimizer cannot remove it.
nonisolated(unsafe) private var samplerAllocationSink: UnsafeMutableRawPointer?
