import Engine
import Instruments
import MIDI
import Sequencing
import XCTest

// Instrument fixtures shared by the instrument tests and the howl guard's
// false-alarm tests: a sampler rendered through the engine, and a drum kit
// node driven block by block.

/// Renders a `SamplerNode` offline, as the drivers do: a graph holding the
/// node, a `RenderEngine` with a `MIDIScheduler` attached, and one MIDI port
/// whose events are stamped with engine frames, so each lands on its frame.
public final class SamplerTestRig {
    public static let smallFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"
    public static let fluidR3 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"

    public let port = MIDIInputPort(name: "test")
    public let scheduler: MIDIScheduler
    public let node: SamplerNode
    /// The synth the node plays (loaded at init).
    public let synth: SamplerSynth
    public let engine = RenderEngine()
    public let sampleRate: Double
    public let blockSize: Int
    private let buffer: AudioBuffer
    /// Engine frames rendered so far.
    public private(set) var frame: Int64 = 0

    public init(soundFont: String = SamplerTestRig.smallFont, instrument: SamplerInstrument = .piano,
         polyphony: Int = SamplerConfiguration.defaultPolyphony, channels: SamplerChannelSet = .melodic,
         blockSize: Int = 256, maximumBlockSize: Int = 512, sampleRate: Double = 48_000,
         preloading programs: [Int] = []) throws {
        self.sampleRate = sampleRate
        self.blockSize = blockSize
        scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        node = SamplerNode(events: scheduler.events, sampleRate: sampleRate, channels: channels)
        synth = try node.load(SamplerConfiguration(soundFontPath: soundFont, instrument: instrument, polyphony: polyphony))
        // Programs a test changes to, read now as a song's would be, so that their notes are on time.
        synth.preload(presetsSelectedBy: programs.map { MIDIMessage.programChange(channel: 0, program: UInt8($0)) })
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: sampleRate, maximumBlockSize: maximumBlockSize)))
        engine.attach(scheduler)
        buffer = AudioBuffer(channelCount: 2, capacity: blockSize)
    }

    /// Queues `message` for engine frame `at` (events must be queued in time order).
    public func send(_ message: MIDIMessage, at frame: Int64) {
        XCTAssertTrue(port.send(message, at: .sample(frame)))
    }

    /// Renders `frames` more frames; returns left and right.
    public func render(frames: Int) -> (left: [Float], right: [Float]) {
        var left = [Float](), right = [Float]()
        left.reserveCapacity(frames)
        right.reserveCapacity(frames)
        var remaining = frames
        while remaining > 0 {
            let n = min(blockSize, remaining)
            let block = buffer.block(frames: n)
            engine.render(input: nil, output: block)
            left += UnsafeBufferPointer(start: block[0], count: n)
            right += UnsafeBufferPointer(start: block[1], count: n)
            remaining -= n
            frame += Int64(n)
        }
        node.collectRetired()
        return (left, right)
    }

    /// Renders `frames` frames and returns the mono sum (left + right) / 2.
    public func renderMono(frames: Int) -> [Float] {
        let (l, r) = render(frames: frames)
        return zip(l, r).map { ($0 + $1) / 2 }
    }

    deinit { engine.releaseAll() }
}

/// Drives a `DrumKitNode` as the engine does: MIDI through a real port and
/// `MIDIScheduler`, stamped with sample times, rendered block by block.
public final class DrumRenderHarness {
    public let port = MIDIInputPort(name: "test")
    public let scheduler: MIDIScheduler
    public let node: DrumKitNode
    public let maximumBlockSize: Int
    private let output: AudioBuffer
    private var time: Int64 = 0

    public init(kit: DrumKit, maximumBlockSize: Int = 64, channel: UInt8? = GeneralMIDI.percussionChannel) {
        scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        node = DrumKitNode(events: scheduler.events, channel: channel)
        self.maximumBlockSize = maximumBlockSize
        node.allocate(spec: ProcessSpec(sampleRate: kit.sampleRate, maximumBlockSize: maximumBlockSize),
                      inputChannelCounts: [], outputChannelCount: 2)
        node.reset()
        try! node.install(kit)
        output = AudioBuffer(channelCount: 2, capacity: maximumBlockSize)
    }

    /// Queues `message` for the absolute frame `frame` (send in time order).
    public func send(_ message: MIDIMessage, at frame: Int) {
        XCTAssertTrue(port.send(message, at: .sample(Int64(frame))))
    }

    /// Renders `frames` more frames in blocks of `blockSize`, calling `afterBlock` after each.
    public func render(frames: Int, blockSize: Int? = nil, afterBlock: (DrumKitNode) -> Void = { _ in }) -> (left: [Float], right: [Float]) {
        let size = min(blockSize ?? maximumBlockSize, maximumBlockSize)
        var left: [Float] = [], right: [Float] = []
        left.reserveCapacity(frames)
        right.reserveCapacity(frames)
        var done = 0
        while done < frames {
            let n = min(size, frames - done)
            scheduler.beginCycle(sampleTime: time, frameCount: n, sampleRate: 48_000, hostTime: 0)
            node.render(inputs: UnsafeBufferPointer(start: nil, count: 0), output: output.block(frames: n))
            left += UnsafeBufferPointer(start: output[0], count: n)
            right += UnsafeBufferPointer(start: output[1], count: n)
            afterBlock(node)
            time += Int64(n)
            done += n
        }
        return (left, right)
    }
}

/// A `DrumKitNode` installed in a `RenderEngine` as the drivers run it: a
/// graph holding only the node, compiled for 48 kHz and 64-frame blocks,
/// its `MIDIScheduler` attached, fed by one port the control thread plays.
/// For tests that run the engine on a render thread of their own.
public final class DrumKitEngineRig {
    public let port = MIDIInputPort(name: "control")
    public let scheduler: MIDIScheduler
    public let engine = RenderEngine()
    public let node: DrumKitNode

    public init() throws {
        scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        engine.attach(scheduler)
        node = DrumKitNode(events: scheduler.events)
        let graph = AudioGraph(inputChannelCount: 0)
        graph.output = graph.add(node)
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48_000, maximumBlockSize: 64)))
    }
}
