#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import DSP
import Engine
import InstrumentTestSupport
import Instruments
import MIDI
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// Channel 10 split between the drum kit (its pads) and the sampler (the
/// SoundFont's percussion for every other note), the sampler's CC 91 and
/// CC 93 sends feeding a reverb and a chorus, as `busker play` and
/// `busker render` build it.
final class PercussionRoutingTests: XCTestCase {
    private func shippedKit() throws -> DrumKit {
        try DrumKit.load(manifestAt: DrumKitLocation.defaultManifestPath(), sampleRate: 48_000)
    }

    /// The sampler plays a channel-10 note only when its percussion notes hold it.
    func testTheSamplerPlaysOnlyThePercussionNotesItIsGiven() throws {
        let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, channels: .all)
        rig.node.percussionNotes = MIDINoteSet(notes: [56])
        rig.send(.noteOn(channel: 9, note: 38, velocity: 110), at: 0)
        let withheld = rig.renderMono(frames: 24_000)
        rig.send(.noteOn(channel: 9, note: 56, velocity: 110), at: rig.frame)
        let played = rig.renderMono(frames: 24_000)
        let rms = { (x: [Float]) in sqrt(x.reduce(0) { $0 + $1 * $1 } / Float(x.count)) }
        print("snare withheld: RMS \(rms(withheld)); cowbell played: RMS \(rms(played))")
        XCTAssertEqual(rms(withheld), 0, "note 38 is not the sampler's")
        XCTAssertGreaterThan(20 * log10(rms(played)), -50, "the cowbell sounds")
    }

    /// The kit and the sampler share channel 10 on the "audio-render" thread:
    /// every GM percussion note, program changes that pick another drum kit
    /// of the SoundFont, CC 91 and CC 93 on the way, melodic notes beside;
    /// no allocation, no free, and both instruments sound.
    func testSplitPercussionAndSendsAllocateNothingOnTheRenderThread() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        let port = MIDIInputPort(name: "script")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        let sampler = SamplerNode(events: scheduler.events, sampleRate: 48_000, channels: .all, sends: true)
        let kit = try shippedKit()
        sampler.percussionNotes = kit.padNotes.complement
        try sampler.load(SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3, polyphony: 64))
        let drums = DrumKitNode(events: scheduler.events)
        try drums.install(kit)
        // The sends' reverb and chorus as busker play and render build them.
        let graph = AudioGraph(inputChannelCount: 0)
        let mixer = MixerNode(name: "mixer", inputCount: 4, outputChannelCount: 2)
        let mixerID = graph.add(mixer)
        let samplerID = graph.add(sampler)
        try graph.connect(samplerID, to: mixerID, bus: 0)
        try graph.connect(graph.add(drums), to: mixerID, bus: 1)
        let reverb = ReverbNode(name: "send reverb", preset: .hall, passesDry: false)
        reverb.wet.value = 100
        for (bus, (channel, effect)) in [(2, (2, reverb as AudioNode)), (3, (4, ChorusNode()))] {
            let pair = graph.add(ChannelPairNode(left: channel, right: channel + 1))
            try graph.connect(samplerID, to: pair)
            let effectID = graph.add(effect)
            try graph.connect(pair, to: effectID)
            try graph.connect(effectID, to: mixerID, bus: bus)
        }
        graph.output = mixerID
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        engine.attach(scheduler)

        let frames = 64, blocks = 2_400, warmUp = 16
        var frame = Int64(warmUp * frames)
        var sent = 0
        func send(_ message: MIDIMessage, after delay: Int64 = 0) {
            frame += delay
            if port.send(message, at: .sample(frame)) { sent += 1 }
        }
        let kits: [UInt8] = [0, 8, 16, 25, 40, 48]
        for (round, note) in (35...81).enumerated() {
            if round % 8 == 0 { send(.programChange(channel: 9, program: kits[round / 8 % kits.count])) }
            send(.controlChange(channel: 9, controller: 91, value: UInt8(round * 5 % 128)))
            send(.controlChange(channel: 9, controller: 93, value: UInt8(round * 7 % 128)))
            send(.controlChange(channel: UInt8(round % 2), controller: 91, value: UInt8(round * 11 % 128)))
            send(.noteOn(channel: 9, note: UInt8(note), velocity: UInt8(40 + round % 80)))
            send(.noteOn(channel: UInt8(round % 2), note: UInt8(48 + round % 24), velocity: 90), after: 10)
            send(.noteOff(channel: 9, note: UInt8(note), velocity: 0), after: 1_000)
            send(.noteOff(channel: UInt8(round % 2), note: UInt8(48 + round % 24), velocity: 0))
            frame = Int64(warmUp * frames) + Int64((round + 1) * 3_000)
        }
        let mostSamplerVoices = Atomic<Int>(0), mostDrumVoices = Atomic<Int>(0)
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: blocks, frames: frames, inputChannels: 0, outputChannels: 2, warmUpBlocks: warmUp,
            control: { _ in
                mostSamplerVoices.store(max(mostSamplerVoices.load(ordering: .relaxed), sampler.activeVoiceCount), ordering: .relaxed)
                mostDrumVoices.store(max(mostDrumVoices.load(ordering: .relaxed), drums.activeVoiceCount), ordering: .relaxed)
            })
        print("split percussion on the render thread: \(counts); \(sent) MIDI events; most sampler voices \(mostSamplerVoices.load(ordering: .relaxed)), drum voices \(mostDrumVoices.load(ordering: .relaxed))")
        XCTAssertEqual(counts.blocks, blocks)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertGreaterThan(mostSamplerVoices.load(ordering: .relaxed), 0)
        XCTAssertGreaterThan(mostDrumVoices.load(ordering: .relaxed), 0)
        XCTAssertEqual(port.droppedCount, 0)
        engine.releaseAll()
    }

    /// A synth built without channel outputs (by another loader) and handed
    /// to a sampler with sends plays dry, and the send channels are silent,
    /// whatever the buffers held before.
    func testASynthWithoutChannelOutputsPlaysDryInASamplerWithSends() throws {
        let port = MIDIInputPort(name: "test")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        let node = SamplerNode(events: scheduler.events, sampleRate: 48_000, sends: true)
        node.install(try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: SamplerTestRig.smallFont), sampleRate: 48_000))
        node.allocate(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 256), inputChannelCounts: [], outputChannelCount: 6)
        let buffer = AudioBuffer(channelCount: 6, capacity: 256)
        XCTAssertTrue(port.send(.controlChange(channel: 0, controller: 91, value: 127), at: .sample(0)))
        XCTAssertTrue(port.send(.noteOn(channel: 0, note: 60, velocity: 100), at: .sample(0)))
        var dry: Float = 0, sends: Float = 0
        for block in 0..<40 {
            let output = buffer.block(frames: 256)
            for c in 0..<6 { output[c].update(repeating: 1, count: 256) }
            scheduler.beginCycle(sampleTime: Int64(block * 256), frameCount: 256, sampleRate: 48_000, hostTime: 0)
            node.render(inputs: UnsafeBufferPointer(start: nil, count: 0), output: output)
            for n in 0..<256 {
                dry += abs(output[0][n])
                for c in 2..<6 { sends += abs(output[c][n]) }
            }
        }
        XCTAssertGreaterThan(dry, 1, "the note sounds dry")
        XCTAssertEqual(sends, 0, "no send without channel outputs")
        node.collectRetired()
    }
}
