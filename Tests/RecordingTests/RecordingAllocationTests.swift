import CAllocationCounter
import Engine
import Foundation
import Recording
import RenderTestSupport
import Sequencing
import XCTest

/// The tap on the "audio-render" thread, with a take being written (and MIDI
/// recorded) by the writer thread at the same time: no allocation, no free,
/// whether the ring keeps up or overflows.
final class RecordingAllocationTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws { folder = try makeTemporaryFolder("alloc") }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func makeEngine(ringSeconds: Double) throws -> (RenderEngine, RecordingTap, MIDIInputPort) {
        let port = MIDIInputPort(name: "test")
        let scheduler = MIDIScheduler(ports: [port], watchdogSeconds: 0)
        let tap = RecordingTap(channelCount: 2, sampleRate: 48000, ringSeconds: ringSeconds, midiEvents: scheduler.events)
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try passThroughPlan(tap: tap, inputChannels: 2, spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 64)))
        return (engine, tap, port)
    }

    func testRecordingDoesNotAllocateOnTheRenderThread() throws {
        let (engine, tap, port) = try makeEngine(ringSeconds: 4)
        var options = Recorder.Options()
        options.midiPath = folder + "/take.mid"
        let recorder = try Recorder.start(tap: tap, path: folder + "/take.wav", format: .wav24, sampleRate: 48000, options: options)
        // Two notes stamped with engine frames inside the counted blocks (after the
        // harness's 16 warm-up blocks): MIDI is recorded while counting even when the
        // control thread below gets no CPU before the render thread is done.
        XCTAssertTrue(port.send(.noteOn(channel: 0, note: 64, velocity: 90), at: .sample(2048)))
        XCTAssertTrue(port.send(.noteOff(channel: 0, note: 64, velocity: 0), at: .sample(4096)))
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 3000, frames: 64, inputChannels: 2, outputChannels: 2) { i in
            if i % 50 == 0 { _ = port.send(.noteOn(channel: 0, note: 60, velocity: 100)) }
            if i % 50 == 25 { _ = port.send(.noteOff(channel: 0, note: 60, velocity: 0)) }
            _ = recorder.status
        }
        let report = recorder.stop()
        XCTAssertNil(report.error)
        XCTAssertGreaterThanOrEqual(report.frames, 3000 * 64, "the counted blocks are in the file")
        XCTAssertGreaterThanOrEqual(report.midiEvents, 2, "the two notes stamped inside the counted blocks were recorded alongside")
        engine.releaseAll()
    }

    func testOverflowingDoesNotAllocateOnTheRenderThread() throws {
        let (engine, tap, _) = try makeEngine(ringSeconds: 0.01)
        let gate = DispatchSemaphore(value: 0)
        var options = Recorder.Options()
        options.calls = .slowDisk(gate: gate)
        let recorder = try Recorder.start(tap: tap, path: folder + "/slow.wav", format: .wav16, sampleRate: 48000, options: options)
        assertNoAllocationsOnRenderThread(engine: engine, blocks: 3000, frames: 64, inputChannels: 2, outputChannels: 2)
        gate.signal()
        let report = recorder.stop()
        XCTAssertGreaterThan(report.droppedFrames, 0, "the ring overflowed while counting")
        engine.releaseAll()
    }

    /// The harness sees an allocation made inside the counted render loop.
    func testNegativeControlAnAllocationNextToTheTapIsCaught() throws {
        let (engine, tap, _) = try makeEngine(ringSeconds: 4)
        let recorder = try Recorder.start(tap: tap, path: folder + "/control.wav", format: .wav24, sampleRate: 48000)
        let counts = countAllocationsOnRenderThread(engine: engine, blocks: 100, frames: 64, inputChannels: 2, outputChannels: 2,
                                                    afterEachBlock: { block, _ in if block == 0 { recordingAllocationSink = malloc(16) } })
        free(recordingAllocationSink)
        recorder.stop()
        try XCTSkipUnless(busker_allocation_counting_supported() != 0, "allocation counting unavailable")
        XCTAssertGreaterThanOrEqual(counts.allocations, 1, "\(counts)")
        engine.releaseAll()
    }
}

/// Where the negative control's allocation goes, so the optimizer cannot remove it.
nonisolated(unsafe) private var recordingAllocationSink: UnsafeMutableRawPointer?
