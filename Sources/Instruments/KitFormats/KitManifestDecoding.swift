
// The decoding machinery behind `KitManifest`: field-by-field decoding that
// rejects unknown fields (JSONDecoder ignores them by default, so a typo such
// as "chokegroup" would silently do nothing) and reports every error with the
// field's full path, so the message can point at the line to fix.

/// A manifest field name, or an array index, as a coding key.
struct KitManifestKey: CodingKey, Hashable {
    let stringValue: String
    let intValue: Int?

    init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// A field-level error raised while decoding; `KitManifest.decode` adds the
/// file name and turns it into a `KitManifestError`.
struct KitManifestFieldError: Error {
    enum Kind {
        case unknown(known: [String])
        case invalid(reason: String)
    }

    let field: String
    let kind: Kind
}

/// `pads[2].layers[0].velocity` for a coding path, the way the user sees the file.
func kitManifestFieldPath(_ codingPath: [any CodingKey]) -> String {
    var text = ""
    for key in codingPath {
        if let index = key.intValue {
            text += "[\(index)]"
        } else {
            // JSONDecoder's own array keys read "Index 3"; show them as [3].
            if key.stringValue.hasPrefix("Index "), let index = Int(key.stringValue.dropFirst(6)) {
                text += "[\(index)]"
                continue
            }
            text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
        }
    }
    return text.isEmpty ? "(top level)" : text
}

extension KeyedDecodingContainer where Key == KitManifestKey {
    /// Throws for the first key that is not in `known`.
    func rejectUnknownKeys(known: [String]) throws {
        for key in allKeys where !known.contains(key.stringValue) {
            throw KitManifestFieldError(field: kitManifestFieldPath(codingPath + [key]), kind: .unknown(known: known))
        }
    }

    /// The error for field `name` holding an impossible value.
    func invalid(_ name: String, _ reason: String) -> KitManifestFieldError {
        KitManifestFieldError(field: kitManifestFieldPath(codingPath + [KitManifestKey(name)]), kind: .invalid(reason: reason))
    }

    func required<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try decode(type, forKey: KitManifestKey(name))
    }

    func optional<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        try decodeIfPresent(type, forKey: KitManifestKey(name))
    }
}

/// How a value of `type` is described in "'pan' must be a number".
func kitManifestTypeDescription(_ type: Any.Type) -> String {
    switch type {
    case is Int.Type, is UInt8.Type: return "a whole number"
    case is Double.Type, is Float.Type: return "a number"
    case is String.Type: return "text in quotes"
    case is Bool.Type: return "true or false"
    case is [Int].Type: return "a list of whole numbers"
    case is [String].Type: return "a list of texts in quotes"
    default:
        let name = String(describing: type)
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") || name.hasPrefix("KitManifest") { return "an object ({ … })" }
        return "a \(name)"
    }
}
