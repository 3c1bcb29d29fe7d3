import Chains
import MIDI

/// Turns MIDI messages into changes of the live settings, through a
/// `MIDIControlMap`. Pure state, no I/O: the control thread feeds it messages
/// and applies what it answers (the settings through parameters, which ramp).
///
/// **Toggles** (mic, a strip's mute) flip on a press: a CC going from below 64
/// to 64 or more (a momentary footswitch toggles on each press; its release
/// does nothing, nor does a continuous pedal sending 64, 70, 90… on the way
/// down), or a note-on (a note-off does nothing).
///
/// **Soft takeover** ("pickup") for knobs and faders: a fader far from the
/// current value does nothing until it reaches it — comes within one step
/// (1/127 of the range) or crosses it between two messages — and follows from
/// then on. So a volume fader left at the top never jumps the volume up on its
/// first message. When the value changes by other means (a key, a preset), the
/// fader has to pick it up again.
public struct MIDIControlResponder: Sendable {
    public var map: MIDIControlMap

    /// What one message did.
    public enum Outcome: Equatable, Sendable {
        /// Not bound, a release, or a strip this session does not have.
        case ignored
        /// Flip the mic (the caller mutes or unmutes every strip and tells the session).
        case toggleMic(source: MIDIControlSource)
        /// `control` changed in the settings (a toggle flipped, a knob followed).
        case changed(LiveControl, source: MIDIControlSource)
        /// A fader has not reached the current value yet: it sits at `fader`, the control at `current`.
        case awaitingPickup(LiveControl, source: MIDIControlSource, fader: Float, current: Float)
    }

    private struct Pickup {
        /// The control this state is about: a source bound anew starts afresh.
        var control: LiveControl
        var following = false
        /// The fader's last position, in the control's units.
        var lastFader: Float?
        /// What this source last set, to notice changes made by other means.
        var applied: Float?
    }

    private var pickups: [MIDIControlSource: Pickup] = [:]
    /// Sources whose CC is at 64 or more (a footswitch held down).
    private var pressed: Set<MIDIControlSource> = []

    public init(map: MIDIControlMap = .defaults) {
        self.map = map
    }

    /// Applies `message` to `settings` where its binding says.
    public mutating func respond(to message: MIDIMessage, settings: inout LiveSettings) -> Outcome {
        guard let (source, control, value) = map.binding(for: message) else { return .ignored }
        if control.isToggle {
            let press: Bool
            if source.kind == .controlChange {
                let down = value >= 64
                press = down && !pressed.contains(source)
                if down { pressed.insert(source) } else { pressed.remove(source) }
            } else {
                press = value > 0  // note-on; a note-off (or note-on at velocity 0) is a release
            }
            guard press else { return .ignored }
            switch control {
            case .mic: return .toggleMic(source: source)
            case .mute:
                guard let index = control.stripIndex(in: settings) else { return .ignored }
                settings.strips[index].mute.toggle()
                return .changed(control, source: source)
            default: return .ignored
            }
        }
        guard source.kind == .controlChange, let fader = control.value(forCC: value),
              let current = control.value(in: settings), let range = control.range else { return .ignored }
        var pickup = pickups[source].flatMap { $0.control == control ? $0 : nil } ?? Pickup(control: control)
        if let applied = pickup.applied, applied != current { pickup.following = false }
        if !pickup.following {
            let step = (range.upperBound - range.lowerBound) / 127
            let crossed = pickup.lastFader.map { ($0 - current) * (fader - current) <= 0 } ?? false
            if abs(fader - current) <= step * 1.001 || crossed { pickup.following = true }
        }
        pickup.lastFader = fader
        defer { pickups[source] = pickup }
        guard pickup.following else {
            pickup.applied = nil
            return .awaitingPickup(control, source: source, fader: fader, current: current)
        }
        control.set(fader, in: &settings)
        pickup.applied = control.value(in: settings)
        return .changed(control, source: source)
    }

    /// A source stopped or went away: its footswitches count as released and
    /// its faders must pick their controls up again.
    public mutating func sourceReleased() {
        pressed.removeAll()
        pickups.removeAll()
    }
}
