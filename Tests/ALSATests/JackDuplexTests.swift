import ALSA
import CAllocationCounter
import Chains
import Engine
import Foundation
import RenderTestSupport
import Sessions
import XCTest

/// The driver in real time on Tools/virtual-soundcard: JACK's dummy driver
/// and ALSA PCMs of type jack. Skipped where JACK or the ALSA jack plugin is
/// not installed. Timing figures belong in the benchmark (`Tools/soak-live`);
/// this asks that 2 s at 64-frame periods of the whole voice chain pass
/// without a heap allocation on the render thread, with every xrun
/// recovered and the loop keeping up. It does not ask for zero xruns: the
/// test VM's own CPU stalls cause some (`XrunAttribution`), and it prints
/// where they fell.
final class JackDuplexTests: XCTestCase {
    private var card: VirtualSoundCardFixture?

    override func setUpWithError() throws {
        card = try VirtualSoundCardFixture(name: "busker-test")
    }

    override func tearDownWithError() throws {
        try card?.stop()
    }

    private func options() throws -> DuplexDriver.Options {
        var o = DuplexDriver.Options(capture: "busker_in", playback: "busker_out")
        o.configuration = .extending(try XCTUnwrap(card).asoundrc())
        o.periodFrames = 64
        o.periodCount = 2
        return o
    }

    func testTwoSecondsAt64FramePeriodsKeepUpWithoutAllocations() throws {
        var o = try options()
        o.calls = PCMCalls.live.withRenderThreadStart { busker_allocation_counting_begin() }
        let driver = try DuplexDriver(options: o, stopAfterFrames: 2 * 48000)
        print("virtual sound card granted: \(driver.granted)")
        XCTAssertEqual(driver.granted.sampleRate, 48000)
        XCTAssertEqual(driver.granted.periodFrames, 64)
        XCTAssertEqual(driver.granted.capture?.format, .float32)
        XCTAssertEqual(driver.granted.roundTripFrames, 128)
        // Both streams are the one server's, on its one clock: no resampler, and the line says none.
        XCTAssertNil(driver.clockCorrection, "one server's clock: no resampler")
        XCTAssertFalse(driver.summary.contains("two clocks"), driver.summary)
        let engine = RenderEngine()
        var settings = LiveSettings()
        settings.strips[0].bassDB = 6
        settings.strips[0].trebleDB = 3
        settings.strips[0].boostDB = 6
        settings.strips[0].reverbSendPercent = 30
        let chain = try LiveChain(inputChannelCount: try XCTUnwrap(driver.granted.capture).channels, settings: settings,
                                   limiterLookaheadMilliseconds: 0)
        engine.install(try chain.compile(spec: driver.processSpec))
        let started = Date()
        let xruns = XrunAttribution(thresholdMicroseconds: 64 * 1_000_000 / 48000 / 2) { driver.xrunCount }
        defer { xruns.finish() }
        try driver.start(engine: engine)
        if let notice = driver.realtime?.notice { print(notice) }
        // Count from a quarter second in: the steady state.
        while driver.framesProcessed < 12_000 && driver.stopReason == nil { usleep(1000) }
        busker_allocation_counts_reset()
        // Read the counts while the loop still runs: the thread's own exit frees
        // its thread-local storage, which is not the steady state.
        while driver.framesProcessed < 84_000 && driver.stopReason == nil { usleep(1000) }
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
        XCTAssertGreaterThan(seconds, 1.5, "a real-time clock paces the loop")
        driver.close()
        engine.releaseAll()
    }

    func testChannelCountTheJackPCMRefuses() throws {
        var o = try options()
        o.captureChannels = 3
        XCTAssertThrowsError(try DuplexDriver(options: o)) { error in
            guard case let .channelsRefused(device, direction, requested, supported)? = error as? ALSAError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(device, "busker_in")
            XCTAssertEqual(direction, .capture)
            XCTAssertEqual(requested, 3)
            XCTAssertEqual(supported, 2...2)
        }
    }
}
