import MIDI

/// Learn mode of `busker live`: the user starts it (a key), chooses a control
/// (that control's own key on the screen), then moves a knob or pedal or hits
/// a pad; that CC or note is bound to the control. Escape cancels at any step.
/// Pure state: the control thread feeds it keys' controls and MIDI messages.
public struct MIDILearn: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        case off
        /// Waiting for the user to pick the control (by its key).
        case choosingControl
        /// Waiting for a CC or note to bind to `control`.
        case waitingForMIDI(LiveControl)
    }

    /// What a message did while learning.
    public enum Outcome: Equatable, Sendable {
        /// Not learning, or not a CC or note: the message goes on to the controls.
        case notTaken
        /// Taken by learn mode and bound: the map now says `source` → `control`.
        case bound(MIDIControlSource, LiveControl)
        /// Taken but not bound (a note for a knob's control, a release, a channel
        /// mode message); still waiting, `refusal` says why.
        case refused(String)
    }

    public private(set) var state: State = .off
    /// The last thing learn mode did, for the screen ("CC 91 → strip 1 reverb").
    public private(set) var lastResult: String?

    public init() {}

    public var isActive: Bool { state != .off }

    /// Starts learning: next, the user chooses a control.
    public mutating func start() {
        state = .choosingControl
        lastResult = nil
    }

    /// The user chose `control` (or, while waiting for MIDI, chose again).
    /// Does nothing when learn mode is off.
    public mutating func choose(_ control: LiveControl) {
        guard state != .off else { return }
        state = .waitingForMIDI(control)
        lastResult = nil
    }

    public mutating func cancel() {
        if state != .off { lastResult = "learn cancelled" }
        state = .off
    }

    /// Binds the first CC or note-on that arrives while a control is awaited,
    /// binding it in `map` (replacing what that source drove before). A channel
    /// is bound as "any channel": a controller's knob is the same knob on
    /// whichever channel it is set to.
    public mutating func receive(_ message: MIDIMessage, map: inout MIDIControlMap) -> Outcome {
        guard case let .waitingForMIDI(control) = state else { return .notTaken }
        let source: MIDIControlSource
        switch message {
        case let .controlChange(_, controller, _):
            guard controller < 120 else { return .refused("CC \(controller) is a channel mode message: move a knob or pedal") }
            source = .cc(controller)
        case let .noteOn(_, note, velocity) where velocity > 0:
            guard control.isToggle else {
                let result = "\(control.label) needs a knob, fader or pedal (a CC); pads and keys only switch"
                lastResult = result
                return .refused(result)
            }
            source = .note(note)
        case .noteOn, .noteOff:
            return .refused("a note release")  // the end of a pad hit that was refused: nothing to bind
        default:
            return .notTaken
        }
        map.bind(source, to: control)
        state = .off
        lastResult = "\(source.label) → \(control.label)"
        return .bound(source, control)
    }

    /// What the screen says while learning, or the last result.
    public var prompt: String? {
        switch state {
        case .off: return lastResult.map { "learn: \($0)" }
        case .choosingControl: return "learn: press the key of the control to bind (Esc cancels)"
        case let .waitingForMIDI(control):
            let waiting = "learn \(control.label): move a knob or pedal\(control.isToggle ? ", or hit a pad" : "") (Esc cancels)"
            return lastResult.map { "\(waiting) · \($0)" } ?? waiting
        }
    }
}
