import Engine
import Foundation

/// Runs a session on any `AudioDriver` for `busker live`, `busker play` and
/// `busker record`: feeds the state machine every event (driver reports,
/// signals, devices appearing, keys) and carries out the effects it decides
/// — the only place that starts, stops, resumes or reopens audio.
///
/// Audio only ever starts on the route the user chose: the driver is opened
/// (and reopened) from the options given at launch, and a start effect for
/// any other route is refused.
///
/// It knows the driver only through the protocol: tests run it on the ALSA
/// driver with injected faults (`PCMCalls`), on an offline file driver, and
/// on a scripted in-memory driver.
public final class SessionRunner {
    public let machine: SessionStateMachine
    public let command: String
    public let engine: RenderEngine
    public private(set) var state: SessionState = .idle
    public private(set) var driver: any AudioDriver
    private var format: AudioFormat
    private var watch: DriverWatch
    /// Devices coming and going, polled once a second (`pollDevices()`); nil: none to watch.
    private let watcher: (any DeviceWatching)?
    private var lastDevicePoll = Date.distantPast
    /// The engine's silenced-block count last told, and when.
    private var silencedTold = 0
    private var lastSilencedTell = Date.distantPast
    /// Opens the route again after a loss; nil: the driver's own `reopen()`.
    private let reopen: (() throws -> any AudioDriver)?
    private var xrunsOfClosedDrivers = 0
    /// The driver was handed to `release(withinMilliseconds:)`: it is
    /// closed, or closing on a thread of its own, and is not touched again.
    private var driverLetGo = false
    /// The driver as it was when let go: what the screens show until a new one is opened.
    private var readoutAtLetGo: DriverReadout?
    /// Closes that had not returned within `SessionPolicy.releaseMilliseconds`
    /// (left to a detached thread; a dead sound server's library waiting on it).
    public private(set) var closesLeftRunning = 0
    /// Audio was started and no period has gone through since (then `.firstPeriod` is sent).
    private var awaitingFirstPeriod = false
    private var processing = false
    private var queued: [SessionEvent] = []

    /// The things the machine said, newest last (the screen shows the last).
    public private(set) var notices: [String] = []
    /// Set while a screen is up: effects restore and re-enter it.
    public var terminal: (any SessionScreen)?

    // MARK: Hooks the sessions fill in
    /// Compiles and installs the render graph for the driver's format.
    public var rebuildGraph: (any AudioDriver) throws -> Void = { _ in }
    /// Ends every sounding note (instruments; the live mic has none).
    public var allNotesOff: () -> Void = {}
    /// Where a notice goes while no screen is up (`--no-tui`): the session's
    /// output, as a line. Either way it is kept in `notices`.
    public var noticeWithoutScreen: (String) -> Void = { _ in }
    /// Closes the take in progress (the commands' `TakeControl`) so the file
    /// holds everything up to the stop or the loss. Runs on every stop and loss,
    /// after the audio has stopped.
    public var finalizeRecording: (() -> Void)?
    /// The job-control and stop signals that arrived since the last poll (the executable's signal handler).
    private let takeSignals: () -> [ProcessSignal]
    /// Really stops the process (SIGSTOP to ourselves), as Ctrl-Z means.
    private let suspendProcess: () -> Void

    /// - Parameters:
    ///   - driver: opened on the chosen route (open errors are the command's one-line error).
    ///   - watcher: notices devices coming and going (nil: nothing to watch, as offline).
    ///   - reopen: opens the same route again after a loss (`--reconnect`);
    ///     nil: the driver's own `reopen()`.
    ///   - takeSignals: the signals that arrived since the last poll.
    ///   - suspendProcess: stops the process (Ctrl-Z).
    public init(command: String, driver: any AudioDriver, engine: RenderEngine, policy: SessionPolicy,
                watcher: (any DeviceWatching)?,
                takeSignals: @escaping () -> [ProcessSignal], suspendProcess: @escaping () -> Void,
                reopen: (() throws -> any AudioDriver)? = nil) {
        self.command = command
        self.takeSignals = takeSignals
        self.suspendProcess = suspendProcess
        self.driver = driver
        self.engine = engine
        self.reopen = reopen
        self.watcher = watcher
        machine = SessionStateMachine(route: driver.route, policy: policy)
        format = driver.format
        watch = DriverWatch(policy: policy)
    }

    public var isOver: Bool { state.isFinal }
    public var xruns: Int { xrunsOfClosedDrivers + (driverClosed ? 0 : driver.xrunCount) }

    /// The route, format, latency and summary the screens show: the driver's
    /// own while the session holds it, as they were when it was let go after.
    public var driverReadout: DriverReadout { readoutAtLetGo ?? DriverReadout(of: driver) }

    /// Whether the driver is closed or let go (closing on its own thread).
    private var driverClosed: Bool { driverLetGo || driver.isClosed }

    /// The state and its reason, for the screen and the status line.
    public var statusText: String {
        if case .interrupted(.stalled, _) = state, let ms = lastStall { return "STALLED: no audio period for \(ms) ms" }
        return state.statusText
    }
    private var lastStall: Int?

    // MARK: Events in

    /// Runs one event through the machine and carries out its effects (and
    /// the events those produce, in order).
    public func send(_ event: SessionEvent) {
        queued.append(event)
        guard !processing else { return }
        processing = true
        defer { processing = false }
        while !queued.isEmpty {
            let next = queued.removeFirst()
            if case let .stalled(ms) = next { lastStall = ms }
            if case let .noFirstPeriod(_, ms, _) = next { lastStall = ms }
            let (newState, effects) = machine.transition(from: state, on: next)
            state = newState
            for effect in effects { perform(effect) }
        }
    }

    /// Signals, driver reports and (once a second) devices coming and going.
    public func poll() {
        for signal in takeSignals() { send(.signal(signal)) }
        if !driverClosed {
            for event in watch.poll(driver) { send(event) }
            reportFirstPeriod()
        }
        if Date().timeIntervalSince(lastDevicePoll) >= 1 {
            lastDevicePoll = Date()
            pollDevices()
        }
        tellSilencedAudio()
        engine.collectRetiredPlans()
    }

    /// Sends `.firstPeriod` once a period has gone all the way through
    /// since the last start (read, rendered and written: a rendered period
    /// whose write waits on a stuck playback PCM is not audio back): only
    /// then is audio said to be back.
    private func reportFirstPeriod() {
        guard awaitingFirstPeriod, driver.completedPeriodSinceStart else { return }
        awaitingFirstPeriod = false
        send(.firstPeriod)
    }

    /// Says when the engine silenced blocks that held NaN, infinite or absurd
    /// samples: at once the first time, then at most every 10 s while more come.
    private func tellSilencedAudio() {
        let total = engine.silencedBlockCount
        guard total > silencedTold else { return }
        if silencedTold > 0 && Date().timeIntervalSince(lastSilencedTell) < 10 { return }
        silencedTold = total
        lastSilencedTell = Date()
        tell(engine.silencedAudio().description(sampleRate: format.sampleRate) + "; the sound goes on")
    }

    /// Asks the device watcher what changed and reports it (`poll` does it once a second).
    public func pollDevices() {
        guard let watcher else { return }
        for change in watcher.poll() {
            switch change {
            case let .appeared(name): send(.deviceAppeared(name))
            case let .removed(name): tell("a device went away: \(name)")
            case .routeAvailable: send(.deviceAppeared(machine.route.output))
            }
        }
    }

    // MARK: Effects out

    /// Carries out one effect. The state machine's effects come through
    /// `send`; this is public so that tests can hand the runner effects no
    /// machine would make (a start on another route) and see them refused.
    public func perform(_ effect: SessionEffect) {
        switch effect {
        case let .startAudio(route):
            guard route == machine.route else { return refuse(route) }
            startAudio()
        case let .resumeAudio(route):
            guard route == machine.route else { return refuse(route) }
            watch.reset()
            awaitingFirstPeriod = true
            do {
                try driver.resumeAfterSuspend(engine: engine)
                send(.started)
            } catch {
                awaitingFirstPeriod = false
                send(.startFailed(startFailure(error)))
            }
        case let .restartStreams(route):
            guard route == machine.route else { return refuse(route) }
            watch.noteFirstPeriodRestart()
            // A sound server's PCM or client it does not schedule stays so
            // through a drop and a prepare: let it go and open the route anew.
            // A close still running may not have stopped its render thread:
            // no second one on the engine then; the device counts as lost.
            guard closeDriver() else {
                let device = machine.route.output
                return send(.startFailed(StartFailure(kind: .missing, device: device,
                                                      message: "\(machine.route) did not close within \(machine.policy.releaseMilliseconds) ms to restart")))
            }
            startAudio()
        case .stopAudio:
            if !driverClosed { driver.stop() }
        case .releaseDevices:
            closeDriver()
        case .drainAudio:
            // A device lost while the last notes drain is a loss, not a clean end.
            if !driverClosed, let failure = driver.finish(timeoutMilliseconds: 2000),
               let event = failure.sessionEvent(route: driver.route, detail: driver.stopDetail) {
                send(event)
            }
        case .allNotesOff:
            allNotesOff()
        case .finalizeRecording:
            finalizeRecording?()
        case let .rebuildGraph(newFormat):
            // The format graphs are built for now (a driver that changed it while running, or one reopened).
            format = newFormat
            do {
                try rebuildGraph(driver)
            } catch {
                // No graph for the device's format: audio must not start on the old one. The session ends.
                send(.driverError("\(error)"))
            }
        case let .watchForDevice(route):
            // Let go of the lost devices (a dead server's client, a gone card) and try the chosen ones once a second.
            closeDriver()
            watcher?.watchedRoute = route
        case .restoreTerminal:
            terminal?.restore()
        case .reenterTerminal:
            terminal?.enter()
        case .suspendProcess:
            suspendProcess()
        case let .tell(text):
            tell(text)
        case .end:
            break  // `state` is final; the command prints the last line and exits with its status
        }
    }

    /// A start on any route but the chosen one fails the start (the session
    /// ends, exit status 1): audio never comes out of a device the user did not pick.
    private func refuse(_ route: DeviceRoute) {
        tell("refused to start on \(route): the chosen route is \(machine.route)")
        send(.startFailed(StartFailure(kind: .other, device: route.output,
                                       message: "refused to start on \(route): the chosen route is \(machine.route)")))
    }

    /// Opens the route again if it was let go, rebuilds the graph if the
    /// format changed, and starts.
    private func startAudio() {
        if driverClosed {
            // A close left running may not have stopped its render thread: never a second
            // one on the engine. (It never returned: its library waits on a dead server.)
            guard closesLeftRunning == 0 else {
                return send(.startFailed(StartFailure(kind: .missing, device: machine.route.output,
                                                      message: "the last close of \(machine.route) never returned; start busker again")))
            }
            do {
                let reopened = try reopen?() ?? driver.reopen()
                // The route comes from the launch options; check it anyway.
                guard reopened.route == machine.route else {
                    reopened.close()
                    return send(.startFailed(StartFailure(kind: .other, device: reopened.route.output,
                                                          message: "refused to start on \(reopened.route): the chosen route is \(machine.route)")))
                }
                driver = reopened
                driverLetGo = false
                readoutAtLetGo = nil
                watcher?.watchedRoute = nil
            } catch {
                return send(.startFailed(startFailure(error)))
            }
            let granted = driver.format
            if granted != format {
                format = granted
                send(.formatChanged(granted))  // queued: runs the rebuild before the start below
                processQueuedNow()
                guard !state.isFinal else { return }  // the rebuild failed: nothing starts
            }
        }
        // A stalled loop is still waiting for a period: end it before starting again.
        driver.stop()
        watch.reset()
        awaitingFirstPeriod = true
        do {
            if case .suspended? = driver.stopReason {
                try driver.resumeAfterSuspend(engine: engine)
            } else {
                try driver.start(engine: engine)
            }
            send(.started)
        } catch {
            awaitingFirstPeriod = false
            send(.startFailed(startFailure(error)))
        }
    }

    /// What the state machine needs to know of a failed (re)start: a driver's
    /// own errors say whether the device was busy or missing.
    private func startFailure(_ error: any Error) -> StartFailure {
        if let error = error as? any DriverError { return error.startFailure }
        return StartFailure(kind: .other, device: machine.route.output, message: "\(error)")
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

    /// Lets the driver go, waiting for its close at most
    /// `SessionPolicy.releaseMilliseconds`: a close that waits on a dead
    /// server finishes on its own thread while the session goes on (its take
    /// finalized, its exit not held up).
    /// - Returns: false when the close was left running on its thread.
    @discardableResult
    private func closeDriver() -> Bool {
        guard !driverClosed else { return true }
        xrunsOfClosedDrivers += driver.xrunCount
        readoutAtLetGo = DriverReadout(of: driver)
        driverLetGo = true
        guard driver.release(withinMilliseconds: machine.policy.releaseMilliseconds) else {
            closesLeftRunning += 1
            return false
        }
        return true
    }

    /// Closes the devices at the end (within the bound). The engine's plans
    /// are freed only when every close has returned: a driver still closing
    /// may not have stopped rendering.
    public func close() {
        closeDriver()
        if closesLeftRunning == 0 { engine.releaseAll() }
    }

    private func tell(_ text: String) {
        notices.append(text)
        if notices.count > 20 { notices.removeFirst(notices.count - 20) }
        if terminal == nil { noticeWithoutScreen(text) }
    }
}
