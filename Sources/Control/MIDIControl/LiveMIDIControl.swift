import Chains
import Foundation
import MIDI
import Sequencing

/// MIDI control of `busker live`: the MIDI sources' ports (`--midi`,
/// `--midi-in`), the control map, soft takeover and learn mode, all on the
/// control thread.
///
/// `busker live` has no instruments and so no `MIDIScheduler`: the control
/// thread is the one consumer of every port (`MIDIInputPort.receive()`). What
/// a message changes reaches the audio thread only as the settings the caller
/// applies through parameters, which ramp; the render thread never sees MIDI.
///
/// - Realtime: unsafe (allocates, opens devices). Control thread only.
public final class LiveMIDIControl {
    /// The sources read (`MIDISources` in a session: `--midi`, `--midi-in`, JACK's `midi_in`).
    public let inputs: any MIDIControlInputs
    public private(set) var responder: MIDIControlResponder
    public private(set) var learn = MIDILearn()
    /// What MIDI did, by source (`takeActionLines()`, `lastAction`).
    private var actionLog = ControlActionLog<MIDIControlSource>()
    /// The last thing MIDI did, for the screen ("CC 7 → volume 0.42").
    public var lastAction: String? { actionLog.latest }

    /// Reads `inputs` through `map` (the defaults, or a preset's).
    public init(inputs: any MIDIControlInputs, map: MIDIControlMap = .defaults) {
        self.inputs = inputs
        responder = MIDIControlResponder(map: map)
    }

    public var map: MIDIControlMap { responder.map }
    /// Things the user should know that are not errors ("no MIDI devices: …").
    public var notices: [String] { inputs.notices }

    /// Replaces the map (a preset loaded); faders pick up again.
    public func setMap(_ map: MIDIControlMap) {
        responder = MIDIControlResponder(map: map)
    }

    public func start() { inputs.start() }
    public func stop() { inputs.stop() }

    // MARK: Learn mode

    public func startLearning() { learn.start() }
    /// The user chose the control to learn (by its key).
    public func learnControl(_ control: LiveControl) { learn.choose(control) }
    public func cancelLearning() {
        guard learn.isActive else { return }
        learn.cancel()
        actionLog.show("learn cancelled")
    }

    // MARK: Messages

    /// What `poll` asks of the session.
    public struct Changes: Equatable {
        /// Flip the mic (an odd number of presses since the last poll).
        public var toggleMic = false
        /// The settings changed: apply them.
        public var settingsChanged = false
        /// A binding was learned: the map changed.
        public var learned = false

        public init() {}
    }

    /// Takes every message waiting on every port and applies it to `settings`
    /// (or, in learn mode, binds it). Call it from the control loop.
    /// - Parameter micOn: the mic's state before this poll, for the action line.
    public func poll(settings: inout LiveSettings, micOn: Bool) -> Changes {
        var changes = Changes()
        for port in inputs.ports {
            while let event = port.receive() {
                guard case let .message(message) = event.item else {
                    responder.sourceReleased()
                    continue
                }
                var map = responder.map
                var learned = false
                switch learn.receive(message, map: &map) {
                case let .bound(_, control):
                    responder.map = map
                    changes.learned = true
                    record(learn.lastResult.map { "learned \($0)" })
                    // The press that bound a switch does not also flip it; a knob's
                    // message tells where the knob is (soft takeover decides the rest).
                    if control.isToggle { continue }
                    learned = true
                case .refused:
                    continue
                case .notTaken:
                    break
                }
                let outcome = responder.respond(to: message, settings: &settings)
                if learned {
                    // The screen keeps saying what was learned.
                    if case .changed = outcome { changes.settingsChanged = true }
                    continue
                }
                switch outcome {
                case .ignored:
                    break
                case let .toggleMic(source):
                    changes.toggleMic.toggle()
                    record("\(source.label) → mic \(micOn != changes.toggleMic ? "on" : "off")")
                case let .changed(control, source):
                    changes.settingsChanged = true
                    record("\(source.label) → \(control.description(in: settings))", source: control.isToggle ? nil : source)
                case let .awaitingPickup(control, source, fader, current):
                    let f = control.valueText(fader), c = control.valueText(current)
                    record("\(source.label) at \(f): move it to \(c) to pick up \(control.label)", source: source)
                }
            }
        }
        return changes
    }

    /// Lines describing what MIDI did since the last call (headless output).
    public func takeActionLines() -> [String] { actionLog.takeLines() }

    private func record(_ line: String?, source: MIDIControlSource? = nil) {
        guard let line else { return }
        actionLog.record(line, source: source)
    }
}
