#if canImport(Glibc)
import Glibc
#endif
import CAllocationCounter
import CFluidSynth
import Engine
import InstrumentTestSupport
import Instruments
import MIDI
import RenderTestSupport
import Sequencing
import Synchronization
import XCTest

/// Memory that follows the music: a synth reads only the presets its
/// channels select; a program change to a preset still on disk loads it on
/// the loader thread, never on the audio thread, and the note that asked for
/// it sounds once it is in; a held note keeps sounding across a change.
final class PresetLoadingTests: XCTestCase {
    private let rate = 48_000

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: SamplerTestRig.fluidR3), "FluidR3_GM.sf2 is not installed (fluid-soundfont-gm)")
    }

    /// Waits (on this thread) until the preset at `index` is in memory.
    private func waitUntilResident(_ presets: SoundFontPresets, _ index: Int, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(20)
        while presets.residency(index) != .resident && Date() < deadline { usleep(1_000) }
        XCTAssertEqual(presets.residency(index), .resident, "the loader read the preset", file: file, line: line)
    }

    /// The font's presets are all known; a piano synth reads the piano's
    /// samples and nothing else.
    func testASynthReadsOnlyThePresetsItsChannelsSelect() throws {
        let synth = try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3), sampleRate: 48_000)
        let presets = synth.presets
        XCTAssertGreaterThan(presets.presets.count, 128, "every General MIDI program and the drum kits")
        XCTAssertEqual(presets.presets.first, SoundFontPreset(bank: 0, program: 0, name: "Yamaha Grand Piano"))
        XCTAssertEqual(presets.presets.map { $0.bank << 7 | $0.program }, presets.presets.map { $0.bank << 7 | $0.program }.sorted())
        XCTAssertEqual(presets.residentPresets.map(\.name), ["Yamaha Grand Piano"])
        XCTAssertEqual(presets.totals.presets, 1)
        // What that takes in memory is measured in a fresh process: Tools/bench-play-memory
        // (here, earlier tests' freed pages are reused, and the resident set need not grow).
        XCTAssertEqual(synth.preset(onChannel: 0)?.preset.name, "Yamaha Grand Piano")
        XCTAssertEqual(synth.preset(onChannel: 0)?.loading, false)
        XCTAssertNil(synth.preset(onChannel: 9), "channel 10 is the drum kit's, not the sampler's")
        XCTAssertEqual(presets.index(bank: 0, program: 13).map { presets.presets[$0].name }, "Xylophone")
        XCTAssertNil(presets.index(bank: 3, program: 0))
    }

    /// A sampler that also plays channel 10 (the SoundFont's percussion)
    /// reads its drum kit at that channel's first note, not at start: a
    /// session that sounds no SoundFont drum never holds it. The note waits
    /// for the kit, then sounds.
    func testTheDrumChannelsKitIsReadAtItsFirstNote() throws {
        let synth = try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3), sampleRate: 48_000,
                                     channels: .all)
        let kit = try XCTUnwrap(synth.presets.index(bank: 128, program: 0))
        XCTAssertEqual(synth.presets.residency(kit), .absent, "the kit is not read at start")
        XCTAssertEqual(synth.presets.residentPresets.map(\.name), ["Yamaha Grand Piano"])
        let frames = 4_800
        let left = UnsafeMutablePointer<Float>.allocate(capacity: frames), right = UnsafeMutablePointer<Float>.allocate(capacity: frames)
        defer { left.deallocate(); right.deallocate() }
        func energy() -> Float {
            synth.resumeWaitingChannels()
            synth.render(left: left, right: right, frameCount: frames)
            return (0..<frames).reduce(0) { $0 + left[$1] * left[$1] }
        }
        // A cowbell (GM 56): the first note on channel 10 asks for the kit.
        let pianoOnly = synth.presets.totals
        synth.apply(.noteOn(channel: 9, note: 56, velocity: 110))
        XCTAssertNotEqual(synth.presets.residency(kit), .absent, "the first note asked the loader for the kit")
        waitUntilResident(synth.presets, kit)
        var sounded: Float = 0
        for _ in 0..<10 { sounded = max(sounded, energy()) }
        XCTAssertGreaterThan(sounded, 1e-4, "the cowbell sounded once the kit was in")
        let totals = synth.presets.totals
        print(String(format: "the drum kit read in %.1f ms, %.1f MB (the piano: %.1f ms, %.1f MB)",
                      (totals.seconds - pianoOnly.seconds) * 1000, Double(totals.bytes - pianoOnly.bytes) / 1_048_576,
                      pianoOnly.seconds * 1000, Double(pianoOnly.bytes) / 1_048_576))
        XCTAssertEqual(synth.preset(onChannel: 9)?.preset.isPercussion, true)
        XCTAssertEqual(synth.heldMessagesDropped, 0)
    }

    /// A song's program changes, bank selects and resets are played through
    /// FluidSynth's rules before the song starts: the presets they select
    /// (a fallback from a missing bank included) are read; channel 10's are not.
    func testPreloadReadsThePresetsASongSelects() throws {
        let synth = try SamplerSynth(configuration: SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3), sampleRate: 48_000)
        let read = synth.preload(presetsSelectedBy: [
            .programChange(channel: 1, program: 13),
            .controlChange(channel: 2, controller: 0, value: 99), .programChange(channel: 2, program: 40),  // no bank 99: bank 0's violin
            .programChange(channel: 9, program: 25),  // the drum channel is the kit's
            .noteOn(channel: 1, note: 60, velocity: 100),
        ])
        XCTAssertEqual(read.map(\.program), [13, 40])
        XCTAssertEqual(Set(synth.presets.residentPresets.map(\.program)), [0, 13, 40])
        XCTAssertFalse(synth.presets.residentPresets.contains { $0.isPercussion })
    }

    /// A program change to a preset on disk, rendered on the `audio-render`
    /// thread through the scheduler and the node: no allocation and no free
    /// there, while the loader thread reads the xylophone; its note sounds
    /// once the xylophone is in.
    func testAProgramChangeToAPresetOnDiskAllocatesNothingOnTheRenderThread() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        let rig = try ScriptedNodeRig(SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3, polyphony: 64))
        let (port, node, synth, engine) = (rig.port, rig.node, rig.synth, rig.engine)
        let xylophone = try XCTUnwrap(synth.presets.index(bank: 0, program: 13))
        XCTAssertEqual(synth.presets.residency(xylophone), .absent)

        let frames = 64, blocks = 1_000, warmUp = 16, changeBlock = 100, holdBlock = 300
        let first = Int64((warmUp + changeBlock) * frames)
        XCTAssertTrue(port.send(.programChange(channel: 0, program: 13), at: .sample(first)))
        XCTAssertTrue(port.send(.noteOn(channel: 0, note: 72, velocity: 110), at: .sample(first)))
        XCTAssertTrue(port.send(.controlChange(channel: 0, controller: 7, value: 110), at: .sample(first + 10)))
        XCTAssertTrue(port.send(.noteOff(channel: 0, note: 72, velocity: 0), at: .sample(first + 24_000)))

        let energies = rig.energies(blocks: blocks)
        defer { energies.deallocate() }
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: blocks, frames: frames, inputChannels: 0, outputChannels: 2, warmUpBlocks: warmUp,
            afterEachBlock: { block, output in
                energies[block] = ScriptedNodeRig.energy(output)
                // Hold the render thread here until the xylophone is in, so
                // that its arrival falls inside the counted blocks however
                // fast the rendering runs.
                if block == holdBlock {
                    while synth.presets.residency(xylophone) != .resident { sched_yield() }
                }
            },
            control: { _ in node.collectRetired() })
        print("program change to a preset on disk: \(counts); \(synth.presets.totals.presets) presets in memory")
        XCTAssertEqual(counts.blocks, blocks)
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertEqual(synth.presets.residency(xylophone), .resident)
        let firstSound = (0..<blocks).first { energies[$0] > 0 }
        XCTAssertNotNil(firstSound, "the xylophone's note sounded")
        XCTAssertGreaterThanOrEqual(firstSound ?? 0, changeBlock, "not before it was asked for")
        XCTAssertLessThanOrEqual(firstSound ?? .max, holdBlock + 1, "at the first block after the xylophone was in")
        XCTAssertEqual(synth.preset(onChannel: 0)?.preset.name, "Xylophone")
        XCTAssertEqual(synth.heldMessagesDropped, 0)
        engine.releaseAll()
    }

    /// A preset no channel selects any more is freed once the idle time has
    /// passed with the synth silent, with no allocation and no free on the
    /// render thread (the loader thread frees it); a program change to it
    /// later reads it again, and its note sounds once it is in.
    func testAnIdlePresetIsFreedOffTheRenderThreadAndReadAgainWhenSelected() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        var configuration = SamplerConfiguration(soundFontPath: SamplerTestRig.fluidR3, polyphony: 64)
        configuration.unloadIdlePresetsAfterSeconds = 1
        let rig = try ScriptedNodeRig(configuration)
        let (port, node, synth, engine) = (rig.port, rig.node, rig.synth, rig.engine)
        let xylophone = try XCTUnwrap(synth.presets.index(bank: 0, program: 13))

        // 750 blocks of 64 frames are a second.
        let frames = 64, blocks = 4_500, warmUp = 16
        let loaded = 300, backToPiano = 900, freed = 3_000, again = 3_200, loadedAgain = 3_400
        func at(_ block: Int) -> MIDIEventTime { .sample(Int64((warmUp + block) * frames)) }
        XCTAssertTrue(port.send(.programChange(channel: 0, program: 13), at: at(100)))
        XCTAssertTrue(port.send(.noteOn(channel: 0, note: 72, velocity: 110), at: at(100)))
        XCTAssertTrue(port.send(.noteOff(channel: 0, note: 72, velocity: 0), at: at(400)))
        XCTAssertTrue(port.send(.programChange(channel: 0, program: 0), at: at(backToPiano)))
        XCTAssertTrue(port.send(.programChange(channel: 0, program: 13), at: at(again)))
        XCTAssertTrue(port.send(.noteOn(channel: 0, note: 72, velocity: 110), at: at(again)))

        let energies = rig.energies(blocks: blocks)
        defer { energies.deallocate() }
        var freedAt: SoundFontPresets.Residency = .resident
        let counts = countAllocationsOnRenderThread(
            engine: engine, blocks: blocks, frames: frames, inputChannels: 0, outputChannels: 2, warmUpBlocks: warmUp,
            afterEachBlock: { block, output in
                energies[block] = ScriptedNodeRig.energy(output)
                // Held here (10 s at most) until the loader has done its part, however fast the rendering runs.
                let deadline = Date().addingTimeInterval(10)
                if block == loaded || block == loadedAgain {
                    while synth.presets.residency(xylophone) != .resident && Date() < deadline { sched_yield() }
                }
                if block == freed {
                    while synth.presets.residency(xylophone) != .absent && Date() < deadline { sched_yield() }
                    freedAt = synth.presets.residency(xylophone)
                }
            },
            control: { _ in node.collectRetired() })
        print("an idle preset freed and read again: \(counts); \(synth.presets.totals)")
        XCTAssertEqual(counts.allocations, 0, "allocations on the audio-render thread: \(counts)")
        XCTAssertEqual(counts.frees, 0, "frees on the audio-render thread: \(counts)")
        XCTAssertEqual(freedAt, .absent, "freed within 2.8 s of the piano's return (1 s idle, after the note's release)")
        XCTAssertEqual(synth.presets.totals.unloaded, 1)
        XCTAssertEqual(synth.presets.residency(xylophone), .resident, "read again")
        XCTAssertEqual(synth.presets.residentPresets.map(\.name), ["Yamaha Grand Piano", "Xylophone"])
        let secondSound = (again..<blocks).first { energies[$0] > 0 }
        XCTAssertNotNil(secondSound, "the xylophone's second note sounded")
        XCTAssertLessThanOrEqual(secondSound ?? .max, loadedAgain + 1, "at the first block after the xylophone was in again")
        XCTAssertEqual(synth.heldMessagesDropped, 0)
        engine.releaseAll()
    }

    /// Negative control: the counter sees what this design avoids. A synth
    /// holding the real font with FluidSynth's dynamic sample loading reads
    /// the preset's samples inside `fluid_synth_program_change`, on the
    /// render thread: allocations counted there.
    func testNegativeControlFluidSynthsOwnDynamicLoadingAllocatesOnTheRenderThread() throws {
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting needs Linux/glibc")
        let probe = DynamicLoadingProbeNode(soundFont: SamplerTestRig.fluidR3, changeAtBlock: 20)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(probe)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 40, frames: 64, inputChannels: 0, outputChannels: 2)
        print("FluidSynth's own dynamic loading on the render thread: \(counts)")
        XCTAssertGreaterThan(counts.allocations, 0, "the counter catches a preset read on the render thread")
        engine.releaseAll()
    }

    /// The note that waited for its preset sounds, once it is in, as that
    /// preset: the same samples as a synth configured with the xylophone
    /// from the start plays.
    func testAPresetSoundsOnceItIsIn() throws {
        let rig = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, blockSize: 64)
        let xylophone = try XCTUnwrap(rig.synth.presets.index(bank: 0, program: 13))
        rig.send(.programChange(channel: 0, program: 13), at: 0)
        rig.send(.noteOn(channel: 0, note: 72, velocity: 110), at: 0)
        var waited: [Float] = []
        while rig.synth.presets.residency(xylophone) != .resident {
            waited += rig.renderMono(frames: 64)
            usleep(500)
            if waited.count > 20 * rate { break }
        }
        waitUntilResident(rig.synth.presets, xylophone)
        XCTAssertEqual(waited.map(abs).max() ?? 0, 0, "nothing sounds while the channel waits")
        let played = rig.renderMono(frames: 24_000)

        let reference = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, instrument: .xylophone, blockSize: 64)
        reference.send(.noteOn(channel: 0, note: 72, velocity: 110), at: 0)
        let expected = reference.renderMono(frames: 24_000)
        let playedRMS = samplerRMS(played, 0..<24_000), expectedRMS = samplerRMS(expected, 0..<24_000)
        print("waited \(waited.count) frames; the note's RMS \(playedRMS), the xylophone's from the start \(expectedRMS)")
        XCTAssertGreaterThan(expectedRMS, 0.001)
        // Same preset, same note, both started on FluidSynth's 64-frame grid: the same samples.
        var difference = 0.0
        for i in 0..<24_000 { difference += Double(played[i] - expected[i]) * Double(played[i] - expected[i]) }
        XCTAssertLessThan((difference / 24_000).squareRoot(), expectedRMS * 0.01, "the xylophone, as configured from the start")
    }

    /// A held note keeps sounding, unchanged, across a step to the next
    /// instrument (a bank select and a program change to a preset on disk):
    /// every 10 ms window after the step is within 0.5 dB of the same note
    /// played with no step. The next note plays the new instrument.
    func testAHeldNoteKeepsSoundingAcrossAnInstrumentStep() throws {
        let stepped = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, blockSize: 64)
        let reference = try SamplerTestRig(soundFont: SamplerTestRig.fluidR3, blockSize: 64)
        for rig in [stepped, reference] { rig.send(.noteOn(channel: 0, note: 60, velocity: 100), at: 0) }
        let before = 12_000, after = 24_000
        _ = stepped.renderMono(frames: before)
        _ = reference.renderMono(frames: before)
        let piano = try XCTUnwrap(stepped.synth.preset(onChannel: 0)?.preset)
        let next = try XCTUnwrap(stepped.synth.presets.step(from: piano, by: 1))
        XCTAssertEqual(next.program, 1, "the next preset of bank 0")
        for message in next.selectionMessages(channel: 0) { stepped.send(message, at: stepped.frame) }
        var held: [Float] = []
        while held.count < after {
            held += stepped.renderMono(frames: 64)
            usleep(200)  // let the loader read while the note is held
        }
        let expected = reference.renderMono(frames: after)
        let window = rate / 100
        var worst = 0.0
        for start in stride(from: 0, to: after - window, by: window) {
            let a = samplerRMS(held, start..<start + window), b = samplerRMS(expected, start..<start + window)
            XCTAssertGreaterThan(b, 1e-4, "the reference note still sounds at \(start)")
            worst = max(worst, abs(20 * log10(a / b)))
        }
        print("held note across an instrument step: worst 10 ms window \(worst) dB from the note with no step")
        XCTAssertLessThan(worst, 0.5, "no gap, no cut, no change in the held note")
        let index = try XCTUnwrap(stepped.synth.presets.index(bank: next.bank, program: next.program))
        waitUntilResident(stepped.synth.presets, index)
        _ = stepped.renderMono(frames: 64)
        XCTAssertEqual(stepped.synth.preset(onChannel: 0)?.preset, next)
        XCTAssertEqual(stepped.synth.preset(onChannel: 0)?.loading, false)
        stepped.send(.noteOn(channel: 0, note: 67, velocity: 100), at: stepped.frame)
        let voices = stepped.node.activeVoiceCount
        _ = stepped.renderMono(frames: 4_800)
        XCTAssertGreaterThan(stepped.node.activeVoiceCount, voices, "the next note plays the new instrument")
    }

    /// Stepping goes through the melodic presets in order, wraps at both
    /// ends and never lands on a drum kit.
    func testSteppingWrapsAndSkipsDrumKits() throws {
        let presets = try SoundFontPresets(path: SamplerTestRig.fluidR3)
        let melodic = presets.presets.filter { $0.bank < 128 }
        XCTAssertEqual(presets.step(from: melodic[0], by: -1), melodic.last)
        XCTAssertEqual(presets.step(from: melodic.last, by: 1), melodic[0])
        XCTAssertEqual(presets.step(from: melodic[3], by: 2), melodic[5])
        XCTAssertEqual(presets.step(from: nil, by: 1), melodic[0])
        var current = melodic[0]
        for _ in 0..<presets.presets.count {
            current = try XCTUnwrap(presets.step(from: current, by: 1))
            XCTAssertFalse(current.isPercussion)
        }
        XCTAssertEqual(presets.totals.presets, 0, "listing reads no samples")
        XCTAssertEqual(melodic[5].selectionMessages(channel: 2).last, .programChange(channel: 2, program: UInt8(melodic[5].program)))
    }
}

/// A sampler node on an engine of 64-frame blocks, fed by a MIDI port
/// through the scheduler: the render-thread tests' script and stage.
private struct ScriptedNodeRig {
    let port = MIDIInputPort(name: "script")
    let scheduler: MIDIScheduler
    let node: SamplerNode
    let synth: SamplerSynth
    let engine = RenderEngine()

    init(_ configuration: SamplerConfiguration) throws {
        scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        node = SamplerNode(events: scheduler.events, sampleRate: 48_000)
        synth = try node.load(configuration)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
        engine.attach(scheduler)
    }

    /// Zeroed storage for each block's energy (the caller deallocates it).
    func energies(blocks: Int) -> UnsafeMutablePointer<Float> {
        let energies = UnsafeMutablePointer<Float>.allocate(capacity: blocks)
        energies.initialize(repeating: 0, count: blocks)
        return energies
    }

    /// The sum of squares of a block's left channel.
    static func energy(_ output: AudioBlock) -> Float {
        var energy: Float = 0
        for i in 0..<output.frameCount { energy += output[0][i] * output[0][i] }
        return energy
    }
}

/// A node that holds the real font in a FluidSynth synth with dynamic sample
/// loading and selects an unread preset from its render: what Busker's
/// sampler must never do, for the allocation counter's negative control.
private final class DynamicLoadingProbeNode: AudioNode, @unchecked Sendable {
    private let settings: OpaquePointer
    private let synth: OpaquePointer
    private let changeAtBlock: Int
    private var block = 0

    init(soundFont: String, changeAtBlock: Int) {
        settings = new_fluid_settings()
        _ = fluid_settings_setint(settings, "synth.dynamic-sample-loading", 1)
        _ = fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        _ = fluid_settings_setint(settings, "synth.verbose", 0)
        synth = new_fluid_synth(settings)
        _ = fluid_synth_sfload(synth, soundFont, 1)
        self.changeAtBlock = changeAtBlock
        super.init(name: "dynamic loading probe")
    }

    deinit {
        delete_fluid_synth(synth)
        delete_fluid_settings(settings)
    }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        block += 1
        // Counting starts after 16 warm-up blocks.
        if block == 16 + changeAtBlock { _ = fluid_synth_program_change(synth, 0, 13) }
        _ = fluid_synth_write_float(synth, Int32(output.frameCount), output[0], 0, 1, output[1], 0, 1)
    }
}
