import Foundation

/// A drum kit described in JSON: its name and its pads, each with velocity
/// layers of sample files. Users copy the shipped `Sounds/kit/kit.json` to
/// make their own kit.
///
/// ```json
/// { "version": 1, "name": "My Kit", "sampleRate": 48000, "credits": "…",
///   "pads": [ { "note": 36, "name": "Kick",
///               "layers": [ { "velocity": [1, 127], "samples": ["kick.wav"] } ] } ] }
/// ```
/// `sampleRate` is a note on the rate the samples were made at; every file is
/// converted from its own rate to the engine's when the kit loads.
///
/// Decoding is strict, because a manifest is written by hand: an unknown field
/// (a typo) or an impossible value (a note above 127, 0 voices, a pan past ±1,
/// overlapping velocity ranges, an absurd gain) is an error naming the file and
/// the field, never silently ignored.
///
/// - Realtime: unsafe (file I/O, Foundation's JSONDecoder). Loader or control thread.
public struct KitManifest: Equatable, Sendable {
    /// The format version; this Busker reads version 1.
    public var version: Int
    public var name: String
    /// The rate the samples were made at (informative).
    public var sampleRate: Int?
    /// Where the samples come from and under which licence (informative).
    public var credits: String?
    public var pads: [KitManifestPad]

    public static let currentVersion = 1

    static let fieldNames = ["version", "name", "sampleRate", "credits", "pads"]

    /// Reads and checks the manifest at `path`.
    public static func load(path: String) throws(KitManifestError) -> KitManifest {
        let data: Data
        switch RegularFile.contents(path, limit: .max) {
        case let .success(bytes): data = Data(bytes)
        case .failure(.system(ENOENT)): throw .cannotRead(path: path, reason: "no such file")
        case .failure(.notAFile("a directory")): throw .cannotRead(path: path, reason: "is a directory")
        case .failure(.system(EACCES)): throw .cannotRead(path: path, reason: "permission denied or unreadable")
        case let .failure(refusal): throw .cannotRead(path: path, reason: refusal.reason)
        }
        return try decode(data, path: path)
    }

    /// Decodes and checks manifest JSON; `path` names the file in errors.
    public static func decode(_ data: Data, path: String) throws(KitManifestError) -> KitManifest {
        do {
            return try JSONDecoder().decode(KitManifest.self, from: data)
        } catch let error as KitManifestFieldError {
            switch error.kind {
            case let .unknown(known): throw .unknownField(path: path, field: error.field, known: known)
            case let .invalid(reason): throw .invalidValue(path: path, field: error.field, reason: reason)
            }
        } catch let error as DecodingError {
            throw manifestError(error, path: path, data: data)
        } catch {
            throw .notJSON(path: path, reason: "\(error)")
        }
    }

    /// Translates JSONDecoder's errors into ones that name the field as the file spells it.
    private static func manifestError(_ error: DecodingError, path: String, data: Data) -> KitManifestError {
        switch error {
        case let .keyNotFound(key, context):
            return .missingField(path: path, field: kitManifestFieldPath(context.codingPath + [key]))
        case let .typeMismatch(type, context), let .valueNotFound(type, context):
            return .wrongType(path: path, field: kitManifestFieldPath(context.codingPath),
                              expected: kitManifestTypeDescription(type))
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty { return .notJSON(path: path, reason: syntaxProblem(in: data)) }
            return .invalidValue(path: path, field: kitManifestFieldPath(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return .notJSON(path: path, reason: "\(error)")
        }
    }

    /// Where the JSON goes wrong, as "line 3, column 5: Invalid value". JSONDecoder
    /// only says "not valid JSON"; JSONSerialization says where, in characters.
    private static func syntaxProblem(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "not a JSON object"
        } catch {
            var words = ((error as NSError).userInfo["NSDebugDescription"] as? String) ?? "\(error)"
            if words.hasSuffix(".") { words.removeLast() }
            // "Invalid value around character 42" → line and column, which editors show.
            guard let range = words.range(of: "around character "), let offset = Int(words[range.upperBound...]) else {
                return words
            }
            var line = 1, column = 1
            for byte in data.prefix(offset) {
                if byte == UInt8(ascii: "\n") { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return "line \(line), column \(column): \(words[..<range.lowerBound].trimmingCharacters(in: .whitespaces))"
        }
    }
}

extension KitManifest: Decodable {
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: KitManifestKey.self)
        try fields.rejectUnknownKeys(known: Self.fieldNames)
        version = try fields.optional(Int.self, "version") ?? Self.currentVersion
        guard version == Self.currentVersion else {
            throw fields.invalid("version", "version \(version) is not one this Busker reads (\(Self.currentVersion))")
        }
        name = try fields.required(String.self, "name")
        guard !name.isEmpty else { throw fields.invalid("name", "the kit needs a name") }
        sampleRate = try fields.optional(Int.self, "sampleRate")
        if let rate = sampleRate, !(8000...384_000).contains(rate) {
            throw fields.invalid("sampleRate", "\(rate) Hz is not an audio sample rate (8000…384000)")
        }
        credits = try fields.optional(String.self, "credits")
        pads = try fields.required([KitManifestPad].self, "pads")
        guard !pads.isEmpty else { throw fields.invalid("pads", "the kit has no pads") }
        // One note, one pad: otherwise which pad a note plays would depend on the order.
        var owner: [Int: Int] = [:]
        for (index, pad) in pads.enumerated() {
            for note in pad.allNotes {
                if let first = owner[note] {
                    throw KitManifestFieldError(field: "pads[\(index)]",
                                                kind: .invalid(reason: "note \(note) is already played by pads[\(first)] ('\(pads[first].name)')"))
                }
                owner[note] = index
            }
        }
    }
}
