import Chains

/// Turns OSC messages into changes of the live settings and into replies,
/// counting what each message did. Pure state, no I/O (like
/// `MIDIControlResponder`): the control thread feeds it the messages the
/// receive thread decoded, applies the settings it changed through the
/// session (parameters, which ramp) and sends the replies it returns to the
/// message's sender. It never sends anything on its own.
public struct OSCControlResponder: Sendable {
    /// What messages did since the session started.
    public struct Counts: Equatable, Sendable {
        /// Messages decoded (every one below is counted here too, but `malformed`).
        public var received = 0
        /// Messages that set something (even to the value it had).
        public var applied = 0
        /// Queries answered.
        public var answered = 0
        /// Messages to an address Busker does not have.
        public var unknownAddresses = 0
        /// Messages to a known address with a wrong type or count of
        /// arguments, a value out of range, a strip the session lacks, or a
        /// preset that could not be loaded.
        public var refused = 0
        /// Datagrams or bundle elements that were not OSC, and messages
        /// dropped because too many came at once.
        public var malformed = 0

        public init() {}

        /// One line: "12 messages: 3 applied, 2 answered, 5 unknown addresses, 2 refused; 0 malformed".
        public var summary: String {
            "\(received) message\(received == 1 ? "" : "s"): \(applied) applied, \(answered) answered, "
                + "\(unknownAddresses) unknown address\(unknownAddresses == 1 ? "" : "es"), \(refused) refused; \(malformed) malformed"
        }
    }

    /// What one message asks of the session.
    public enum Outcome: Equatable, Sendable {
        /// `control` changed in the settings: apply them.
        case changed(LiveControl)
        /// Turn the mic on or off (the session does, with the mixer's ramp).
        case mic(on: Bool)
        /// Load this preset (the session does; a failure is `presetRefused()`).
        case loadPreset(String)
        /// Send these to the message's sender.
        case reply([OSCMessage])
        case unknownAddress
        case refused(OSCCommand.Refusal)
    }

    public private(set) var counts = Counts()

    public init() {}

    /// Validates `message` and applies it to `settings` (knobs and mutes);
    /// the mic and presets are the caller's to apply. A refused or unknown
    /// message changes nothing.
    /// - Parameters:
    ///   - micOn: the mic's state now, for a query's reply.
    ///   - presetName: the preset the session started with or last loaded or saved.
    public mutating func respond(to message: OSCMessage, settings: inout LiveSettings, micOn: Bool, presetName: String?) -> Outcome {
        counts.received += 1
        let command: OSCCommand
        do {
            command = try OSCCommand(message, stripCount: settings.strips.count)
        } catch .unknownAddress {
            counts.unknownAddresses += 1
            return .unknownAddress
        } catch {
            counts.refused += 1
            return .refused(error)
        }
        switch command {
        case let .set(control, value):
            control.set(value, in: &settings)
            counts.applied += 1
            return .changed(control)
        case let .turn(control, on):
            counts.applied += 1
            if case .mic = control { return .mic(on: on) }
            guard let index = control.stripIndex(in: settings) else { return .changed(control) }
            settings.strips[index].mute = on
            return .changed(control)
        case let .loadPreset(name):
            counts.applied += 1
            return .loadPreset(name)
        case let .query(control):
            counts.answered += 1
            return .reply([Self.value(of: control, settings: settings, micOn: micOn)].compactMap { $0 })
        case .queryPreset:
            counts.answered += 1
            return .reply([Self.presetMessage(presetName)])
        case .queryState:
            counts.answered += 1
            return .reply(Self.state(settings: settings, micOn: micOn, presetName: presetName))
        }
    }

    /// A preset asked for could not be loaded: the message counts as refused, not applied.
    public mutating func presetRefused() {
        counts.applied -= 1
        counts.refused += 1
    }

    /// Datagrams or elements that did not decode, or messages dropped.
    public mutating func countMalformed(_ n: Int) {
        counts.malformed += n
    }

    /// The reply that tells `control`'s value: `/busker/volume f 0.3`,
    /// `/busker/mic i 1`, `/busker/strip/2/mute i 0`; nil for a strip the session lacks.
    public static func value(of control: LiveControl, settings: LiveSettings, micOn: Bool) -> OSCMessage? {
        let address = OSCCommand.address(of: control)
        switch control {
        case .mic: return OSCMessage(address, [.int32(micOn ? 1 : 0)])
        case .mute:
            guard let index = control.stripIndex(in: settings) else { return nil }
            return OSCMessage(address, [.int32(settings.strips[index].mute ? 1 : 0)])
        default:
            return control.value(in: settings).map { OSCMessage(address, [.float32($0)]) }
        }
    }

    /// `/busker/preset s NAME`, with an empty name when there is none.
    public static func presetMessage(_ name: String?) -> OSCMessage {
        OSCMessage("/busker/preset", [.string(name ?? "")])
    }

    /// Every value, as `/busker/state` answers: `/busker/strips i N`, the
    /// mic, the volume, the preset, then each strip's controls in the order
    /// of `OSCCommand.stripControlNames`.
    public static func state(settings: LiveSettings, micOn: Bool, presetName: String?) -> [OSCMessage] {
        var messages = [OSCMessage("/busker/strips", [.int32(Int32(settings.strips.count))])]
        messages += [LiveControl.mic, .volume].compactMap { value(of: $0, settings: settings, micOn: micOn) }
        messages.append(presetMessage(presetName))
        for n in settings.strips.indices.map({ $0 + 1 }) {
            let controls: [LiveControl] = [.gain(strip: n), .pan(strip: n), .mute(strip: n), .bass(strip: n), .treble(strip: n), .reverb(strip: n)]
            messages += controls.compactMap { value(of: $0, settings: settings, micOn: micOn) }
        }
        return messages
    }
}
