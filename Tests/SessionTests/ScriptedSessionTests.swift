import Engine
import Session
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `SessionRunner` on a driver it knows only as an `AudioDriver`: the
/// scripted in-memory driver. Each test starts a session, lets the script
/// report what a device would, and checks that the state machine's effects
/// were carried out: audio started on the engine with the plan, stopped,
/// rebuilt for a new format, resumed, drained, notes ended, the take
/// finalized.
final class ScriptedSessionTests: XCTestCase {
    let route = DeviceRoute(input: "scripted_in", output: "scripted_out")
    let format = AudioFormat(sampleRate: 48000, periodFrames: 64, inputChannels: 1, outputChannels: 2)

    /// What the runner's hooks were asked to do.
    final class Hooks {
        var rebuiltFor: [AudioFormat] = []
        var notesOff = 0
        var finalized = 0
    }

    /// A runner on `driver` whose graph multiplies the input by 0.5, rebuilt
    /// on the runner's request for the driver's format.
    private func runner(_ driver: ScriptedDriver, policy: SessionPolicy, hooks: Hooks, watcher: ScriptedWatcher? = nil,
                        reopen: @escaping () throws -> any AudioDriver = { throw ScriptedDriver.Failure(startFailure: StartFailure(kind: .missing, device: "scripted_out", message: "gone")) }) throws -> SessionRunner {
        let engine = RenderEngine()
        engine.install(try halfGainPlan(for: driver))
        let runner = SessionRunner(command: "test", driver: driver, engine: engine, policy: policy, watcher: watcher,
                                   takeSignals: { [] }, suspendProcess: {}, reopen: reopen)
        runner.rebuildGraph = { [unowned self] driver in
            hooks.rebuiltFor.append(driver.format)
            engine.releaseAll()
            engine.install(try self.halfGainPlan(for: driver))
        }
        runner.allNotesOff = { hooks.notesOff += 1 }
        runner.finalizeRecording = { hooks.finalized += 1 }
        return runner
    }

    private func halfGainPlan(for driver: any AudioDriver) throws -> RenderPlan {
        let graph = AudioGraph(inputChannelCount: driver.format.inputChannels)
        let half = graph.add(HalfGainNode(name: "half"))
        try graph.connect(graph.input, to: half)
        graph.output = half
        return try graph.compile(spec: driver.processSpec)
    }

    /// Polls the runner (as a control loop does) until `condition` holds, or fails after `seconds`.
    private func poll(_ runner: SessionRunner, seconds: Double = 5, until condition: () -> Bool,
                      file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out in state \(runner.state)", file: file, line: line) }
            runner.poll()
            usleep(2000)
        }
    }

    func testTheRunnerStartsTheDriverOnTheEngineAndCountsItsXruns() throws {
        let driver = ScriptedDriver(route: route, format: format, script: .init(steps: [5: .xrun, 10: .xrun]))
        let hooks = Hooks()
        let runner = try runner(driver, policy: SessionPolicy(), hooks: hooks)
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .running(micLive: true))
        XCTAssertTrue(driver.isRunning)
        poll(runner) { driver.periods >= 20 && runner.xruns == 2 }
        XCTAssertEqual(runner.state, .running(micLive: true), "recovered xruns leave audio running")
        runner.send(.userStop)
        XCTAssertEqual(runner.state, .stopped(.user))
        XCTAssertEqual(runner.state.exitStatus, 0)
        XCTAssertFalse(driver.isRunning, "the stop effect stopped the driver")
        XCTAssertEqual(hooks.finalized, 1)
        XCTAssertGreaterThanOrEqual(hooks.notesOff, 1)
        runner.close()
        XCTAssertTrue(driver.isClosed)
        // What the driver rendered is the installed plan's output: the input (1.0) at half gain.
        let out = driver.output
        XCTAssertGreaterThanOrEqual(out.count, 20 * 64)
        XCTAssertEqual(Set(out), [0.5])
    }

    func testALostDeviceIsWaitedForAndAudioRestartsOnTheSameRouteAtItsNewFormat() throws {
        let lost = ScriptedDriver(route: route, format: format,
                                  script: .init(steps: [8: .end(.deviceLost(.playback, code: -ENODEV))]))
        let back = AudioFormat(sampleRate: 44100, periodFrames: 128, inputChannels: 1, outputChannels: 2)
        let reopened = ScriptedDriver(route: route, format: back)
        let hooks = Hooks()
        let watcher = ScriptedWatcher()
        var reopens = 0
        let runner = try runner(lost, policy: SessionPolicy(reconnect: true), hooks: hooks, watcher: watcher) {
            reopens += 1
            return reopened
        }
        runner.send(.userStart)
        poll(runner) { if case .waitingForDevice = runner.state { true } else { false } }
        XCTAssertTrue(lost.isClosed, "the lost driver is let go")
        XCTAssertEqual(watcher.watchedRoute, route, "the runner watches the chosen route, no other")
        XCTAssertEqual(hooks.finalized, 1, "the take is finalized on the loss")
        XCTAssertGreaterThanOrEqual(hooks.notesOff, 1)
        XCTAssertEqual(reopens, 0)

        watcher.routeOpens = true
        runner.pollDevices()
        XCTAssertEqual(runner.state, .recovering(micLive: true), "back only once a period has come")
        XCTAssertFalse(runner.notices.contains { $0.hasPrefix("audio is back") }, "\(runner.notices)")
        poll(runner) { runner.state == .running(micLive: true) }
        XCTAssertEqual(runner.notices.filter { $0 == "audio is back on \(route)" }.count, 1, "\(runner.notices)")
        XCTAssertEqual(reopens, 1)
        XCTAssertTrue(runner.driver === reopened)
        XCTAssertEqual(hooks.rebuiltFor, [back], "the graph was rebuilt for the format the device came back with")
        poll(runner) { reopened.periods >= 10 }
        runner.send(.userStop)
        runner.close()
        XCTAssertEqual(Set(reopened.output), [0.5])
        XCTAssertEqual(reopened.output.count % 128, 0, "the new driver renders its own 128-frame periods")
    }

    func testAFormatChangeWhileRunningRebuildsTheGraphAndRestartsWithAutoResume() throws {
        let changed = AudioFormat(sampleRate: 48000, periodFrames: 256, inputChannels: 1, outputChannels: 2)
        let driver = ScriptedDriver(route: route, format: format, script: .init(steps: [5: .formatChange], changedFormat: changed))
        let hooks = Hooks()
        let runner = try runner(driver, policy: SessionPolicy(autoResume: true), hooks: hooks)
        runner.send(.userStart)
        poll(runner) { hooks.rebuiltFor == [changed] && runner.state == .running(micLive: true) }
        XCTAssertEqual(driver.startCount, 2, "stopped and started again on the new format")
        XCTAssertGreaterThanOrEqual(hooks.notesOff, 1)
        XCTAssertEqual(hooks.finalized, 0, "a format change is no reason to end the take")
        poll(runner) { driver.periods >= 12 }
        runner.send(.userStop)
        runner.close()
        XCTAssertEqual(Set(driver.output), [0.5])
    }

    /// A format change is a sound server's new buffer size: the session goes
    /// on by itself, headless and without --auto-resume too.
    func testAFormatChangeGoesOnWithoutAutoResumeAndHeadless() throws {
        let changed = AudioFormat(sampleRate: 48000, periodFrames: 32, inputChannels: 1, outputChannels: 2)
        let driver = ScriptedDriver(route: route, format: format, script: .init(steps: [3: .formatChange], changedFormat: changed))
        let hooks = Hooks()
        let runner = try runner(driver, policy: SessionPolicy(headless: true), hooks: hooks)
        runner.send(.userStart)
        poll(runner) { hooks.rebuiltFor == [changed] && runner.state == .running(micLive: true) }
        XCTAssertEqual(driver.startCount, 2, "stopped and started again on the new format")
        XCTAssertTrue(driver.isRunning)
        runner.send(.userStop)
        runner.close()
    }

    func testASuspendResumesByItselfOnlyWithAutoResume() throws {
        let hooks = Hooks()
        let suspending = ScriptedDriver.Script(steps: [4: .end(.suspended(.playback))])
        let driver = ScriptedDriver(route: route, format: format, script: suspending)
        let runner = try runner(driver, policy: SessionPolicy(autoResume: true), hooks: hooks)
        runner.send(.userStart)
        poll(runner) { driver.resumeCount == 1 && runner.state == .running(micLive: true) }
        XCTAssertTrue(driver.isRunning)
        runner.send(.userStop)
        runner.close()

        let waiting = ScriptedDriver(route: route, format: format, script: suspending)
        let second = try self.runner(waiting, policy: SessionPolicy(), hooks: Hooks())
        second.send(.userStart)
        poll(second) { second.state == .interrupted(.suspended, micLive: true) }
        XCTAssertEqual(waiting.resumeCount, 0, "no resume until the user asks")
        second.send(.userStart)
        XCTAssertEqual(waiting.resumeCount, 1, "space resumes the suspended device")
        poll(second) { second.state == .running(micLive: true) }
        second.send(.userStop)
        second.close()
    }

    func testAStartThatFailsEndsTheSessionWithItsMessage() throws {
        let busy = StartFailure(kind: .other, device: "scripted_out", message: "scripted_out refused to start")
        let driver = ScriptedDriver(route: route, format: format, script: .init(startFailure: busy))
        let hooks = Hooks()
        let runner = try runner(driver, policy: SessionPolicy(), hooks: hooks)
        runner.send(.userStart)
        XCTAssertEqual(runner.state, .failed(busy))
        XCTAssertEqual(runner.state.exitStatus, 1)
        XCTAssertEqual(driver.startCount, 0)
        XCTAssertEqual(hooks.finalized, 1)
        runner.close()
    }

    func testTheEndOfTheInputDrainsAndEndsCleanly() throws {
        let driver = ScriptedDriver(route: route, format: format, script: .init(steps: [6: .end(.endOfInput)]))
        let hooks = Hooks()
        let runner = try runner(driver, policy: SessionPolicy(headless: true), hooks: hooks)
        runner.send(.userStart)
        poll(runner) { runner.isOver }
        XCTAssertEqual(runner.state, .stopped(.songEnded))
        XCTAssertEqual(runner.state.exitStatus, 0)
        XCTAssertEqual(driver.finishCount, 1, "the end drains what is queued")
        XCTAssertEqual(hooks.finalized, 1)
        runner.close()
    }

    func testADrainThatFindsTheDeviceGoneIsALoss() throws {
        let driver = ScriptedDriver(route: route, format: format,
                                    script: .init(steps: [6: .end(.endOfInput)], drainResult: .deviceLost(.playback, code: -ENODEV)))
        let runner = try runner(driver, policy: SessionPolicy(headless: true), hooks: Hooks())
        runner.send(.userStart)
        poll(runner) { runner.isOver }
        guard case let .stopped(.deviceLost(what)) = runner.state else { return XCTFail("\(runner.state)") }
        XCTAssertTrue(what.contains("output 'scripted_out' is gone"), what)
        XCTAssertEqual(runner.state.exitStatus, 1)
        runner.close()
    }
}

/// Multiplies its input by 0.5, exactly.
final class HalfGainNode: AudioNode {
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        guard let input = inputs.connectedBus0 else { return output.clear() }
        for c in 0..<output.channelCount {
            let s = input[min(c, input.channelCount - 1)], d = output[c]
            for i in 0..<output.frameCount { d[i] = 0.5 * s[i] }
        }
    }
}
