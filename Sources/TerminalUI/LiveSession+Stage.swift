import Chains
import Foundation
import MIDI
import Sequencing

/// The stage's keys on the live screen: tab over the parts, the strip keys
/// that make sense for a part (level, pan, mute, solo, reverb send), the
/// song's transport, and keys mode, where the computer keyboard plays the
/// keys part with `busker play`'s layout.
extension LiveSession {
    /// The key that switches between the control keys and keys mode; no
    /// control uses it and it plays no note.
    public static var modeKey: Key { .character("`") }
    /// What the mode key says off a stage.
    public static let noKeysModeMessage = "`: keys mode plays the stage's instruments; start busker live with --instrument NAME"
    /// What the song keys say on a stage without a song.
    public static let noSongMessage = "no song: start busker live with --song FILE.mid"

    /// The stage's parts, in the order of their strips (none off a stage).
    var parts: [StagePart] { chain.stage?.parts ?? [] }

    /// `settings` with every part of the stage named (at its defaults where
    /// not set), so that a save writes every part.
    func withEveryPart(_ settings: LiveSettings) -> LiveSettings {
        var s = settings
        for part in parts where s.parts[part.name] == nil { s.parts[part.name] = PartSettings() }
        return s
    }

    /// Tab: the next mic strip, then each part, then the first strip again.
    /// - Thread: control
    func selectNext() {
        if let part = selectedPart {
            if part + 1 < parts.count {
                selectedPart = part + 1
            } else {
                selectedPart = nil
                selectedStrip = 0
            }
        } else if selectedStrip + 1 < settings.strips.count {
            selectedStrip += 1
        } else if !parts.isEmpty {
            selectedPart = 0
        } else {
            selectedStrip = 0
        }
    }

    /// Makes part `index` (0-based into the stage's parts) the one the strip keys act on; out of range is ignored.
    /// - Thread: control
    public func select(part index: Int) {
        if parts.indices.contains(index) { selectedPart = index }
    }

    /// The mode key: into keys mode on a stage (the screen says so), and
    /// back to the control keys with every held note ended.
    /// - Returns: true (the mode key never quits).
    /// - Thread: control
    func switchMode() -> Bool {
        guard keyboardPort != nil else {
            message = Self.noKeysModeMessage
            return true
        }
        if keysMode { playNotes(keyboard.releaseAll()) }
        keysMode.toggle()
        return true
    }

    /// A key in keys mode: a note, a drum pad or the octave on the keys
    /// part; space still switches the mic, Ctrl-R the take, ↑ ↓ the volume;
    /// Backspace ends every note. Esc and q never quit here (q is a note):
    /// the mode key leads back to the controls, where q quits.
    /// - Returns: true (nothing in keys mode quits).
    /// - Thread: control
    func handleKeysMode(_ key: Key) -> Bool {
        let now = monotonicSeconds()
        switch key {
        case .escape:
            message = "Esc does not quit: ` returns to the control keys, where q quits"
        case .character(" "):
            guard case .running = runner.state else {
                runner.send(.userStart)
                return true
            }
            toggleMic()
        case .character("\u{12}"):  // Ctrl-R
            takes?.toggle()
        case .up, .down:
            var s = settings
            s.volume = (((s.volume + (key == .up ? 0.05 : -0.05)) * 20).rounded() / 20).clamped(to: VoiceSettings.volumeRange)
            apply(s)
        case .left: playNotes(keyboard.press("[", at: now))
        case .right: playNotes(keyboard.press("]", at: now))
        case .character("\u{7F}"), .character("\u{08}"):
            playNotes(keyboard.releaseAll())
            keysScheduler?.releaseAllNotes()
        case .character(let c):
            playNotes(keyboard.press(c, at: now))
        }
        return true
    }

    /// Ends the notes whose hold has run out (`ComputerKeyboard`'s timing
    /// rules, for terminals that report no key releases); called by the control loop.
    /// - Thread: control
    func expireNotes() {
        guard keyboardPort != nil else { return }
        playNotes(keyboard.expire(at: monotonicSeconds()))
    }

    /// Sends the keyboard's messages to the keys part, stamped now (the scheduler places them one cycle later).
    /// - Thread: control
    func playNotes(_ messages: [MIDIMessage]) {
        guard let keyboardPort, !messages.isEmpty else { return }
        let stamp = MIDIInputPort.hostTimeNow
        for message in messages { keyboardPort.send(message, at: .hostNanoseconds(stamp)) }
    }

    /// The stage's control keys: the song's transport, and the strip keys on
    /// a selected part. Returns nil when the key is not the stage's (the
    /// caller handles it as a mic strip's or the bus's key).
    /// - Thread: control
    func handleStageKey(_ key: Key) -> Bool? {
        switch key {
        case .character("s"), .character("S"):
            guard chain.stage != nil else { return nil }
            guard let player else {
                message = Self.noSongMessage
                return true
            }
            switch player.songState {
            case .playing: player.pause()
            case .paused: player.resume()
            case .stopped, .finished: player.playFromTop()
            }
            return true
        case .character("\r"), .character("\n"):
            guard chain.stage != nil else { return nil }
            guard let player else {
                message = Self.noSongMessage
                return true
            }
            // Playing: from the top at once; paused or stopped: back to the top, stopped.
            player.songState == .playing ? player.playFromTop() : player.stop()
            return true
        // Seek, loop a section and transpose go here when `MIDIFilePlayer` has them.
        case .character("o"), .character("O"):
            guard chain.stage != nil else { return nil }
            guard selectedPart != nil else {
                message = "o: solo is for the stage's parts; tab selects one"
                return true
            }
        default:
            break
        }
        guard let index = selectedPart, parts.indices.contains(index) else { return nil }
        let name = parts[index].name
        var s = settings
        var part = s.parts[name] ?? PartSettings()
        switch key {
        case .character("i"): part.levelDB = (part.levelDB - 1).clamped(to: PartSettings.levelRange)
        case .character("I"): part.levelDB = (part.levelDB + 1).clamped(to: PartSettings.levelRange)
        case .character("p"): part.pan = (((part.pan - 0.1) * 10).rounded() / 10).clamped(to: PartSettings.panRange)
        case .character("P"): part.pan = (((part.pan + 0.1) * 10).rounded() / 10).clamped(to: PartSettings.panRange)
        case .character("x"), .character("X"): part.mute.toggle()
        case .character("o"), .character("O"): part.solo.toggle()
        case .character("r"): part.reverbSendPercent = (part.reverbSendPercent - 5).clamped(to: PartSettings.sendRange)
        case .character("R"): part.reverbSendPercent = (part.reverbSendPercent + 5).clamped(to: PartSettings.sendRange)
        case .character(let c) where "bBtTgGnNcCvV".contains(c):
            message = "\(c): \(name) has level, pan, mute, solo and reverb; tab selects a mic strip for the rest"
            return true
        default: return nil
        }
        s.parts[name] = part
        apply(s)
        return true
    }

    /// Every part's strip for the screen, in the order of the stage's strips.
    /// - Thread: control
    func partStatuses() -> [PartStatus] {
        parts.enumerated().map { index, part in
            let meter = part.meter
            let peak = (0..<meter.channelCount).map { meter.reading(channel: $0).peakDB }.max() ?? -.infinity
            return PartStatus(name: part.name, peakDB: peak, settings: settings.parts[part.name] ?? PartSettings(),
                              selected: index == selectedPart)
        }
    }

    /// The song's line: "song 12.3 / 95.0 s · playing · loop"; nil without a song.
    /// - Thread: control
    func songLine() -> String? {
        guard let player else { return nil }
        return (["song \(String(format: "%.1f / %.1f s", player.positionSeconds, player.lengthSeconds))", "\(player.songState)"]
                + player.songNotes).joined(separator: " · ")
    }

    /// Keys mode for the screen; nil off a stage.
    /// - Thread: control
    func keysModeStatus() -> KeysModeStatus? {
        guard keyboardPort != nil else { return nil }
        return KeysModeStatus(on: keysMode, octave: keyboard.octaveName, midiEvents: keysScheduler?.deliveredCount ?? 0,
                              legend: keyboard.legend())
    }
}
