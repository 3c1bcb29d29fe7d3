/// What a valid OSC message asks of `busker live`: the address space of
/// docs/osc.md. `init(_:stripCount:)` is the one validator: the address,
/// the types and the range of every argument, and the strip number against
/// the session's strips. Pure: no sockets, no session.
///
/// - `/busker/mic` `1`|`0` (or `T`|`F`): the mic on or off
/// - `/busker/volume` `0…1`
/// - `/busker/strip/N/gain` `−24…24`, `pan` `−1…1`, `bass` and `treble` `−12…12`,
///   `reverb` `0…100` (the send), `mute` `1`|`0`
/// - `/busker/preset` `NAME`: load a saved preset
/// - `/busker/state`: every value, as replies to the sender
///
/// Any of the first four without an argument is a query: the reply carries its value.
public enum OSCCommand: Equatable, Sendable {
    /// Set a knob's value (already in range).
    case set(LiveControl, Float)
    /// Turn the mic or a strip's mute on or off.
    case turn(LiveControl, on: Bool)
    /// Reply with a control's value.
    case query(LiveControl)
    case loadPreset(String)
    /// Reply with the preset's name.
    case queryPreset
    /// Reply with every value.
    case queryState

    /// Why a message was not taken.
    public enum Refusal: Error, Equatable, Sendable {
        /// No such address (counted apart: a surface's stray pages, a typo).
        case unknownAddress
        /// Wrong number or type of arguments; says what the address takes.
        case wrongType(String)
        /// A value outside the control's range, or not finite.
        case outOfRange(String)
        /// A strip number the session does not have.
        case noSuchStrip(Int)
        /// A preset name no preset file can have.
        case badPresetName(String)

        public var text: String {
            switch self {
            case .unknownAddress: "unknown address"
            case let .wrongType(what): "takes \(what)"
            case let .outOfRange(what): what
            case let .noSuchStrip(n): "no strip \(n)"
            case let .badPresetName(why): why
            }
        }
    }

    public static let prefix = "/busker/"
    /// The strip controls' last address part, as in `/busker/strip/1/gain`.
    public static let stripControlNames = ["gain", "pan", "mute", "bass", "treble", "reverb"]

    /// The address of `control`: `/busker/volume`, `/busker/strip/2/pan`.
    public static func address(of control: LiveControl) -> String {
        switch control {
        case .mic: "/busker/mic"
        case .volume: "/busker/volume"
        case let .reverb(n): "/busker/strip/\(n)/reverb"
        case let .mute(n): "/busker/strip/\(n)/mute"
        case let .gain(n): "/busker/strip/\(n)/gain"
        case let .pan(n): "/busker/strip/\(n)/pan"
        case let .bass(n): "/busker/strip/\(n)/bass"
        case let .treble(n): "/busker/strip/\(n)/treble"
        }
    }

    /// Validates `message` for a session of `stripCount` strips.
    /// - Throws: the `Refusal`; nothing is changed by a refused message.
    public init(_ message: OSCMessage, stripCount: Int) throws(Refusal) {
        let address = message.address
        guard address.hasPrefix(Self.prefix) else { throw .unknownAddress }
        let parts = address.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        let arguments = message.arguments
        guard arguments.count <= 1 else { throw .wrongType("at most one argument, not \(arguments.count)") }
        let argument = arguments.first
        switch parts.count {
        case 1:
            switch parts[0] {
            case "mic": self = try Self.toggle(.mic, argument)
            case "volume": self = try Self.knob(.volume, argument)
            case "preset":
                guard let argument else {
                    self = .queryPreset
                    return
                }
                let name: String
                switch argument {
                case let .string(s), let .symbol(s): name = s
                default: throw .wrongType("a preset name (s), not '\(argument.typeTag)'")
                }
                do {
                    try PresetStore.check(name: name)
                } catch {
                    throw .badPresetName(error.description)
                }
                self = .loadPreset(name)
            case "state":
                guard argument == nil else { throw .wrongType("no argument") }
                self = .queryState
            default: throw .unknownAddress
            }
        case 3 where parts[0] == "strip":
            // 1…16, written plainly: no sign, no leading zero, no spaces.
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 2, digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(digits), LiveControl.stripRange.contains(n) else { throw .unknownAddress }
            let control: LiveControl
            switch parts[2] {
            case "gain": control = .gain(strip: n)
            case "pan": control = .pan(strip: n)
            case "mute": control = .mute(strip: n)
            case "bass": control = .bass(strip: n)
            case "treble": control = .treble(strip: n)
            case "reverb": control = .reverb(strip: n)
            default: throw .unknownAddress
            }
            guard n <= stripCount else { throw .noSuchStrip(n) }
            self = control.isToggle ? try Self.toggle(control, argument) : try Self.knob(control, argument)
        default:
            throw .unknownAddress
        }
    }

    private static func toggle(_ control: LiveControl, _ argument: OSCArgument?) throws(Refusal) -> OSCCommand {
        guard let argument else { return .query(control) }
        guard let on = argument.onOff else {
            if argument.number != nil { throw .outOfRange("\(control.label) takes 1 (on) or 0 (off), not \(argument.text)") }
            throw .wrongType("1 or 0 (i, f, T or F), not '\(argument.typeTag)'")
        }
        return .turn(control, on: on)
    }

    private static func knob(_ control: LiveControl, _ argument: OSCArgument?) throws(Refusal) -> OSCCommand {
        guard let argument else { return .query(control) }
        guard let value = argument.number else { throw .wrongType("a number (i, h, f or d), not '\(argument.typeTag)'") }
        guard let range = control.range, value.isFinite,
              value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
            let range = control.range.map { "\($0.lowerBound)…\($0.upperBound)" } ?? ""
            throw .outOfRange("\(control.label) \(argument.text) is out of range \(range)")
        }
        // In range as a Double, so the Float (rounded) is kept within the range too.
        return .set(control, min(max(Float(value), range.lowerBound), range.upperBound))
    }
}

