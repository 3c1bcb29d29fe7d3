import Control
import Foundation
import Rig

/// OSC remote control in the live session (`LiveOSCControl`): the control
/// loop takes what the receive thread decoded and applies it as it applies
/// keys and MIDI, so the ramps and limits are the same.
extension LiveSession {
    /// Applies every OSC message received since the last call, in order:
    /// knobs and mutes through `apply(_:)` (parameters, which ramp), the mic
    /// through `setMic(on:)`, presets through `loadPreset(named:)`; queries
    /// are answered to their sender. Headless, each action is a line on
    /// standard output.
    /// - Thread: control
    public func pollOSC(headless: Bool) {
        guard let osc else { return }
        for received in osc.take() {
            var s = settings
            switch osc.respond(to: received, settings: &s, micOn: micOn, presetName: presetName) {
            case .changed: apply(s)
            case let .mic(on): setMic(on: on)
            case let .loadPreset(name):
                if let why = loadPreset(named: name) { osc.presetRefused(name, because: why) }
            case let .reply(messages): osc.reply(messages, to: received)
            case .unknownAddress, .refused: break
            }
        }
        if headless {
            for line in osc.takeActionLines() { print("busker live: OSC: \(line)") }
        }
    }

    /// Loads preset `name`'s strips and bus (its MIDI mapping is left as it
    /// is); they ramp in as a key's change does.
    /// - Returns: nil when loaded, else why not (no such preset, or strips
    ///   that differ from the running session's, which need a new session).
    /// - Thread: control
    public func loadPreset(named name: String) -> String? {
        guard let presets else { return presetProblem ?? "no folder for presets" }
        let preset: LivePreset
        do {
            preset = try presets.load(name)
        } catch {
            return error.description
        }
        guard apply(preset.settings) else { return "its strips differ from this session's (start busker live --preset \(name))" }
        presetName = name
        return nil
    }

    /// The screen's OSC line: what OSC did last, else the port it listens on.
    var oscLine: String? {
        guard let osc else { return nil }
        return "OSC: " + (osc.lastAction ?? "on port \(osc.server.port)")
    }

    /// The screen's MIDI line and OSC line on one line (a narrow screen clips
    /// its end): OSC first once it has done something; learn mode's prompt
    /// alone while it waits.
    var remoteControlLine: String? {
        if midi?.learn.isActive == true { return midiLine }
        let lines = osc?.lastAction != nil ? [oscLine, midiLine] : [midiLine, oscLine]
        let shown = lines.compactMap { $0 }
        return shown.isEmpty ? nil : shown.joined(separator: " · ")
    }
}
