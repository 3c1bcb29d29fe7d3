/// Why a kit manifest could not be used. Every case names the manifest file
/// and, where there is one, the field (`pads[2].layers[0].velocity`), and
/// renders as one line for the command line's error output.
public enum KitManifestError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file could not be read at all (missing, a directory, no permission).
    case cannotRead(path: String, reason: String)
    /// The file is not JSON, or not a JSON object.
    case notJSON(path: String, reason: String)
    /// A field the format does not have: usually a typo, which would otherwise be silently ignored.
    case unknownField(path: String, field: String, known: [String])
    /// A required field is absent.
    case missingField(path: String, field: String)
    /// A field holds the wrong kind of value (text where a number belongs…).
    case wrongType(path: String, field: String, expected: String)
    /// A value that cannot be right: a note above 127, no voices, a pan past ±1, overlapping velocity ranges…
    case invalidValue(path: String, field: String, reason: String)

    /// The manifest file.
    public var path: String {
        switch self {
        case let .cannotRead(path, _), let .notJSON(path, _), let .unknownField(path, _, _),
             let .missingField(path, _), let .wrongType(path, _, _), let .invalidValue(path, _, _):
            return path
        }
    }

    /// The field at fault, when the error is about one.
    public var field: String? {
        switch self {
        case .cannotRead, .notJSON: return nil
        case let .unknownField(_, field, _), let .missingField(_, field), let .wrongType(_, field, _),
             let .invalidValue(_, field, _):
            return field
        }
    }

    public var description: String {
        let file = "kit manifest '\(path)'"
        switch self {
        case let .cannotRead(_, reason): return "\(file): cannot read: \(reason)"
        case let .notJSON(_, reason): return "\(file) is not valid JSON: \(reason)"
        case let .unknownField(_, field, known):
            return "\(file): unknown field '\(field)' (fields here: \(known.joined(separator: ", ")))"
        case let .missingField(_, field): return "\(file): missing field '\(field)'"
        case let .wrongType(_, field, expected): return "\(file): '\(field)' must be \(expected)"
        case let .invalidValue(_, field, reason): return "\(file): '\(field)': \(reason)"
        }
    }
}
