import ALSA
import CALSA
import Engine
import Foundation
import XCTest

/// Bad input gives one `ALSAError` line naming the device and what to try;
/// no crash, no hang. Through real libasound wherever ALSA can produce the
/// condition without hardware; through `PCMCalls` where it cannot (a busy device).
final class ALSAErrorTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try ALSATestSupport.temporaryDirectory()
        try ALSATestSupport.writeRaw([Float](repeating: 0, count: 64), to: dir.appendingPathComponent("in.raw"))
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    private func options(capture: String = "busker_test_infile", playback: String = "busker_test_playback") -> DuplexDriver.Options {
        var o = ALSATestSupport.fileLoopbackOptions(input: dir.appendingPathComponent("in.raw"),
                                                    output: URL(fileURLWithPath: "/dev/null"))
        o.capturePCM = capture
        o.playbackPCM = playback
        return o
    }

    private func openError(_ options: DuplexDriver.Options, file: StaticString = #filePath, line: UInt = #line) -> ALSAError? {
        do {
            _ = try DuplexDriver(options: options)
            XCTFail("opening succeeded", file: file, line: line)
            return nil
        } catch {
            XCTAssertFalse(error.description.contains("\n"), "one line: \(error)", file: file, line: line)
            print("error line: \(error)")
            return error
        }
    }

    func testUnknownPCMName() {
        // Through the system configuration, as a user would type it.
        var o = DuplexDriver.Options(device: "busker_no_such_pcm")
        o.realtimePriority = nil
        o.lockMemory = false
        let error = openError(o)
        guard case let .unknownPCM(device, direction, _)? = error else { return XCTFail("\(String(describing: error))") }
        XCTAssertEqual(device, "busker_no_such_pcm")
        XCTAssertEqual(direction, .capture)
        XCTAssertTrue(error!.description.contains("'busker_no_such_pcm'"))
        XCTAssertTrue(error!.description.contains("busker devices"))
    }

    func testUnknownPlaybackNameIsReportedForPlayback() {
        let error = openError(options(playback: "busker_missing_out"))
        XCTAssertEqual(error, .unknownPCM(device: "busker_missing_out", direction: .playback, detail: ""))
    }

    func testUndefinedDefaultInAPrivateConfigurationIsAnUnknownName() {
        // Only "no card" when a card is what is missing, not a definition.
        let error = openError(options(capture: "default"))
        XCTAssertEqual(error, .unknownPCM(device: "default", direction: .capture, detail: ""))
    }

    func testCaptureDeviceWithoutCaptureChannels() {
        // An asym PCM with only a playback side: ALSA's answer to "open it for capture" is EINVAL.
        let error = openError(options(capture: "busker_playback_only"))
        XCTAssertEqual(error, .noChannels(device: "busker_playback_only", direction: .capture))
        XCTAssertTrue(error!.description.contains("has no capture channels"), error!.description)
        XCTAssertTrue(error!.description.contains("--input"), error!.description)
    }

    func testPeriodTheDeviceRefuses() {
        var o = options()
        o.periodFrames = 1 << 40
        let error = openError(o)
        guard case let .periodRefused(device, direction, requested, supported)? = error else {
            return XCTFail("\(String(describing: error))")
        }
        XCTAssertEqual(device, "busker_test_infile")
        XCTAssertEqual(direction, .capture)
        XCTAssertEqual(requested, 1 << 40)
        XCTAssertFalse(supported.contains(requested))
        XCTAssertTrue(error!.description.contains("try --period"), error!.description)
    }

    func testZeroPeriodIsRefusedNotCrashing() {
        var o = options()
        o.periodFrames = 0
        guard case .periodRefused? = openError(o) else { return XCTFail() }
    }

    func testUnparsableConfiguration() {
        var o = options()
        o.configuration = .only("pcm.broken { type file slave.pcm { type null ")
        guard case let .invalidConfiguration(detail)? = openError(o) else { return XCTFail() }
        XCTAssertFalse(detail.isEmpty)
    }

    func testNoSoundCardSaysSoAndPointsToTheVirtualSoundcard() throws {
        try XCTSkipUnless(DeviceList.cardIndices().isEmpty, "this machine has a sound card")
        for name in ["default", "hw:0,0"] {
            var o = DuplexDriver.Options(device: name)
            o.realtimePriority = nil
            o.lockMemory = false
            let error = openError(o)
            XCTAssertEqual(error, .noSoundCard(device: name))
            XCTAssertTrue(error?.description.contains("Tools/virtual-soundcard") ?? false)
        }
    }

    func testBusyDeviceNamesTheDevice() {
        // A held hw device needs hardware; the open call can fail the same way by injection.
        var o = options(capture: "hw:7,0")
        o.configuration = .system
        var calls = PCMCalls.live
        calls.open = { _, _, _, _, _ in -EBUSY }
        o.calls = calls
        let error = openError(o)
        XCTAssertEqual(error, .deviceBusy(device: "hw:7,0", direction: .capture, holders: []))
        XCTAssertTrue(error!.description.contains("'hw:7,0' is busy"), error!.description)
    }

    func testBusyHoldersAreFoundThroughProc() throws {
        // A fake /proc: pid 4242 ("arecord") holds card 1 device 0 capture; pid 4343 holds playback.
        let proc = dir.appendingPathComponent("proc")
        for (pid, comm, node) in [(4242, "arecord", "/dev/snd/pcmC1D0c"), (4343, "aplay", "/dev/snd/pcmC1D0p"),
                                  (4444, "other", "/dev/snd/pcmC2D0c")] {
            let fd = proc.appendingPathComponent("\(pid)/fd")
            try FileManager.default.createDirectory(at: fd, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: fd.appendingPathComponent("3").path, withDestinationPath: "/dev/null")
            try FileManager.default.createSymbolicLink(atPath: fd.appendingPathComponent("7").path, withDestinationPath: node)
            try "\(comm)\n".write(to: proc.appendingPathComponent("\(pid)/comm"), atomically: true, encoding: .utf8)
        }
        let holders = DeviceHolder.holders(of: "hw:1,0", direction: .capture, procRoot: proc.path)
        XCTAssertEqual(holders, [DeviceHolder(pid: 4242, command: "arecord", node: "/dev/snd/pcmC1D0c")])
        XCTAssertEqual(DeviceHolder.holders(of: "plughw:CARD=1,DEV=0", direction: .playback, procRoot: proc.path).map(\.pid), [4343])
        XCTAssertEqual(DeviceHolder.holders(of: "default", direction: .capture, procRoot: proc.path).map(\.pid), [4242, 4444])
        let message = ALSAError.deviceBusy(device: "hw:1,0", direction: .capture, holders: holders).description
        XCTAssertTrue(message.contains("held by arecord (pid 4242)"), message)
    }

    func testRefusedHardwareParametersNameTheCall() {
        var o = options()
        var calls = PCMCalls.live
        calls.commitHardwareParameters = { _, _ in -EINVAL }
        o.calls = calls
        guard case let .callFailed(device, _, call, code, _)? = openError(o) else { return XCTFail() }
        XCTAssertEqual(device, "busker_test_infile")
        XCTAssertEqual(call, "snd_pcm_hw_params")
        XCTAssertEqual(code, -EINVAL)
    }

    func testFailingPrepareMakesStartThrow() throws {
        var o = options()
        var calls = PCMCalls.live
        calls.prepare = { pcm in snd_pcm_stream(pcm) == SND_PCM_STREAM_PLAYBACK ? -EIO : snd_pcm_prepare(pcm) }
        o.calls = calls
        let driver = try DuplexDriver(options: o)
        XCTAssertThrowsError(try driver.start(engine: RenderEngine())) { error in
            XCTAssertEqual((error as? ALSAError).map {
                if case let .callFailed(_, direction, call, code, _) = $0 { return "\(direction) \(call) \(code)" }
                return "\($0)"
            }, "playback snd_pcm_prepare \(-EIO)")
        }
        XCTAssertFalse(driver.isRunning)
        XCTAssertTrue(ALSATestSupport.threadGone(named: "audio-render"), "\(ALSATestSupport.threadNames())")
        // A failed start leaves the driver usable once the fault is gone? Not with this table;
        // it must at least close cleanly.
        driver.close()
    }

    func testFailingStartMakesStartThrow() throws {
        var o = options()
        var calls = PCMCalls.live
        calls.start = { _ in -ENODEV }
        o.calls = calls
        let driver = try DuplexDriver(options: o)
        XCTAssertThrowsError(try driver.start(engine: RenderEngine())) { error in
            guard case let .callFailed(_, _, call, code, _)? = error as? ALSAError else { return XCTFail("\(error)") }
            XCTAssertEqual(call, "snd_pcm_start")
            XCTAssertEqual(code, -ENODEV)
        }
        driver.close()
    }

    func testEveryMessageIsOneLine() {
        let samples: [ALSAError] = [
            .unknownPCM(device: "x", direction: .capture, detail: "Unknown PCM x"),
            .noSoundCard(device: "default"),
            .deviceBusy(device: "hw:0", direction: .playback, holders: [DeviceHolder(pid: 1, command: "pulseaudio", node: "/dev/snd/pcmC0D0p")]),
            .permissionDenied(device: "hw:0", direction: .capture),
            .noChannels(device: "hw:0", direction: .capture),
            .channelsRefused(device: "hw:0", direction: .capture, requested: 1, supported: 2...2),
            .rateRefused(device: "hw:0", direction: .capture, requested: 96000, detail: "it takes 44100…48000 Hz"),
            .periodRefused(device: "hw:0", direction: .capture, requested: 100, supported: 32...8192),
            .periodCountRefused(device: "hw:0", direction: .capture, requested: 1, supported: 2...32),
            .noSupportedFormat(device: "hw:0", direction: .capture, tried: PCMSampleFormat.preferenceOrder),
            .noSupportedAccess(device: "hw:0", direction: .capture),
            .duplexMismatch(capture: "hw:0", playback: "hw:1", what: "sample rate", captureValue: 44100, playbackValue: 48000),
            .invalidConfiguration(detail: "syntax error"),
            .callFailed(device: "hw:0", direction: .capture, call: "snd_pcm_prepare", code: -EIO, detail: ""),
        ]
        for error in samples {
            XCTAssertFalse(error.description.contains("\n"), error.description)
            XCTAssertTrue(error.description.contains("'hw:0'") || error.description.contains("'x'")
                          || error.description.contains("'default'") || error.description.contains("configuration"),
                          error.description)
        }
        XCTAssertTrue(ALSAError.periodRefused(device: "hw:0", direction: .capture, requested: 100, supported: 32...8192)
            .description.contains("try --period 128"))
    }
}
