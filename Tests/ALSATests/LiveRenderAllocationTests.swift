import ALSA
import CAllocationCounter
import Chains
import CommandLineInterface
import Engine
import Foundation
import Sessions
import Sequencing
import Synchronization
import XCTest

/// The live driver's render thread, running the whole live chain (two strips,
/// every stage on) on real
/// ALSA PCMs (`null`: zeros in, everything taken out, as fast as it goes),
/// allocates nothing in steady state; nor does it in playback-only mode,
/// running the instruments' chain with MIDI arriving.
final class LiveRenderAllocationTests: XCTestCase {
    func testDuplexLoopWithTwoStripsAndEveryStageOnDoesNotAllocate() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        var options = DuplexDriver.Options(device: "null")
        options.periodFrames = 64
        options.realtimePriority = nil
        options.lockMemory = false
        // Negative control built in: the render thread allocates as it starts,
        // after counting begins, so a counter that never switched on for it shows.
        let probe = AllocationProbe()
        options.calls = PCMCalls.live.withRenderThreadStart {
            busker_allocation_counting_begin()
            probe.allocateOnce()
            probe.countSeen.store(busker_allocation_count(), ordering: .relaxed)
        }
        let driver = try DuplexDriver(options: options, stopAfterFrames: 48000 * 30)
        XCTAssertEqual(driver.granted.capture?.channels, 2)
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2", "--gain", "3", "--bass", "6", "--treble", "3", "--boost", "6",
                                                      "--reverb", "30", "--gate", "--compressor", "--voice-processing",
                                                      "--strip", "1:pan=-0.5", "--strip", "2:pan=0.5", "--room", "hall"])
        let chain = try LiveChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings)
        XCTAssertEqual(chain.strips.count, 2)
        XCTAssertNotNil(chain.strips[1].voiceProcessor)
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        defer {
            driver.close()
            engine.releaseAll()
        }
        // Warm up, then count a stretch of steady state while the control
        // thread keeps turning knobs.
        func waitFor(frames: Int) {
            var i = 0
            while driver.framesProcessed < frames && driver.stopReason == nil {
                settings.strips[0].bassDB = Float(i % 25) - 12
                settings.strips[1].reverbSendPercent = Float(i % 100)
                settings.strips[1].pan = Float(i % 21) / 10 - 1
                settings.strips[i % 2].mute = (i / 7) % 2 == 1
                chain.apply(settings)
                chain.micOn = (i / 11) % 3 != 0
                engine.collectRetiredPlans()
                i += 1
                usleep(200)
            }
        }
        waitFor(frames: 48000)
        XCTAssertGreaterThan(probe.countSeen.load(ordering: .relaxed), 0, "the counter catches an allocation on the render thread")
        busker_allocation_counts_reset()
        let start = driver.framesProcessed
        waitFor(frames: start + 48000 * 5)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        let counted = driver.framesProcessed - start
        driver.stop()
        XCTAssertGreaterThanOrEqual(counted, 48000 * 5, "the loop kept running (stop reason: \(String(describing: driver.stopReason)))")
        XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
        XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
    }

    /// Playback only (`busker play`'s loop): the instruments' chain (mixer,
    /// EQ, reverb, limiter, meter) over a looping source, a MIDI scheduler
    /// taking notes every cycle, knobs turning, on `null` as fast as it goes.
    func testPlaybackOnlyLoopWithTheInstrumentChainDoesNotAllocate() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        var options = DuplexDriver.Options(playback: "null")
        options.periodFrames = 64
        options.realtimePriority = nil
        options.lockMemory = false
        let probe = AllocationProbe()
        options.calls = PCMCalls.live.withRenderThreadStart {
            busker_allocation_counting_begin()
            probe.allocateOnce()
            probe.countSeen.store(busker_allocation_count(), ordering: .relaxed)
        }
        let driver = try DuplexDriver(options: options, stopAfterFrames: 48000 * 30)
        XCTAssertTrue(driver.granted.isPlaybackOnly)
        var settings = VoiceSettings()
        settings.bassDB = 6
        settings.reverbPercent = 30
        settings.room = .hall
        let source = SampleSequenceNode(samples: ALSATestSupport.testSignal(frames: 4800), looping: true)
        let chain = try InstrumentChain(sources: [source], settings: settings)
        let port = MIDIInputPort(name: "test keyboard")
        let scheduler = MIDIScheduler(ports: [port])
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        defer {
            driver.close()
            engine.releaseAll()
        }
        func waitFor(frames: Int) {
            var i = 0
            while driver.framesProcessed < frames && driver.stopReason == nil {
                settings.bassDB = Float(i % 25) - 12
                settings.reverbPercent = Float(i % 100)
                chain.apply(settings)
                let note = UInt8(48 + i % 24)
                _ = port.send(i % 2 == 0 ? .noteOn(channel: 0, note: note, velocity: 100)
                                         : .noteOff(channel: 0, note: note, velocity: 0))
                engine.collectRetiredPlans()
                i += 1
                usleep(200)
            }
        }
        waitFor(frames: 48000)
        XCTAssertGreaterThan(probe.countSeen.load(ordering: .relaxed), 0, "the counter catches an allocation on the render thread")
        busker_allocation_counts_reset()
        let start = driver.framesProcessed
        waitFor(frames: start + 48000 * 5)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        let counted = driver.framesProcessed - start
        driver.stop()
        XCTAssertGreaterThanOrEqual(counted, 48000 * 5, "the loop kept running (stop reason: \(String(describing: driver.stopReason)))")
        XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
        XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
    }
}
