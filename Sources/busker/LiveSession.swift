import ALSAIO
import AudioCore
import Foundation

/// The control thread of `busker live` on the ALSA driver: reads keys (or
/// runs headless), turns them into voice settings, reads meters and driver
/// events, draws, and frees what the audio thread retires. It never touches
/// the audio thread's data except through parameters, meters and queues.
final class LiveSession {
    let chain: VoiceChain
    let driver: DuplexDriver
    let engine: RenderEngine
    private(set) var settings: VoiceSettings
    private(set) var micOn = true
    private let useTUI: Bool
    private let started = Date()
    private var watch = DriverWatch()

    init(chain: VoiceChain, driver: DuplexDriver, engine: RenderEngine, settings: VoiceSettings, useTUI: Bool) {
        self.chain = chain
        self.driver = driver
        self.engine = engine
        self.settings = settings
        self.useTUI = useTUI
    }

    /// How the session ended.
    enum Ending {
        case userQuit
        /// The song `busker play --no-tui` was playing came to its end.
        case songEnded
        case signal(Int32)
        case driverStopped(DriverStopReason)
    }

    /// Runs until q, SIGINT/SIGTERM or the driver stops. The terminal is
    /// restored before this returns, whatever happened.
    func run() -> Ending {
        let terminal = useTUI ? Terminal() : nil
        terminal?.enter()
        defer { terminal?.restore() }
        var lastStatusSecond = -1
        while true {
            if let sig = StopSignals.pending { return .signal(sig) }
            if let reason = watch.poll(driver) { return .driverStopped(reason) }
            if let terminal {
                for key in terminal.readKeys() {
                    if handle(key) == false { return .userQuit }
                }
                terminal.write(LiveScreen.draw(status(), columns: terminal.size.columns))
            } else {
                let second = Int(Date().timeIntervalSince(started))
                if second != lastStatusSecond {
                    lastStatusSecond = second
                    print(status().statusLine)
                    fflush(nil)
                }
            }
            engine.collectRetiredPlans()
            usleep(33_000)
        }
    }

    /// Applies one key; false means quit.
    func handle(_ key: Key) -> Bool {
        var s = settings
        switch key {
        case .character("q"), .character("Q"), .escape: return false
        case .character(" "):
            micOn.toggle()
            chain.mixer.inputs[chain.voiceBus].mute.value = micOn ? 0 : 1
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

    func status() -> LiveStatus {
        let inMeter = chain.inputMeter, outMeter = chain.outputMeter
        let state = watch.state(of: driver)
        let g = driver.granted
        return LiveStatus(
            micOn: micOn, settings: settings,
            inputPeakDB: (0..<inMeter.channelCount).map { inMeter.reading(channel: $0).peakDB },
            outputPeakDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).peakDB },
            outputRMSDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).rmsDB },
            limiterReductionDB: chain.limiter.gainReductionDB,
            howl: chain.howlGuard.status(),
            xruns: driver.xrunCount, state: state,
            latency: "\(g.sampleRate) Hz · period \(g.periodFrames) × \(g.periodCount) · round trip \(g.roundTripFrames) frames = \(String(format: "%.1f", g.roundTripMilliseconds)) ms",
            devices: "\(g.capture?.device ?? "no capture") → \(g.playback.device)",
            seconds: Date().timeIntervalSince(started))
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
