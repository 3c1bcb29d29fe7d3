import Chains
import CommandLineInterface
import Engine
import Foundation
import Instruments
import MIDI
import Sessions
import Sequencing
import Session

/// The control thread of `busker play`: turns computer keys into notes (with
/// the timestamps they were typed at), draws the screen, follows the driver's
/// events, and frees what the audio thread retires.
public final class PlaySession {
    public let rig: InstrumentRig
    public let sources: MIDISources
    public let runner: SessionRunner
    public var driver: any AudioDriver { runner.driver }
    public let player: MIDIFilePlayer?
    public let songName: String?
    public private(set) var settings: VoiceSettings
    private var keyboard = ComputerKeyboard()
    /// Whether the terminal reports key releases (the kitty keyboard protocol).
    private var keyReleases = false
    private var noteStyle = NoteName.Style.letters
    private let useTUI: Bool
    private let started = Date()
    /// Takes: `--record` and Ctrl-R. Set before `run`.
    public var takes: TakeControl?
    /// The DSP load (the engine's render time against the audio time), per second of audio.
    public let load: RenderLoadMeter
    /// What the session said to the last key (why it could do nothing here), on the message line until the next key.
    public private(set) var message: String?
    /// Esc was pressed once while a take runs: a second Esc quits, any other key stays.
    public private(set) var quitAsked = false
    public static let quitQuestion = "a take is running: Esc again to quit, any other key to stay"
    /// What space says with no song.
    public static let noSongMessage = "no song: busker play SONG.mid"
    /// Notes and pads struck recently, with when they were last seen, so a
    /// short hit stays lit long enough to see.
    private var recentNotes: [Int: Date] = [:]
    private var recentPads: [Int: Date] = [:]

    /// The screen of `session` (a session of instruments), with its song,
    /// MIDI sources and takes; nil for a session of another chain.
    public convenience init?(session: AudioSession, settings: VoiceSettings, useTUI: Bool) {
        guard case let .instruments(rig) = session.chain, let sources = session.midi else { return nil }
        self.init(rig: rig, sources: sources, runner: session.runner, player: session.player,
                  songName: session.setup.sources.instruments?.songName, settings: settings, useTUI: useTUI)
        takes = session.takes
    }

    public init(rig: InstrumentRig, sources: MIDISources, runner: SessionRunner,
         player: MIDIFilePlayer?, songName: String?, settings: VoiceSettings, useTUI: Bool) {
        load = RenderLoadMeter(engine: runner.engine)
        self.rig = rig
        self.sources = sources
        self.runner = runner
        self.player = player
        self.songName = songName
        self.settings = settings
        self.useTUI = useTUI
        // Every stop, loss and interruption ends every note: the keyboard's
        // held keys, and every source's notes at the scheduler's next cycle
        // (which is the first one after any restart).
        runner.allNotesOff = { [unowned self] in
            self.send(self.keyboard.releaseAll())
            self.rig.scheduler.releaseAllNotes()
        }
    }

    /// Runs until Esc, SIGINT/SIGTERM, the song's end (headless) or the state
    /// machine ends the session; the terminal is restored before it returns.
    public func run() -> SessionState {
        let terminal = useTUI ? Terminal() : nil
        terminal?.enter()
        // Real key releases where the terminal offers them; timing rules elsewhere.
        keyReleases = terminal?.requestKeyEvents() ?? false
        runner.terminal = terminal
        defer {
            terminal?.restore()
            runner.terminal = nil
        }
        var lastDraw = Date.distantPast
        var lastStatusSecond = -1
        while !runner.isOver {
            runner.poll()
            if runner.isOver { break }
            if let line = takes?.poll(xruns: runner.xruns, silenced: runner.engine), terminal == nil { printError("busker play: \(line)") }
            let now = monotonicSeconds()
            if let terminal {
                // Wait for a key up to 5 ms: keys are stamped when read, so that is their timing error.
                var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 5)
                for event in terminal.readEvents() {
                    if handle(event, at: monotonicSeconds()) == false { quit() }
                }
                if runner.isOver { break }
                send(keyboard.expire(at: now))
                if Date().timeIntervalSince(lastDraw) >= 1.0 / 30 {
                    lastDraw = Date()
                    let size = terminal.size
                    terminal.write(PlayScreen.draw(status(), columns: size.columns, rows: size.rows))
                }
            } else {
                let second = Int(Date().timeIntervalSince(started))
                if second != lastStatusSecond {
                    lastStatusSecond = second
                    print(status().statusLine)
                    fflush(nil)
                }
                if let player, player.state == .finished { runner.send(.songEnded) }
                usleep(20_000)
            }
            rig.collectRetired()
        }
        return runner.state
    }

    /// Esc: the notes end before the sound does (release, let a few periods
    /// carry the note-offs), then the session stops.
    private func quit() {
        if case .running = runner.state {
            send(keyboard.releaseAll())
            rig.scheduler.releaseAllNotes()
            usleep(50_000)
        }
        runner.send(.userStop)
    }

    /// Applies one key event; false means quit. From a terminal that reports
    /// releases, the computer keyboard's keys play with real note-offs
    /// (`ComputerKeyboard.play`); every other key acts on its press.
    public func handle(_ event: KeyEvent, at now: Double) -> Bool {
        if keyReleases, let messages = keyboard.play(event, at: now) {
            // A note played is "any other key" too: Esc's question is off.
            if event.action != .release { quitAsked = false }
            send(messages)
            return true
        }
        return event.action == .release || handle(event.key, at: now)
    }

    /// Applies one key press, with the computer keyboard's timing rules; false means quit.
    /// Space pauses and resumes the song where it is (its notes end on the
    /// pause), Enter rewinds it; a key that can do nothing here says why on the message line.
    public func handle(_ key: Key, at now: Double) -> Bool {
        message = nil
        // Quitting ends a take: while one runs, Esc asks once, and only a second Esc quits.
        let asked = quitAsked
        quitAsked = false
        if asked && key != .escape { return true }
        switch key {
        case .escape:
            if takes?.isRecording == true && !asked {
                quitAsked = true
                message = Self.quitQuestion
                return true
            }
            return false
        case .character("\u{12}"): takes?.toggle()  // Ctrl-R
        case .up: setVolume(settings.volume + 0.05)
        case .down: setVolume(settings.volume - 0.05)
        case .left: send(keyboard.press("[", at: now))
        case .right: send(keyboard.press("]", at: now))
        case .character("{"): stepInstrument(by: -1)
        case .character("}"): stepInstrument(by: 1)
        case .character("\t"): noteStyle = noteStyle == .letters ? .solfege : .letters
        case .character("\u{7F}"), .character("\u{08}"):
            send(keyboard.releaseAll())
            rig.scheduler.releaseAllNotes()
        case .character(" "):
            guard case .running = runner.state else {
                // Audio is off (interrupted, waiting): space starts it again, on the same device.
                runner.send(.userStart)
                return true
            }
            guard let player else {
                message = Self.noSongMessage
                return true
            }
            switch player.state {
            case .playing: player.pause()
            case .paused: player.resume()
            case .stopped, .finished: player.play()
            }
        case .character("\r"), .character("\n"):
            guard let player else {
                message = Self.noSongMessage
                return true
            }
            // Playing: from the top at once; paused or stopped: back to the top, stopped.
            player.state == .playing ? player.play() : player.stop()
        case .character(let c):
            send(keyboard.press(c, at: now))
        }
        return true
    }

    /// Selects the SoundFont's previous or next melodic preset on the
    /// keyboard's channel: a bank select and a program change, sent as the
    /// keys' notes are, so notes already sounding keep sounding (FluidSynth
    /// changes a channel's preset for its next notes) and a take records
    /// the change. A preset not yet in memory loads meanwhile; the screen says so.
    private func stepInstrument(by offset: Int) {
        let channel = keyboard.options.channel
        let current = rig.synth.preset(onChannel: Int(channel))?.preset
        guard let next = rig.synth.presets.step(from: current, by: offset) else {
            message = "{ }: the SoundFont has no melodic instrument to step to"
            return
        }
        send(next.selectionMessages(channel: channel))
    }

    /// The keyboard channel's instrument, for the screen.
    private func instrumentLine() -> String? {
        let channel = Int(keyboard.options.channel)
        guard let (preset, loading) = rig.synth.preset(onChannel: channel) else { return nil }
        return "channel \(channel + 1): \(preset.name) (bank \(preset.bank) program \(preset.program))"
            + (loading ? " · loading…" : "")
    }

    private func setVolume(_ volume: Float) {
        settings.volume = ((volume * 20).rounded() / 20).clamped(to: VoiceSettings.volumeRange)
        rig.chain.apply(settings)
    }

    /// Sends the keyboard's messages, stamped now (the scheduler places them one cycle later, evenly spaced).
    private func send(_ messages: [MIDIMessage]) {
        guard !messages.isEmpty else { return }
        let stamp = MIDIInputPort.hostTimeNow
        for message in messages { sources.keyboardPort.send(message, at: .hostNanoseconds(stamp)) }
    }

    public func status() -> PlayStatus {
        let now = Date()
        for note in rig.scheduler.activity.takeStruckNotes() { recentNotes[note] = now }
        for note in rig.scheduler.activity.takeDrumHits() { recentPads[note] = now }
        recentNotes = recentNotes.filter { now.timeIntervalSince($0.value) < 0.15 }
        recentPads = recentPads.filter { now.timeIntervalSince($0.value) < 0.15 }
        var pressed = Set(recentNotes.keys)
        for note in 0..<128 where rig.scheduler.activity.isHeld(note) { pressed.insert(note) }
        let pads = ComputerKeyboard.drumRow.map { pad in
            // A pad of the kit shows its name; a note the SoundFont plays, its GM name marked "sf".
            (key: String(pad.key),
             name: rig.kit?.pad(forNote: pad.note)?.name
                ?? (GeneralMIDI.percussionNames[pad.note] ?? "?") + (rig.drumOrigin(note: pad.note) == "sf" ? " (sf)" : " (silent)"),
             lit: recentPads[Int(pad.note)] != nil)
        }
        let state = runner.statusText
        let outMeter = rig.chain.outputMeter
        let dropped = rig.scheduler.ports.reduce(0) { $0 + $1.droppedCount } + rig.scheduler.overflowCount
        var song: String?
        if let player, let songName {
            let length = Double(player.lengthFrames) / Double(player.sampleRate)
            song = "\(songName) \(String(format: "%.1f / %.1f s", player.positionSeconds, length)) · \(player.state)"
                + (player.isLooping ? " · loop" : "") + (player.tempoScale != 1 ? " · tempo ×\(player.tempoScale)" : "")
        }
        var status = PlayStatus(
            settings: settings,
            outputPeakDB: (0..<outMeter.channelCount).map { outMeter.reading(channel: $0).peakDB },
            limiterReductionDB: rig.chain.limiter.gainReductionDB,
            xruns: runner.xruns, state: state, notice: runner.notices.last, hint: runner.state.hint,
            latency: runner.driverReadout.summary,
            device: runner.driverReadout.route.output,
            seconds: now.timeIntervalSince(started),
            instruments: rig.summary(instrument: rig.synth.preset(onChannel: Int(keyboard.options.channel))?.preset.name),
            instrument: instrumentLine(),
            sources: sources.summary,
            notices: sources.notices,
            pressedNotes: pressed,
            keyboardLowerC: keyboard.options.lowerC,
            noteStyle: noteStyle,
            legend: keyboard.legend(style: noteStyle),
            pads: pads,
            samplerVoices: rig.sampler.activeVoiceCount,
            polyphony: rig.synth.configuration.polyphony,
            drumVoices: rig.drums?.activeVoiceCount,
            midiMessages: rig.scheduler.deliveredCount,
            droppedMessages: dropped,
            watchdogReleases: rig.scheduler.watchdogReleaseCount,
            song: song, recording: takes?.indicator)
        status.dspLoad = load.update()
        status.message = message
        return status
    }
}

/// CLOCK_MONOTONIC in seconds, the keyboard's clock.
public func monotonicSeconds() -> Double {
    Double(MIDIInputPort.hostTimeNow) / 1e9
}
