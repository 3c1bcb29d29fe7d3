import ALSA
import CAllocationCounter
import Chains
import CHostStallProbe
import Engine
import Foundation
import Instruments
import RenderTestSupport
import Sessions
import Sequencing
import XCTest

/// Playback-only mode in real time on Tools/virtual-soundcard (JACK's dummy
/// driver keeps time like a sound card; `busker_out` is an ALSA PCM of type
/// jack). On `null` the loop runs flat out; here the device paces it. Skipped
/// where JACK or the ALSA jack plugin is not installed.
final class PlaybackOnlyJackTests: XCTestCase {
    private var card: VirtualSoundCardFixture?

    override func setUpWithError() throws {
        card = try VirtualSoundCardFixture(name: "busker-po-test")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    /// Two seconds of the instruments' chain at 64-frame periods: every xrun
    /// recovered and the loop keeping up (the host's CPU stalls cause some
    /// xruns, `XrunAttribution`), no stall, no heap allocation on the render thread, and the loop
    /// waits for the device instead of running ahead of it (rendering two
    /// seconds cannot finish sooner than the device plays them, less the
    /// buffer it may be ahead by).
    func testTwoSecondsPacedByTheDeviceKeepUpWithoutAllocations() throws {
        var o = DuplexDriver.Options(playback: "busker_out")
        o.configuration = .extending(try XCTUnwrap(card).asoundrc())
        o.periodFrames = 64
        o.periodCount = 2
        o.calls = PCMCalls.live.withRenderThreadStart { busker_allocation_counting_begin() }
        let driver = try DuplexDriver(options: o, stopAfterFrames: 2 * 48000)
        print("virtual sound card granted, playback only: \(driver.granted)")
        XCTAssertTrue(driver.granted.isPlaybackOnly)
        XCTAssertEqual(driver.granted.sampleRate, 48000)
        XCTAssertEqual(driver.granted.periodFrames, 64)
        XCTAssertEqual(driver.granted.outputLatencyFrames, 128)

        var settings = VoiceSettings()
        settings.reverbPercent = 30
        let source = SampleSequenceNode(samples: ALSATestSupport.testSignal(frames: 4800), looping: true)
        let chain = try InstrumentChain(sources: [source], settings: settings, limiterLookaheadMilliseconds: 0)
        let port = MIDIInputPort(name: "test keyboard")
        let engine = RenderEngine()
        engine.attach(MIDIScheduler(ports: [port]))
        engine.install(try chain.compile(spec: driver.processSpec))
        let started = Date()
        let xruns = XrunAttribution(thresholdMicroseconds: 64 * 1_000_000 / 48000 / 2) { driver.xrunCount }
        defer { xruns.finish() }
        try driver.start(engine: engine)
        if let notice = driver.realtime?.notice { print(notice) }
        // Count from a quarter second in (the steady state), and read the
        // counts while the loop still runs: the thread's exit frees its
        // thread-local storage, which is not the steady state.
        while driver.framesProcessed < 12_000 && driver.stopReason == nil { usleep(1000) }
        busker_allocation_counts_reset()
        var note: UInt8 = 48
        while driver.framesProcessed < 84_000 && driver.stopReason == nil {
            _ = port.send(.noteOn(channel: 0, note: note, velocity: 90))
            _ = port.send(.noteOff(channel: 0, note: note, velocity: 0))
            note = note == 72 ? 48 : note + 1
            usleep(1000)
        }
        let allocations = busker_allocation_count(), frees = busker_free_count()
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver, timeout: 20), driver.frameLimitReason)
        let seconds = Date().timeIntervalSince(started)
        let report = xruns.finish()
        print("ran \(driver.framesProcessed) frames in \(String(format: "%.2f", seconds)) s, \(report), stalls: \(driver.stallCount)")
        ALSATestSupport.assertXrunsAreTheHosts(driver, report, periods: 2 * 48000 / 64)
        XCTAssertEqual(driver.stallCount, 0)
        if busker_allocation_counting_supported() != 0 {
            XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
            XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
        }
        XCTAssertGreaterThan(seconds, 1.5, "the device paces the loop")
        driver.close()
        engine.releaseAll()
    }

    /// The sampler and the drum kit playing on the device while the control
    /// thread loads a new SoundFont twice and a new kit twice and hands them
    /// over: the swaps reach the audio thread without a heap allocation or
    /// free on the render thread, and no load makes an xrun. A load that
    /// blocked the render thread would put an xrun in the load's time or
    /// just after it; the xruns there must all fall on host CPU stalls
    /// (`XrunAttribution`), and the loop keeps up as in the tests above.
    func testLoadingASoundFontAndAKitWhilePlayingCausesNoXrunAndNoAllocation() throws {
        let font = "/usr/share/sounds/sf2/TimGM6mb.sf2"
        try XCTSkipUnless(FileManager.default.fileExists(atPath: font), "timgm6mb-soundfont is not installed")
        var o = DuplexDriver.Options(playback: "busker_out")
        o.configuration = .extending(try XCTUnwrap(card).asoundrc())
        o.periodFrames = 128
        o.periodCount = 2
        o.calls = PCMCalls.live.withRenderThreadStart { busker_allocation_counting_begin() }
        let driver = try DuplexDriver(options: o, stopAfterFrames: 4 * 48000)
        let rate = Double(driver.granted.sampleRate)
        let port = MIDIInputPort(name: "test keyboard")
        let scheduler = MIDIScheduler(ports: [port])
        let sampler = SamplerNode(events: scheduler.events, sampleRate: rate)
        try sampler.load(SamplerConfiguration(soundFontPath: font))
        let kitPath = try DrumKitLocation.defaultManifestPath()
        let drums = DrumKitNode(events: scheduler.events)
        try drums.install(try DrumKit.load(manifestAt: kitPath, sampleRate: rate))
        let chain = try InstrumentChain(sources: [sampler, drums], limiterLookaheadMilliseconds: 1)
        let engine = RenderEngine()
        engine.attach(scheduler)
        engine.install(try chain.compile(spec: driver.processSpec))
        let xruns = XrunAttribution(thresholdMicroseconds: 128 * 1_000_000 / 48000 / 2) { driver.xrunCount }
        defer { xruns.finish() }
        try driver.start(engine: engine)
        while driver.framesProcessed < 12_000 && driver.stopReason == nil { usleep(1000) }
        busker_allocation_counts_reset()
        var loads: [ClosedRange<UInt64>] = []
        var step = 0
        var swaps = 0
        while driver.framesProcessed < 180_000 && driver.stopReason == nil {
            _ = port.send(.noteOn(channel: 0, note: UInt8(48 + step % 24), velocity: 90))
            _ = port.send(.noteOn(channel: 9, note: [36, 38, 42, 46][step % 4], velocity: 100))
            if step % 40 == 39 { _ = port.send(.controlChange(channel: 0, controller: 123, value: 0)) }
            // Every 0.75 s of audio, a new synth or a new kit, loaded here and handed over
            // (placed by frames, not by steps, so a slow host still makes all four before the end).
            if swaps < 4 && driver.framesProcessed >= 12_000 + (swaps + 1) * 36_000 {
                let loadStarted = busker_monotonic_ns()
                // The window runs 25 ms past the handover: the render thread
                // takes the new synth or kit at its next period.
                defer { loads.append(loadStarted...(busker_monotonic_ns() + 25_000_000)) }
                if swaps % 2 == 0 {
                    try sampler.load(SamplerConfiguration(soundFontPath: font, instrument: SamplerInstrument(program: 13)))
                } else {
                    try drums.install(try DrumKit.load(manifestAt: kitPath, sampleRate: rate))
                }
                swaps += 1
            }
            _ = sampler.collectRetired()
            _ = drums.collectRetired()
            step += 1
            usleep(10_000)
        }
        let allocations = busker_allocation_count(), frees = busker_free_count()
        XCTAssertEqual(ALSATestSupport.waitUntilStopped(driver, timeout: 20), driver.frameLimitReason)
        let report = xruns.finish()
        print("played \(driver.framesProcessed) frames with \(swaps) swaps (\(sampler.handoverCount) synths, \(drums.kitSwapCount) kits taken), \(report)")
        XCTAssertEqual(swaps, 4)
        XCTAssertEqual(sampler.handoverCount, 3, "the first synth and two swaps")
        XCTAssertEqual(drums.kitSwapCount, 3, "the first kit and two swaps")
        XCTAssertEqual(loads.count, 4)
        for (n, load) in loads.enumerated() {
            XCTAssertEqual(report.offStall(within: load), 0, "load \(n + 1) took \((load.upperBound - load.lowerBound) / 1_000_000 - 25) ms; \(report)")
        }
        ALSATestSupport.assertXrunsAreTheHosts(driver, report, periods: 4 * 48000 / 128)
        if busker_allocation_counting_supported() != 0 {
            XCTAssertEqual(allocations, 0, "heap allocations on the audio-render thread")
            XCTAssertEqual(frees, 0, "heap frees on the audio-render thread")
        }
        driver.close()
        engine.releaseAll()
        _ = sampler.collectRetired()
        _ = drums.collectRetired()
    }
}
