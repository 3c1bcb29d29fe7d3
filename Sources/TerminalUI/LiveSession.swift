import DSP
import Foundation
import Rig
import Session

/// The control thread of `busker live` on a live driver: reads keys (or
/// runs headless), turns them into voice settings, reads meters, draws, and
/// hands keys, signals and driver reports to the session state machine
/// (`SessionRunner`), which alone starts, stops and resumes audio. It never
/// touches the audio thread's data except through parameters, meters and queues.
public final class LiveSession {
    public let chain: VoiceChain
    public let runner: SessionRunner
    public var driver: any AudioDriver { runner.driver }
    public private(set) var settings: VoiceSettings
    public private(set) var micOn = true
    private let useTUI: Bool
    private let started = Date()
    /// Takes: `--record` and Ctrl-R. Set before `run`.
    public var takes: TakeControl?

    public init(chain: VoiceChain, runner: SessionRunner, settings: VoiceSettings, useTUI: Bool) {
        self.chain = chain
        self.runner = runner
        self.settings = settings
        self.useTUI = useTUI
    }

    /// Runs until q, SIGINT/SIGTERM or the state machine ends the session
    /// (a lost device); the runner has already started audio. The terminal is
    /// restored before this returns, whatever happened.
    /// - Returns: the final state (its reason decides the last line and the exit status).
    public func run() -> SessionState {
        let terminal = useTUI ? Terminal() : nil
        terminal?.enter()
        runner.terminal = terminal
        defer {
            terminal?.restore()
            runner.terminal = nil
        }
        var lastStatusSecond = -1
        while !runner.isOver {
            runner.poll()
            if runner.isOver { break }
            if let line = takes?.poll(xruns: runner.xruns), terminal == nil { printError("busker live: \(line)") }
            if let terminal {
                for key in terminal.readKeys() {
                    if handle(key) == false { runner.send(.userStop) }
                }
                if runner.isOver { break }
                terminal.write(LiveScreen.draw(status(), columns: terminal.size.columns))
            } else {
                let second = Int(Date().timeIntervalSince(started))
                if second != lastStatusSecond {
                    lastStatusSecond = second
                    print(status().statusLine)
                    fflush(nil)
                }
            }
            usleep(33_000)
        }
        return runner.state
    }

    /// Applies one key; false means quit.
    public func handle(_ key: Key) -> Bool {
        var s = settings
        switch key {
        case .character("q"), .character("Q"), .escape: return false
        case .character("\u{12}"):  // Ctrl-R
            takes?.toggle()
            return true
        case .character(" "):
            guard case .running = runner.state else {
                // Audio is off (interrupted, waiting): space starts it again, on the same devices.
                runner.send(.userStart)
                return true
            }
            micOn.toggle()
            chain.mixer.inputs[chain.voiceBus].mute.value = micOn ? 0 : 1
            runner.send(micOn ? .micOn : .micOff)
            return true
        case .up, .character("+"), .character("="): s.volume = (s.volume + 0.05).clamped(to: VoiceSettings.volumeRange)
        case .down, .character("-"): s.volume = (s.volume - 0.05).clamped(to: VoiceSettings.volumeRange)
        case .character("b"): s.bassDB = (s.bassDB - 1).clamped(to: VoiceSettings.bassRange)
        case .character("B"): s.bassDB = (s.bassDB + 1).clamped(to: VoiceSettings.bassRange)
        case .character("t"): s.trebleDB = (s.trebleDB - 1).clamped(to: VoiceSettings.trebleRange)
        case .character("T"): s.trebleDB = (s.trebleDB + 1).clamped(to: VoiceSettings.trebleRange)
        case .character("g"): s.boostDB = (s.boostDB - 1).clamped(to: VoiceSettings.boostRange)
        case .character("G"): s.boostDB = (s.boostDB + 1).clamped(to: VoiceSettings.boostRange)
        case .character("r"): s.reverbPercent = (s.reverbPercent - 5).clamped(to: VoiceSettings.reverbRange)
        case .character("R"): s.reverbPercent = (s.reverbPercent + 5).clamped(to: VoiceSettings.reverbRange)
        case .character("n"), .character("N"): s.noiseGate.toggle()
        case .character("c"), .character("C"): s.compressor.toggle()
        case .character("v"), .character("V"):
            // Only when started with --voice-processing: the node (and its 20 ms) is not carried otherwise.
            guard chain.voiceProcessor != nil else { return true }
            s.voiceProcessing.toggle()
        case .character("h"), .character("H"): s.howlGuard.toggle()
        case .character("m"), .character("M"):
            let all = RoomPreset.allCases
            s.room = all[(all.firstIndex(of: s.room)! + 1) % all.count]
        default: return true
        }
        // Whole steps of 0.05 without float drift.
        s.volume = (s.volume * 20).rounded() / 20
        settings = s
        chain.apply(s)
        return true
    }

    public func status() -> LiveStatus {
        let inMeter = chain.inputMeter, outMeter = chain.outputMeter
        let state = runner.statusText
        let format = driver.format, route = driver.route
        let roundTrip = Double(driver.latencyFrames) * 1000 / Double(format.sampleRate)
        var status = LiveStatus(
            micOn: micOn, settings: settings,
            inputPeakDB: (0..<inMeter.channelCount).map { inMeter.reading(channel: $0).peakDB },
            outputPeakDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).peakDB },
            outputRMSDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).rmsDB },
            limiterReductionDB: chain.limiter.gainReductionDB,
            howl: chain.howlGuard.status(),
            xruns: runner.xruns, state: state, notice: runner.notices.last, hint: runner.state.hint,
            latency: "\(format.sampleRate) Hz · period \(format.periodFrames) · round trip \(driver.latencyFrames) frames = \(String(format: "%.1f", roundTrip)) ms"
                + (driver.clockCorrection.map { " · \($0.compactDescription)" } ?? ""),
            devices: "\(route.input ?? "no capture") → \(route.output)",
            seconds: Date().timeIntervalSince(started), recording: takes?.indicator)
        var activity: [String] = []
        if settings.noiseGate { activity.append(chain.noiseGate.gateState == .closed ? "gate closed" : "gate open") }
        if settings.compressor { activity.append(String(format: "compressor −%.1f dB", chain.compressor.gainReductionDB)) }
        status.cleanUpActivity = activity.joined(separator: " · ")
        return status
    }
}

extension Comparable {
    public func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
