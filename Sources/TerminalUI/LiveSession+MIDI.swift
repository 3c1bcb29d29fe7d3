import CommandLineInterface
import Control
import Foundation
import Sessions

/// MIDI control in the live session (`LiveMIDIControl`): the control loop
/// has the controller drain the MIDI ports, and learn mode takes over a few keys.
extension LiveSession {
    /// The key that starts (and, pressed again, cancels) learn mode.
    public static var learnKey: Key { .character("l") }

    /// What `l` says when no MIDI source is there to learn from.
    public static let noMIDISourceMessage =
        "learn: no MIDI source connected (plug one in, or start with --midi CLIENT:PORT or --midi-in PATH); learn mode is off"

    /// Has the controller take every waiting MIDI message and apply what it
    /// changed (`LiveController.pollMIDI`). Headless, each action is a line
    /// on standard output.
    /// - Thread: control
    public func pollMIDI(headless: Bool) {
        let lines = controller.pollMIDI(self)
        if headless {
            for line in lines { printEscaped("busker live: MIDI: \(line)") }
        }
    }

    /// Learn mode's keys: `l` starts or cancels it; while it waits for a
    /// control, that control's key chooses it (on the selected mic strip; a
    /// stage part's strip keys say MIDI does not drive parts); Esc
    /// cancels. With no MIDI source to learn from, `l` says so on the message
    /// line and learn mode stays off (or ends). Returns nil when the key is
    /// not learn mode's (the caller handles it as usual).
    /// - Thread: control
    public func handleLearnKey(_ key: Key) -> Bool? {
        if key == Self.learnKey {
            guard let midi, midi.inputs.hasSource else {
                midi?.cancelLearning()
                message = Self.noMIDISourceMessage
                return true
            }
            if midi.learn.isActive { midi.cancelLearning() } else { midi.startLearning() }
            return true
        }
        guard let midi else { return nil }
        guard midi.learn.isActive else { return nil }
        if key == .escape {
            midi.cancelLearning()
            return true
        }
        guard let control = Self.learnableControl(for: key, strip: selectedStrip + 1) else { return nil }
        // A strip key with a stage part selected would bind the mic strip's control, not the part's.
        if let part = selectedPart, parts.indices.contains(part), control != .mic, control != .volume {
            message = "learn: MIDI does not drive the \(parts[part].name) part's controls; tab selects a mic strip (Esc cancels)"
            return true
        }
        midi.learnControl(control)
        return true
    }

    /// The control a key of the live screen adjusts, for learn mode; nil for
    /// keys that drive nothing MIDI can (the room, quitting).
    public static func learnableControl(for key: Key, strip: Int) -> LiveControl? {
        switch key {
        case .character(" "): return .mic
        case .up, .down, .character("+"), .character("="), .character("-"): return .volume
        case .character("r"), .character("R"): return .reverb(strip: strip)
        case .character("x"), .character("X"): return .mute(strip: strip)
        case .character("i"), .character("I"): return .gain(strip: strip)
        case .character("p"), .character("P"): return .pan(strip: strip)
        case .character("b"), .character("B"): return .bass(strip: strip)
        case .character("t"), .character("T"): return .treble(strip: strip)
        default: return nil
        }
    }

    /// The screen's MIDI line: what learn mode waits for, else what MIDI did
    /// last, else the mapping.
    var midiLine: String? {
        guard let midi else { return nil }
        if midi.learn.isActive { return midi.learn.prompt }
        if let action = midi.lastAction { return "MIDI: \(action)" }
        let map = midi.map.bindings.sorted { $0.key < $1.key }.map { "\($0.key.label) \($0.value.text)" }
        return "MIDI: " + (map.isEmpty ? "nothing bound" : map.joined(separator: ", "))
    }
}
