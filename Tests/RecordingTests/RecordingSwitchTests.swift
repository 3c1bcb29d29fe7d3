import Engine
import Foundation
import Recording
import XCTest

/// Flips a record switch from inside the plan, between two taps' renders:
/// the worst moment a control thread could pick, made deterministic.
private final class SwitchFlipper: AudioNode {
    let recordSwitch: RecordingSwitch
    let flips: [Int: Bool]
    private var block = 0
    init(_ recordSwitch: RecordingSwitch, flips: [Int: Bool]) {
        self.recordSwitch = recordSwitch
        self.flips = flips
        super.init(name: "flipper")
    }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        if let on = flips[block] { recordSwitch.set(on) }
        block += 1
        guard let input = inputs.connectedBus0 else { output.clear(); return }
        output.copy(from: input)
    }
}

/// A master tap and a stem tap on one switch start and stop on the same
/// block, even when the switch flips half-way through a block.
final class RecordingSwitchTests: XCTestCase {
    func testTapsSharingASwitchStartAndStopOnTheSameBlock() throws {
        let folder = try makeTemporaryFolder("switch")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let recordSwitch = RecordingSwitch()
        // input → stem tap → flipper → master tap: the stem renders before the flip, the master after.
        let graph = AudioGraph(inputChannelCount: 1)
        let stem = RecordingTap(name: "stem", channelCount: 1, sampleRate: 48000, recordSwitch: recordSwitch)
        let master = RecordingTap(name: "master", channelCount: 1, sampleRate: 48000, recordSwitch: recordSwitch)
        let stemID = graph.add(stem)
        let flipID = graph.add(SwitchFlipper(recordSwitch, flips: [10: true, 30: false]))
        try graph.connect(graph.input, to: stemID)
        try graph.connect(stemID, to: flipID)
        graph.output = flipID
        try master.install(atEndOf: graph)
        let engine = RenderEngine()
        engine.install(try graph.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
        var stemOptions = Recorder.Options()
        stemOptions.startsTake = false
        let stemRecorder = try Recorder.start(tap: stem, path: folder + "/stem.wav", format: .wavFloat, sampleRate: 48000, options: stemOptions)
        // The master's recorder would arm at once; leave the arming to the flipper.
        var masterOptions = Recorder.Options()
        masterOptions.startsTake = false
        let masterRecorder = try Recorder.start(tap: master, path: folder + "/master.wav", format: .wavFloat, sampleRate: 48000, options: masterOptions)
        // The input counts frames, so a file's first sample says where it started.
        let input = AudioBuffer(channelCount: 1, capacity: 64), output = AudioBuffer(channelCount: 1, capacity: 64)
        for block in 0..<50 {
            for i in 0..<64 { input[0][i] = Float(block * 64 + i) }
            engine.render(input: input.block(frames: 64), output: output.block(frames: 64))
        }
        let a = masterRecorder.stop(audioHasStopped: true), b = stemRecorder.stop(audioHasStopped: true)
        XCTAssertEqual(a.frames, 20 * 64)
        XCTAssertEqual(b.frames, 20 * 64, "the stem has the master's length")
        let masterSamples = try readSoundFile(folder + "/master.wav").samples
        let stemSamples = try readSoundFile(folder + "/stem.wav").samples
        XCTAssertEqual(masterSamples.first, Float(11 * 64), "the flip in block 10 starts the take at block 11")
        XCTAssertEqual(stemSamples, masterSamples, "sample-aligned")
        engine.releaseAll()
    }
}
