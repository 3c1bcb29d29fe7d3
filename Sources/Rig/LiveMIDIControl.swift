import ALSA
import Chains
import CommandLineInterface
import Control
import Foundation
import MIDI
import Sequencing

/// MIDI control of `busker live`: the MIDI sources (`--midi`, `--midi-in`),
/// the control map, soft takeover and learn mode, all on the control thread.
///
/// `busker live` has no instruments and so no `MIDIScheduler`: the control
/// thread is the one consumer of every port (`MIDIInputPort.receive()`). What
/// a message changes reaches the audio thread only as the settings the caller
/// applies through parameters, which ramp; the render thread never sees MIDI.
///
/// - Realtime: unsafe (allocates, opens devices). Control thread only.
public final class LiveMIDIControl {
    public static let valued: Set<String> = ["midi", "midi-in"]

    public static let help = """
    MIDI control (a footswitch or controller drives the live controls):
      --midi auto|none|CLIENT:PORT
                             ALSA sequencer: auto connects every hardware MIDI input and
                             follows them as they come and go (default); CLIENT:PORT picks
                             one, as aconnect names it (20:0, "Keystation:0"; repeatable:
                             --midi 20:0 --midi 24:0 connects both); none skips it
      --midi-in PATH         read raw MIDI bytes from a device (/dev/snd/midiC1D0), a FIFO or a file
                             (with a /dev/snd device, --midi defaults to none: the two would share it)
      default mapping, any channel: CC 64 (sustain footswitch) toggles the mic on each press;
      CC 7 sets the volume, CC 91 strip 1's reverb send (a fader far from the current value
      does nothing until it reaches it: soft takeover). Key l learns: press l, then a control's
      key, then move a knob or pedal or hit a pad. A preset keeps the mapping.
    """

    public let sources: MIDISources
    public private(set) var responder: MIDIControlResponder
    public private(set) var learn = MIDILearn()
    /// What MIDI did, by source (`takeActionLines()`, `lastAction`).
    private var actionLog = ControlActionLog<MIDIControlSource>()
    /// The last thing MIDI did, for the screen ("CC 7 → volume 0.42").
    public var lastAction: String? { actionLog.latest }

    /// - Parameters:
    ///   - midi: `auto`, `none` or `CLIENT:PORT` (nil: auto, or none when `midiIn` is an ALSA device).
    ///   - midiIn: a raw MIDI device, FIFO or file, or nil.
    ///   - jackMIDI: read the JACK client's `midi_in` too (`--driver jack`;
    ///     `LiveRig` plugs `sources.jack` into the driver).
    ///   - map: the bindings (the defaults, or a preset's).
    /// - Throws: `CommandLineError` naming the option. No ALSA sequencer with
    ///   `auto` is a notice (`notices`), not an error.
    public convenience init(midi: String?, midiIn: String?, jackMIDI: Bool = false, map: MIDIControlMap = .defaults) throws {
        try self.init(midi: midi.map { [$0] } ?? [], midiIn: midiIn, jackMIDI: jackMIDI, map: map)
    }

    /// - Parameter midi: every `--midi` value (see `MIDISources`).
    public init(midi: [String], midiIn: String?, jackMIDI: Bool = false, map: MIDIControlMap = .defaults) throws {
        sources = try MIDISources(midi: midi, midiIn: midiIn, jackMIDI: jackMIDI)
        responder = MIDIControlResponder(map: map)
    }

    public var map: MIDIControlMap { responder.map }
    /// Things the user should know that are not errors ("no MIDI devices: …").
    public var notices: [String] { sources.notices }

    /// Replaces the map (a preset loaded); faders pick up again.
    public func setMap(_ map: MIDIControlMap) {
        responder = MIDIControlResponder(map: map)
    }

    public func start() { sources.start() }
    public func stop() { sources.stop() }

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
        for port in sources.ports {
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
