import Engine
import Foundation
import MIDI
import Recording
import Sequencing
import XCTest

/// A gate: 1 while any note is held, from the frame of its note-on.
private final class NoteGate: AudioNode {
    private let events: MIDIEventBuffer
    private var held = 0
    init(events: MIDIEventBuffer) {
        self.events = events
        super.init(name: "gate")
    }
    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }
    /// - Realtime: safe.
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        var frame = 0
        for index in 0..<events.count {
            let event = events[index]
            while frame < event.offset { output[0][frame] = held > 0 ? 1 : 0; frame += 1 }
            if case .noteOn(_, _, let v) = event.message, v > 0 { held += 1 }
            if event.message.isNoteOff { held = max(0, held - 1) }
        }
        while frame < output.frameCount { output[0][frame] = held > 0 ? 1 : 0; frame += 1 }
    }
}

/// The MIDI written alongside a take lines up with the take's audio.
final class MIDITakeTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("midi") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    func testTheSMFHasTheEventsAtTheirTimes() throws {
        let events = [
            RecordedMIDIEvent(frame: 48_000, message: .noteOn(channel: 0, note: 60, velocity: 100)),
            RecordedMIDIEvent(frame: 0, message: .programChange(channel: 0, program: 13)),
            RecordedMIDIEvent(frame: 72_000, message: .noteOff(channel: 0, note: 60, velocity: 0)),
            RecordedMIDIEvent(frame: 72_000, message: .timingClock),  // not a performance event: left out
        ]
        let file = try StandardMIDIFile(bytes: MIDITakeFile.bytes(events: events, sampleRate: 48000), mode: .strict)
        XCTAssertEqual(file.format, .singleTrack)
        let timed = file.timedEvents(ofTrack: 0).compactMap { e -> (Double, MIDIMessage)? in
            if case .message(let m) = e.kind { return (e.seconds, m) }
            return nil
        }
        XCTAssertEqual(timed.map(\.1), [.programChange(channel: 0, program: 13), .noteOn(channel: 0, note: 60, velocity: 100),
                                        .noteOff(channel: 0, note: 60, velocity: 0)])
        XCTAssertEqual(timed.map(\.0), [0, 1, 1.5])
    }

    /// Notes stamped at engine frames drive a gate; the recorded WAV's edges
    /// and the recorded MIDI file's note times are the same frames, with and
    /// without a latency between the instruments and the tap.
    func testTheMIDIFileIsAlignedWithTheAudio() throws {
        for latency in [0, 50] {
            let port = MIDIInputPort(name: "test")
            let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
            let graph = AudioGraph(inputChannelCount: 0)
            let gate = graph.add(NoteGate(events: scheduler.events))
            // A pure delay of `latency` frames stands in for the limiter's look-ahead.
            let delay = graph.add(DelayNode(frames: latency))
            try graph.connect(gate, to: delay)
            graph.output = delay
            let tap = RecordingTap(channelCount: 1, sampleRate: 48000, midiEvents: scheduler.events)
            try tap.install(atEndOf: graph)
            let engine = RenderEngine()
            engine.attach(scheduler)
            engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
            let take = folder + "/take-\(latency).wav", mid = folder + "/take-\(latency).mid"
            var options = Recorder.Options()
            options.midiPath = mid
            options.midiLatencyFrames = latency
            let recorder = try Recorder.start(tap: tap, path: take, format: .wavFloat, sampleRate: 48000, options: options)
            let onsets = [1000, 2525, 7000], ends = [2000, 4000, 9000]
            for (on, off) in zip(onsets, ends) {
                _ = port.send(.noteOn(channel: 0, note: 64, velocity: 90), at: .sample(Int64(on)))
                _ = port.send(.noteOff(channel: 0, note: 64, velocity: 0), at: .sample(Int64(off)))
            }
            let output = AudioBuffer(channelCount: 1, capacity: 64)
            for _ in 0..<(12_000 / 64) { engine.render(input: nil, output: output.block(frames: 64)) }
            let report = recorder.stop(audioHasStopped: true)
            XCTAssertEqual(report.midiEvents, 6)
            let audio = try readSoundFile(take).samples
            var rising: [Int] = [], falling: [Int] = []
            for i in 1..<audio.count {
                if audio[i] > 0.5 && audio[i - 1] < 0.5 { rising.append(i) }
                if audio[i] < 0.5 && audio[i - 1] > 0.5 { falling.append(i) }
            }
            XCTAssertEqual(rising, onsets.map { $0 + latency }, "latency \(latency)")
            XCTAssertEqual(falling, ends.map { $0 + latency }, "latency \(latency)")
            let file = try StandardMIDIFile(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: mid))), mode: .strict)
            var midiOn: [Int] = [], midiOff: [Int] = []
            for e in file.timedEvents(ofTrack: 0) {
                guard case .message(let m) = e.kind else { continue }
                let frame = Int((e.seconds * 48000).rounded())
                if m.isNoteOff { midiOff.append(frame) } else if case .noteOn = m { midiOn.append(frame) }
            }
            // 1920 ticks a second: 25 frames a tick at 48 kHz, so these frames are exact.
            XCTAssertEqual(midiOn, rising, "MIDI note-ons on the audio's edges, latency \(latency)")
            XCTAssertEqual(midiOff, falling, "latency \(latency)")
            engine.releaseAll()
        }
    }
}

/// Delays its input by a fixed number of frames (mono).
private final class DelayNode: AudioNode {
    private let frames: Int
    private var line: [Float]
    private var position = 0
    init(frames: Int) {
        self.frames = frames
        line = [Float](repeating: 0, count: max(1, frames))
        super.init(name: "delay")
    }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 1 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        for i in 0..<output.frameCount {
            if frames == 0 { output[0][i] = input[0][i]; continue }
            output[0][i] = line[position]
            line[position] = input[0][i]
            position = (position + 1) % frames
        }
    }
}
