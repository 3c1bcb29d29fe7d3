import ALSA
import CAllocationCounter
import Engine
import Foundation
import Rig
import Sequencing
import Synchronization
import XCTest

/// MIDI control of `busker live` keeps the render thread free of allocation:
/// a writer streams footswitch presses and fader moves into a FIFO, the
/// `midi-in` thread parses them, the control thread (this test, as
/// `LiveSession`'s loop does) drains the ports through `LiveMIDIControl` and
/// applies the settings and the mic switch to the live chain, while the live
/// driver renders on real ALSA PCMs (`null`, as fast as it goes).
final class LiveMIDIControlAllocationTests: XCTestCase {
    func testTheRenderThreadDoesNotAllocateWhileMIDIControlMessagesFlow() throws {
        try XCTSkipIf(busker_allocation_counting_supported() == 0, "no allocation counter on this platform")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("busker-midictl-alloc-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("midi.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)

        var options = DuplexDriver.Options(device: "null")
        options.periodFrames = 64
        options.realtimePriority = nil
        options.lockMemory = false
        options.stopAfterFrames = 48000 * 3600  // a cap: the test stops it
        // Negative control built in: the render thread allocates as it starts,
        // after counting begins, so a counter that never switched on for it shows.
        let probe = AllocationProbe()
        options.calls = PCMCalls.live.withRenderThreadStart {
            busker_allocation_counting_begin()
            probe.allocateOnce()
            probe.countSeen.store(busker_allocation_count(), ordering: .relaxed)
        }
        let driver = try DuplexDriver(options: options)
        var settings = try LiveSettings(commandLine: ["--inputs", "1,2", "--reverb", "30", "--gate", "--compressor"])
        let chain = try LiveChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings)
        var map = MIDIControlMap.defaults
        map.bind(.cc(10), to: .pan(strip: 2))
        map.bind(.note(36), to: .mute(strip: 2))
        let midi = try LiveMIDIControl(midi: "none", midiIn: fifo, map: map)
        midi.start()
        defer { midi.stop() }
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: driver.processSpec))
        try driver.start(engine: engine)
        defer {
            driver.close()
            engine.releaseAll()
        }

        // The controller: presses, pads and fader sweeps, about 1500 messages a second.
        // Plain write(2), and SIGPIPE ignored: the reader may close first.
        signal(SIGPIPE, SIG_IGN)
        let writing = Atomic<Bool>(true)
        let writerDone = DispatchSemaphore(value: 0)
        let writer = Thread {
            defer { writerDone.signal() }
            let fd = open(fifo, O_WRONLY)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var i = 0
            while writing.load(ordering: .relaxed) {
                let sweep = UInt8(abs(i % 254 - 127))
                var bytes: [UInt8] = [0xB0, 7, sweep, 0xB0, 91, sweep, 0xB0, 10, 127 - sweep]
                if i % 20 == 0 { bytes += [0xB0, 64, 127] }
                if i % 20 == 10 { bytes += [0xB0, 64, 0] }
                if i % 30 == 0 { bytes += [0x99, 36, 100, 0x89, 36, 0] }
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                i += 1
                usleep(2000)
            }
        }
        writer.start()
        defer {
            writing.store(false, ordering: .relaxed)
            writerDone.wait()
        }

        var micToggles = 0, settingsChanges = 0
        // `null` runs faster than real time: count at least 5 s of audio and 2 s of MIDI.
        func waitFor(frames: Int, seconds: Double) {
            let until = Date().addingTimeInterval(seconds)
            while (driver.framesProcessed < frames || Date() < until) && driver.stopReason == nil {
                let changes = midi.poll(settings: &settings, micOn: chain.micOn)
                if changes.toggleMic {
                    chain.micOn.toggle()
                    micToggles += 1
                }
                if changes.settingsChanged {
                    chain.apply(settings)
                    settingsChanges += 1
                }
                _ = midi.takeActionLines()
                engine.collectRetiredPlans()
                usleep(1000)
            }
        }
        waitFor(frames: 48000, seconds: 0.5)
        XCTAssertGreaterThan(probe.countSeen.load(ordering: .relaxed), 0, "the counter catches an allocation on the render thread")
        busker_allocation_counts_reset()
        let start = driver.framesProcessed
        let delivered = midi.sources.ports.map(\.deliveredCount).reduce(0, +)
        micToggles = 0
        settingsChanges = 0
        waitFor(frames: start + 48000 * 5, seconds: 2)
        let allocations = busker_allocation_count(), frees = busker_free_count()
        let counted = driver.framesProcessed - start
        let messages = midi.sources.ports.map(\.deliveredCount).reduce(0, +) - delivered
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
