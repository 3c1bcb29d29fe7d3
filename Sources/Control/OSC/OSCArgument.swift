/// One argument of an OSC message, as it came (OSC 1.0 and the common
/// extensions liblo reads): what Busker validates against.
public enum OSCArgument: Equatable, Sendable {
    case int32(Int32)
    case int64(Int64)
    case float32(Float)
    case float64(Double)
    case string(String)
    case symbol(String)
    case `true`
    case `false`
    /// Any other type (blob, nil, infinitum, char, MIDI, time tag), by its type tag.
    case other(Character)

    /// The OSC type tag: `i`, `h`, `f`, `d`, `s`, `S`, `T`, `F`, or the other's.
    public var typeTag: Character {
        switch self {
        case .int32: "i"
        case .int64: "h"
        case .float32: "f"
        case .float64: "d"
        case .string: "s"
        case .symbol: "S"
        case .true: "T"
        case .false: "F"
        case let .other(tag): tag
        }
    }

    /// A number argument's value (`i`, `h`, `f`, `d`), or nil.
    public var number: Double? {
        switch self {
        case let .int32(v): Double(v)
        case let .int64(v): Double(v)
        case let .float32(v): Double(v)
        case let .float64(v): v
        default: nil
        }
    }

    /// An on/off argument: `T`/`F`, or a number that is exactly 1 or 0 (a
    /// TouchOSC toggle sends 1.0 and 0.0); nil for anything else.
    public var onOff: Bool? {
        switch self {
        case .true: return true
        case .false: return false
        default:
            guard let n = number else { return nil }
            if n == 1 { return true }
            if n == 0 { return false }
            return nil
        }
    }

    /// For a log line: `0.5`, `"gig"`, `T`.
    public var text: String {
        switch self {
        case let .int32(v): "\(v)"
        case let .int64(v): "\(v)"
        case let .float32(v): "\(v)"
        case let .float64(v): "\(v)"
        case let .string(s), let .symbol(s): "\"\(s)\""
        case .true: "T"
        case .false: "F"
        case let .other(tag): "<\(tag)>"
        }
    }
}
