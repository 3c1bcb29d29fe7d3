import ALSA
import CAllocationCounter
import Chains
import CommandLineInterface
import Control
import Engine
import Foundation
import Sessions
import Sequencing
import Synchronization
import XCTest

/// MIDI control of `busker live` keeps the render thread free of allocation:
/// a controller (`MIDIControllerRehearsal`: footswitch presses and fader moves
/// through a FIFO, parsed on the `midi-in` thread, applied by this test's
/// control loop as `LiveSession`'s does) plays while the live driver renders
/// on real ALSA PCMs (`null`, as fast as it goes).
final class LiveMIDIControlAllocationTests: XCTestCase {
    func testTheRenderThreadDoesNotAllocateWhileMIDIControlMessagesFlow() throws {
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
        let driver = try DuplexDriver(options: options, stopAfterFrames: 48000 * 3600)  // a cap: the test stops it
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2", "--reverb", "30", "--gate", "--compressor"])
        let chain = try LiveChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings)
        let controller = try MIDIControllerRehearsal()
        defer { controller.stop() }
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        defer {
            driver.close()
            engine.releaseAll()
        }

        // `null` runs faster than real time: count at least 5 s of audio and 2 s of MIDI.
        func waitFor(frames: Int, seconds: Double) {
            let until = Date().addingTimeInterval(seconds)
            while (driver.framesProcessed < frames || Date() < until) && driver.stopReason == nil {
                controller.pump(settings: &settings, chain: chain, engine: engine)
                usleep(1000)
            }
        }
        waitFor(frames: 48000, seconds: 0.5)
        XCTAssertGreaterThan(probe.countSeen.load(ordering: .relaxed), 0, "the counter catches an allocation on the render thread")
        busker_allocation_counts_reset()
        let start = driver.framesProcessed
        let delivered = controller.delivered
        controller.resetCounts()
        waitFor(frames: start + 48000 * 5, seconds: 2)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        let counted = driver.framesProcessed - start
        let messages = controller.delivered - delivered
        let micToggles = controller.micToggles, settingsChanges = controller.settingsChanges
        driver.stop()
        print("MIDI control while counting: \(messages) messages, \(micToggles) mic toggles, \(settingsChanges) settings applied, \(counted) frames")
        XCTAssertGreaterThanOrEqual(counted, 48000 * 5, "the loop kept running (stop reason: \(String(describing: driver.stopReason)))")
        XCTAssertGreaterThan(messages, 100, "MIDI messages flowed")
        XCTAssertGreaterThan(micToggles, 2, "the footswitch toggled the mic")
        XCTAssertGreaterThan(settingsChanges, 10, "the faders moved the settings")
        XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
        XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
    }
}
