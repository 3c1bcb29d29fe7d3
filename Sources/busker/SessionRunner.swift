import ALSAIO
import AudioCore
import Foundation
import Session

/// Runs a session on the ALSA driver for `busker live` and `busker play`:
/// feeds the state machine every event (driver reports, signals, devices
/// appearing, keys) and carries out the effects it decides — the only place
/// that starts, stops, resumes or reopens audio.
///
/// Audio only ever starts on the route the user chose: the driver is opened
/// (and reopened) from the options given at launch, and a start effect for
/// any other route is refused.
final class SessionRunner {
    let machine: SessionStateMachine
    let command: String
    let engine: RenderEngine
    private(set) var state: SessionState = .idle
    private(set) var driver: DuplexDriver
    private var format: AudioFormat
    private var watch: DriverWatch
    private let watcher: DeviceWatcher
    private var lastDevicePoll = Date.distantPast
    private let reopen: () throws -> DuplexDriver
    private var xrunsOfClosedDrivers = 0
    private var processing = false
    private var queued: [SessionEvent] = []

    /// The things the machine said, newest last (the screen shows the last).
    private(set) var notices: [String] = []
    /// Set while a screen is up: effects restore and re-enter it.
    var terminal: Terminal?

    // MARK: Hooks the sessions fill in
    /// Compiles and installs the render graph for the driver's format.
    var rebuildGraph: (DuplexDriver) throws -> Void = { _ in }
    /// Ends every sounding note (instruments; the live mic has none).
    var allNotesOff: () -> Void = {}
    /// HOOK (recording, issue 5): closes the recording in progress so the file
    /// holds everything up to the stop or the loss. Runs on every stop and loss.
    var finalizeRecording: (() -> Void)?

    /// - Parameters:
    ///   - driver: opened on the chosen route (open errors are the command's one-line error).
    ///   - reopen: opens the same route again after a loss (`--reconnect`).
    init(command: String, driver: DuplexDriver, engine: RenderEngine, policy: SessionPolicy,
         reopen: @escaping () throws -> DuplexDriver) {
        self.command = command
        self.driver = driver
        self.engine = engine
        self.reopen = reopen
        machine = SessionStateMachine(route: Self.route(of: driver.options), policy: policy)
        format = driver.granted.audioFormat
        watch = DriverWatch(policy: policy)
        watcher = DeviceWatcher(configuration: driver.options.configuration, calls: driver.options.calls)
    }

    static func route(of options: DuplexDriver.Options) -> DeviceRoute {
        DeviceRoute(input: options.capturePCM, output: options.playbackPCM)
    }

    var isOver: Bool { state.isFinal }
    var xruns: Int { xrunsOfClosedDrivers + (driver.isClosed ? 0 : driver.xrunCount) }

    /// The state and its reason, for the screen and the status line.
    var statusText: String {
        if case .interrupted(.stalled, _) = state, let ms = lastStall { return "STALLED: no audio period for \(ms) ms" }
        return state.statusText
    }
    private var lastStall: Int?

    // MARK: Events in

    /// Runs one event through the machine and carries out its effects (and
    /// the events those produce, in order).
    func send(_ event: SessionEvent) {
        queued.append(event)
        guard !processing else { return }
        processing = true
        defer { processing = false }
        while !queued.isEmpty {
            let next = queued.removeFirst()
            if case let .stalled(ms) = next { lastStall = ms }
            let (newState, effects) = machine.transition(from: state, on: next)
            state = newState
            for effect in effects { perform(effect) }
        }
    }

    /// Signals, driver reports and (once a second) devices coming and going.
    func poll() {
        for signal in StopSignals.take() { send(.signal(signal)) }
        if !driver.isClosed {
            for event in watch.poll(driver) { send(event) }
        }
        if Date().timeIntervalSince(lastDevicePoll) >= 1 {
            lastDevicePoll = Date()
            for change in watcher.poll() {
                switch change {
                case let .cardAppeared(name): send(.deviceAppeared(name))
                case let .cardRemoved(name): tell("a device went away: \(name)")
                case .routeAvailable: send(.deviceAppeared(machine.route.output))
                }
            }
        }
        engine.collectRetiredPlans()
    }

    // MARK: Effects out

    private func perform(_ effect: SessionEffect) {
        switch effect {
        case let .startAudio(route):
            guard route == machine.route else { return tell("refused to start on \(route): the chosen route is \(machine.route)") }
            startAudio()
        case let .resumeAudio(route):
            guard route == machine.route else { return tell("refused to resume on \(route): the chosen route is \(machine.route)") }
            watch.reset()
            do {
                try driver.resumeAfterSuspend(engine: engine)
                send(.started)
            } catch {
                send(.startFailed(error.startFailure))
            }
        case .stopAudio:
            if !driver.isClosed { driver.stop() }
        case .drainAudio:
            if !driver.isClosed { driver.finish() }
        case .allNotesOff:
            allNotesOff()
        case .finalizeRecording:
            finalizeRecording?()
        case .rebuildGraph:
            do {
                try rebuildGraph(driver)
            } catch {
                tell("could not rebuild the graph: \(error)")
            }
        case let .watchForDevice(route):
            // Let go of the lost devices (a dead server's client, a gone card) and try the chosen ones once a second.
            closeDriver()
            watcher.watchedRoute = (route.input, route.output)
        case .restoreTerminal:
            terminal?.restore()
        case .reenterTerminal:
            terminal?.enter()
        case .suspendProcess:
            StopSignals.stopProcess()
        case let .tell(text):
            tell(text)
        case .end:
            break  // `state` is final; the command prints the last line and exits with its status
        }
    }

    /// Opens the route again if it was let go, rebuilds the graph if the
    /// format changed, and starts.
    private func startAudio() {
        if driver.isClosed {
            do {
                let reopened = try reopen()
                // The route comes from the launch options; check it anyway.
                guard Self.route(of: reopened.options) == machine.route else {
                    reopened.close()
                    return send(.startFailed(StartFailure(kind: .other, device: reopened.options.playbackPCM,
                                                          message: "refused to start on another route than \(machine.route)")))
                }
                driver = reopened
                watcher.watchedRoute = nil
            } catch let error as ALSAError {
                return send(.startFailed(error.startFailure))
            } catch {
                return send(.startFailed(StartFailure(kind: .other, device: machine.route.output, message: "\(error)")))
            }
            let granted = driver.granted.audioFormat
            if granted != format {
                format = granted
                send(.formatChanged(granted))  // queued: runs the rebuild before the start below
                processQueuedNow()
            }
        }
        // A stalled loop is still waiting for a period: end it before starting again.
        driver.stop()
        watch.reset()
        do {
            if case .suspended? = driver.stopReason {
                try driver.resumeAfterSuspend(engine: engine)
            } else {
                try driver.start(engine: engine)
            }
            send(.started)
        } catch {
            send(.startFailed(error.startFailure))
        }
    }

    /// Carries out what is queued before going on (a graph rebuild must precede a start).
    private func processQueuedNow() {
        while !queued.isEmpty {
            let next = queued.removeFirst()
            let (newState, effects) = machine.transition(from: state, on: next)
            state = newState
            for effect in effects { perform(effect) }
        }
    }

    private func closeDriver() {
        guard !driver.isClosed else { return }
        xrunsOfClosedDrivers += driver.xrunCount
        driver.close()
    }

    /// Closes the devices at the end.
    func close() {
        closeDriver()
        engine.releaseAll()
    }

    private func tell(_ text: String) {
        notices.append(text)
        if notices.count > 20 { notices.removeFirst(notices.count - 20) }
        if terminal == nil {
            print("busker \(command): \(text)")
            fflush(nil)
        }
    }

    /// Prints the last line (exit 0) or throws it as the one-line error (exit 1).
    /// - Parameter consequence: what the loss meant, e.g. "; the mic is off".
    func report(quitKey: String, consequence: String) throws {
        switch state {
        case .stopped(.user):
            print("busker \(command): stopped (\(quitKey)). xruns: \(xruns)")
        case let .stopped(.signal(s)):
            print("busker \(command): stopped by \(s). xruns: \(xruns)")
        case .stopped(.songEnded):
            print("busker \(command): the song ended. xruns: \(xruns)")
        case let .stopped(.deviceLost(what)):
            throw CommandLineError.runtime("stopped: device lost: \(what)\(consequence). xruns: \(xruns)")
        case let .stopped(.error(what)):
            throw CommandLineError.runtime("stopped: device error: \(what)\(consequence). xruns: \(xruns)")
        case let .failed(failure):
            throw CommandLineError.runtime(failure.message)
        default:
            print("busker \(command): \(state.statusText). xruns: \(xruns)")
        }
    }
}
