import Chains
import CommandLineInterface
import Control
import DSP
import Engine
import Foundation
import Loudness
import MIDI
import Sequencing
import Sessions
import Session

/// The control thread of `busker live` on a live driver: reads keys (or
/// runs headless), turns them into live settings, reads meters, draws, and
/// hands keys, signals and driver reports to the session state machine
/// (`SessionRunner`), which alone starts, stops and resumes audio. It never
/// touches the audio thread's data except through parameters, meters and queues.
///
/// Strip keys act on the selected strip (tab cycles, 1–9 picks); bus keys on
/// the bus. On a stage, tab goes on over the parts (keys, drums, song), the
/// strip keys that make sense for a part act on it, `s` and Enter move the
/// song, and the mode key (`` ` ``) turns the computer keyboard into the
/// keys part's keyboard and back (`LiveSession+Stage`). Other controllers
/// (MIDI, OSC) use `setMic(on:)`, `toggleMic()`, `select(strip:)` and
/// `apply(_:)`, all on the control thread.
public final class LiveSession {
    public let chain: LiveChain
    public let runner: SessionRunner
    public var driver: any AudioDriver { runner.driver }
    /// What every control is set to now (the strips' channels as the chain was built).
    public private(set) var settings: LiveSettings
    /// The strip the strip keys act on, 0-based (when no part is selected).
    public internal(set) var selectedStrip = 0
    /// The stage part the strip keys act on, 0-based into `chain.stage.parts`;
    /// nil: the mic strip `selectedStrip`.
    public internal(set) var selectedPart: Int?
    /// The stage's song (`--song`); nil without one.
    public let player: (any SongTransport)?
    /// Where keys mode's notes go: the stage's keyboard port, one of the keys
    /// part's MIDI sources; nil off a stage.
    public let keyboardPort: MIDIInputPort?
    /// The keys part's scheduler, whose delivered count the keys-mode line shows; nil off a stage.
    let keysScheduler: MIDIScheduler?
    /// Keys mode: the computer keyboard plays the keys part (`keyboard`), not the controls.
    public internal(set) var keysMode = false
    /// The computer keyboard's note layout and held notes, as `busker play` has it.
    var keyboard = ComputerKeyboard()
    /// The big switch: off mutes every strip (their own mutes stay as set).
    public var micOn: Bool { chain.micOn }
    private let useTUI: Bool
    private let started = Date()
    /// Takes: `--record` and Ctrl-R. Set before `run`.
    public var takes: TakeControl?
    /// MIDI control, OSC and presets: polled by the control loop, applied to this session.
    public let controller: LiveController
    /// Where `w` saves presets; nil: no config folder to save in (`presetProblem` says why).
    public var presets: PresetStore? {
        get { controller.presets }
        set { controller.presets = newValue }
    }
    public var presetProblem: String? {
        get { controller.presetProblem }
        set { controller.presetProblem = newValue }
    }
    /// The preset the session started with or last saved: `w` offers its
    /// name, and the line printed at the end names it while the settings match it.
    public var presetName: String? {
        get { controller.presetName }
        set { controller.presetName = newValue }
    }
    /// The MIDI control mapping's `[midi]` lines, for a save; nil: the preset gets no `[midi]` section.
    public var midiPresetEntries: (() -> [PresetEntry])? {
        get { controller.midiPresetEntries }
        set { controller.midiPresetEntries = newValue }
    }
    /// The name being typed after `w`, on the bottom line; nil when not asking.
    public private(set) var namePrompt: NamePrompt?
    /// What the session said to the last key ("saved gig", the quit question,
    /// why a key can do nothing here), on the message line until the next key.
    public internal(set) var message: String?
    /// q was pressed with the mic on or a take running: the next q quits, any other key stays.
    public private(set) var quitAsked = false
    /// The question q asks while the mic is on or a take runs.
    public static let quitQuestion = "q again to quit, any other key to stay"
    /// MIDI control (`--midi`, `--midi-in`), drained by the control loop; learn mode's keys. Set before `run`.
    public var midi: LiveMIDIControl? {
        get { controller.midi }
        set { controller.midi = newValue }
    }
    /// OSC remote control (`--osc`), drained by the control loop. Set before `run`.
    public var osc: LiveOSCControl? {
        get { controller.osc }
        set { controller.osc = newValue }
    }
    /// The output's short-term loudness, measured here from the chain's loudness tap.
    private let loudness: ShortTermLoudness
    /// The DSP load (the engine's render time against the audio time), per second of audio.
    public let load: RenderLoadMeter

    /// The screen of `session` (a session of the live chain), with its takes
    /// and `controller`'s MIDI control, OSC and presets; nil for a session of
    /// another chain.
    public convenience init?(session: AudioSession, controller: LiveController, useTUI: Bool) {
        guard let chain = session.chain.live else { return nil }
        let onStage = chain.stage != nil
        self.init(chain: chain, runner: session.runner, useTUI: useTUI, controller: controller, player: session.song,
                  keyboardPort: onStage ? session.midi?.keyboardPort : nil, keysScheduler: onStage ? session.chain.scheduler : nil)
        takes = session.takes
    }

    /// - Parameters:
    ///   - player: the stage's song, for its transport keys and position line.
    ///   - keyboardPort: the stage's keyboard port, where keys mode plays; nil: no keys mode.
    ///   - keysScheduler: the scheduler `keyboardPort` feeds.
    public init(chain: LiveChain, runner: SessionRunner, useTUI: Bool, controller: LiveController = LiveController(),
                player: (any SongTransport)? = nil, keyboardPort: MIDIInputPort? = nil, keysScheduler: MIDIScheduler? = nil) {
        self.chain = chain
        self.runner = runner
        self.controller = controller
        self.player = player
        self.keyboardPort = keyboardPort
        self.keysScheduler = keysScheduler
        self.useTUI = useTUI
        loudness = ShortTermLoudness(tap: chain.loudnessTap)
        load = RenderLoadMeter(engine: runner.engine)
        self.settings = chain.settings
        settings = withEveryPart(chain.settings)
        if keyboardPort != nil {
            // Every stop, loss and interruption ends the keyboard's notes, at the scheduler's next cycle.
            runner.allNotesOff = { [unowned self] in
                self.playNotes(self.keyboard.releaseAll())
                keysScheduler?.releaseAllNotes()
            }
        }
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
            pollMIDI(headless: terminal == nil)
            pollOSC(headless: terminal == nil)
            loudness.update()
            if let line = takes?.poll(xruns: runner.xruns, silenced: runner.engine), terminal == nil { printError("busker live: \(line)") }
            expireNotes()
            if let terminal {
                for key in terminal.readKeys() {
                    if handle(key) == false { runner.send(.userStop) }
                }
                if runner.isOver { break }
                let size = terminal.size
                terminal.write(LiveScreen.draw(status(), columns: size.columns, rows: size.rows))
            } else {
                let second = Int(Date().timeIntervalSince(started))
                if second != lastStatusSecond {
                    lastStatusSecond = second
                    print(status().statusLine)
                    fflush(nil)
                }
            }
            if terminal != nil {
                waitForKey(milliseconds: 33)
            } else {
                usleep(33_000)
            }
        }
        return runner.state
    }

    /// Waits up to `milliseconds` for a key on the terminal, so that a key
    /// (a note in keys mode) is read and stamped as it comes rather than up
    /// to a refresh later; a closed or failing input waits the whole time.
    private func waitForKey(milliseconds: Int32) {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 || Int32(descriptor.revents) & (POLLHUP | POLLERR | POLLNVAL) != 0 { usleep(UInt32(milliseconds) * 1000) }
    }

    /// Turns the mic on or off: every strip ramps in or out over 20 ms, and
    /// the session hears of it (`.micOn`/`.micOff`) while audio runs.
    /// - Thread: control
    public func setMic(on: Bool) {
        guard on != chain.micOn else { return }
        chain.micOn = on
        if case .running = runner.state { runner.send(on ? .micOn : .micOff) }
    }

    /// - Thread: control
    public func toggleMic() { setMic(on: !chain.micOn) }

    /// Makes strip `index` (0-based) the one the strip keys act on; out of range is ignored.
    /// - Thread: control
    public func select(strip index: Int) {
        guard settings.strips.indices.contains(index) else { return }
        selectedStrip = index
        selectedPart = nil
    }

    /// Sets every control from `settings` (a preset, a MIDI controller).
    /// - Returns: false, changing nothing, when its strips differ in number or
    ///   channels from the running chain's (those need a new session), or a
    ///   value is out of range.
    /// - Thread: control
    @discardableResult
    public func apply(_ settings: LiveSettings) -> Bool {
        guard settings.strips.map(\.channels) == chain.strips.map(\.channels),
              (try? settings.validate()) != nil else { return false }
        var s = withEveryPart(settings)
        // Voice processing switches only where the node is carried (not carried: it stays off).
        for i in s.strips.indices where chain.strips[i].voiceProcessor == nil { s.strips[i].voiceProcessing = false }
        self.settings = s
        chain.apply(s)
        return true
    }

    /// Saves every strip, the bus, every stage part and the MIDI mapping as preset `name`
    /// (replacing one of that name); says how it went in `message`.
    /// - Returns: whether it was saved.
    /// - Thread: control
    @discardableResult
    public func savePreset(as name: String) -> Bool {
        guard let presets else {
            message = "not saved: " + (presetProblem ?? "no folder for presets")
            return false
        }
        do {
            try presets.save(LivePreset(settings: settings, midi: midiPresetEntries?()), as: name)
            presetName = name
            message = "saved \(name)"
            return true
        } catch {
            message = "not saved: \(error.description)"
            return false
        }
    }

    /// Applies one key; false means quit. While a preset's name is typed
    /// (after `w`), every key goes to the name prompt; a name the save
    /// refuses leaves the prompt open, with why on the message line. Quitting
    /// is deliberate: with the mic on or a take running, q asks first
    /// (`quitQuestion`) and only a second q quits; Esc never quits, it
    /// cancels (the prompt, learn mode, the question). In keys mode the keys
    /// play (`handleKeysMode`): q is a note there, and only the mode key
    /// leads back to the controls.
    public func handle(_ key: Key) -> Bool {
        if var prompt = namePrompt {
            switch prompt.handle(key) {
            case .editing: namePrompt = prompt
            case .cancelled:
                namePrompt = nil
                message = "not saved"
            case .accepted(let name):
                namePrompt = savePreset(as: name) ? nil : prompt
            }
            return true
        }
        message = nil
        if quitAsked {
            quitAsked = false
            return key != .character("q") && key != .character("Q")
        }
        if key == Self.modeKey { return switchMode() }
        if keysMode { return handleKeysMode(key) }
        if let handled = handleLearnKey(key) { return handled }
        if let handled = handleStageKey(key) { return handled }
        switch key {
        case .character("q"), .character("Q"):
            guard micOn || takes?.isRecording == true else { return false }
            quitAsked = true
            message = Self.quitQuestion
            return true
        case .escape:
            message = "Esc does not quit: q quits"
            return true
        case .character("w"), .character("W"):
            guard presets != nil else {
                message = "w cannot save a preset here: " + (presetProblem ?? "no folder for presets")
                return true
            }
            namePrompt = NamePrompt(label: "save preset as", text: presetName ?? "")
            return true
        default: break
        }
        var s = settings
        var strip = s.strips[selectedStrip]
        switch key {
        case .character("\u{12}"):  // Ctrl-R
            takes?.toggle()
            return true
        case .character(" "):
            guard case .running = runner.state else {
                // Audio is off (interrupted, waiting): space starts it again, on the same devices.
                runner.send(.userStart)
                return true
            }
            toggleMic()
            return true
        case .character("\t"):
            selectNext()
            return true
        case .character(let c) where ("1"..."9").contains(c):
            select(strip: Int(String(c))! - 1)
            return true
        // The bus.
        case .up, .character("+"), .character("="): s.volume = (s.volume + 0.05).clamped(to: VoiceSettings.volumeRange)
        case .down, .character("-"): s.volume = (s.volume - 0.05).clamped(to: VoiceSettings.volumeRange)
        case .character("h"), .character("H"): s.howlGuard.toggle()
        case .character("m"), .character("M"):
            let all = RoomPreset.allCases
            s.room = all[(all.firstIndex(of: s.room)! + 1) % all.count]
        // The selected strip.
        case .character("i"): strip.gainDB = (strip.gainDB - 1).clamped(to: StripSettings.gainRange)
        case .character("I"): strip.gainDB = (strip.gainDB + 1).clamped(to: StripSettings.gainRange)
        case .character("p"): strip.pan = (((strip.pan - 0.1) * 10).rounded() / 10).clamped(to: StripSettings.panRange)
        case .character("P"): strip.pan = (((strip.pan + 0.1) * 10).rounded() / 10).clamped(to: StripSettings.panRange)
        case .character("x"), .character("X"): strip.mute.toggle()
        case .character("b"): strip.bassDB = (strip.bassDB - 1).clamped(to: VoiceSettings.bassRange)
        case .character("B"): strip.bassDB = (strip.bassDB + 1).clamped(to: VoiceSettings.bassRange)
        case .character("t"): strip.trebleDB = (strip.trebleDB - 1).clamped(to: VoiceSettings.trebleRange)
        case .character("T"): strip.trebleDB = (strip.trebleDB + 1).clamped(to: VoiceSettings.trebleRange)
        case .character("g"): strip.boostDB = (strip.boostDB - 1).clamped(to: VoiceSettings.boostRange)
        case .character("G"): strip.boostDB = (strip.boostDB + 1).clamped(to: VoiceSettings.boostRange)
        case .character("r"): strip.reverbSendPercent = (strip.reverbSendPercent - 5).clamped(to: StripSettings.reverbSendRange)
        case .character("R"): strip.reverbSendPercent = (strip.reverbSendPercent + 5).clamped(to: StripSettings.reverbSendRange)
        case .character("n"), .character("N"): strip.noiseGate.toggle()
        case .character("c"), .character("C"): strip.compressor.toggle()
        case .character("v"), .character("V"):
            // Only when started with --voice-processing: the node (and its 10.7 ms) is not carried otherwise.
            guard chain.strips[selectedStrip].voiceProcessor != nil else {
                message = "v: voice processing is not loaded in this session; start busker live with --voice-processing"
                return true
            }
            strip.voiceProcessing.toggle()
        default: return true
        }
        s.strips[selectedStrip] = strip
        // Whole steps of 0.05 without float drift.
        s.volume = (s.volume * 20).rounded() / 20
        apply(s)
        return true
    }

    /// Everything the screen shows, read now (meters, limiter, guard, session).
    /// - Thread: control
    public func status() -> LiveStatus {
        let outMeter = chain.outputMeter
        let state = runner.statusText
        // Never the driver itself: once let go it may be closing on another thread.
        let readout = runner.driverReadout
        let format = readout.format, route = readout.route
        let roundTrip = Double(readout.latencyFrames) * 1000 / Double(format.sampleRate)
        let strips = zip(chain.strips, settings.strips).enumerated().map { index, pair in
            let (strip, values) = pair
            var activity: [String] = []
            if values.noiseGate { activity.append(strip.noiseGate.gateState == .closed ? "gate closed" : "gate open") }
            if values.compressor { activity.append(String(format: "compressor −%.1f dB", strip.compressor.gainReductionDB)) }
            return StripStatus(number: index + 1, source: values.sourceLabel, peakDB: strip.meter.reading(channel: 0).peakDB,
                               settings: values, selected: index == selectedStrip && selectedPart == nil,
                               voiceProcessingAvailable: strip.voiceProcessor != nil,
                               cleanUpActivity: activity.joined(separator: " · "))
        }
        var status = LiveStatus(
            micOn: micOn, settings: settings, strips: strips, selectedStrip: selectedStrip,
            outputPeakDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).peakDB },
            outputRMSDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).rmsDB },
            limiterReductionDB: chain.limiter.gainReductionDB,
            howl: chain.howlGuard.status(),
            xruns: runner.xruns, state: state, notice: runner.notices.last, hint: runner.state.hint,
            latency: "\(format.sampleRate) Hz · period \(format.periodFrames) · round trip \(readout.latencyFrames) frames = \(String(format: "%.1f", roundTrip)) ms"
                + (readout.clockCorrection.map { " · \($0.compactDescription)" } ?? ""),
            devices: "\(route.input ?? "no capture") → \(route.output)",
            seconds: Date().timeIntervalSince(started), recording: takes?.indicator,
            bottomLine: namePrompt?.line)
        status.message = message.map { TerminalText.escaped($0) }
        status.midi = remoteControlLine.map { TerminalText.escaped($0) }
        status.clockCorrection = readout.clockCorrection
        status.shortTermLUFS = loudness.shortTermLUFS
        status.dspLoad = load.update()
        status.learning = midi?.learn.isActive ?? false
        status.parts = partStatuses()
        status.song = songLine()
        status.keysMode = keysModeStatus()
        return status
    }
}

extension LiveSession: LiveControlTarget {}

extension Comparable {
    public func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
