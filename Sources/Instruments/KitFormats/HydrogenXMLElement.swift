/// An element of a Hydrogen `drumkit.xml`, read by a small parser that knows
/// what those files hold: nested elements with text, attributes (read and
/// ignored), comments, the `<?xml …?>` declaration, CDATA, and the five named
/// entities and numeric character references. No DTDs, no namespaces.
/// Elements nest at most `maximumDepth` deep (Hydrogen's own go 5 deep): a
/// deeper document is refused, so a hostile file cannot exhaust the stack.
///
/// - Realtime: unsafe (allocates). Loader or control thread.
public struct HydrogenXMLElement: Equatable, Sendable {
    public var name: String
    /// The element's own text (between its children), whitespace trimmed.
    public var text: String
    public var children: [HydrogenXMLElement]
    /// The line the element starts on (1-based), for error messages.
    public var line: Int

    /// The deepest nesting `parse` reads; the root element is depth 1.
    public static let maximumDepth = 64

    /// The first child named `name`.
    public func child(_ name: String) -> HydrogenXMLElement? { children.first { $0.name == name } }

    /// Every child named `name`, in order.
    public func children(_ name: String) -> [HydrogenXMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`, if there is one.
    public func text(of name: String) -> String? { child(name)?.text }
}

extension HydrogenXMLElement {
    /// Parses a whole document and returns its root element.
    /// - Throws: `HydrogenXMLError` naming the line.
    public static func parse(_ bytes: [UInt8]) throws(HydrogenXMLError) -> HydrogenXMLElement {
        var reader = HydrogenXMLReader(bytes: bytes)
        return try reader.document()
    }
}

/// The parser's cursor over the document's bytes (UTF-8).
private struct HydrogenXMLReader {
    let bytes: [UInt8]
    var position = 0
    var line = 1

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() throws(HydrogenXMLError) -> HydrogenXMLElement {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        var root: HydrogenXMLElement?
        while true {
            skipSpace()
            guard position < bytes.count else { break }
            guard bytes[position] == UInt8(ascii: "<") else { throw fail("text outside the root element") }
            if try skipMarkup() { continue }
            guard root == nil else { throw fail("a second root element") }
            root = try element(depth: 1)
        }
        guard let root else { throw fail("no root element") }
        return root
    }

    /// Skips a comment, declaration, processing instruction or DOCTYPE at `<`; false if an element starts there.
    mutating func skipMarkup() throws(HydrogenXMLError) -> Bool {
        if starts("<!--") { try skip(past: "-->"); return true }
        if starts("<?") { try skip(past: "?>"); return true }
        if starts("<!DOCTYPE") || starts("<!doctype") { try skip(past: ">"); return true }
        return false
    }

    /// Reads an element from its `<`, `depth` levels down from the document (the root is 1).
    mutating func element(depth: Int) throws(HydrogenXMLError) -> HydrogenXMLElement {
        let startLine = line
        guard depth <= HydrogenXMLElement.maximumDepth else {
            throw fail("elements nest more than \(HydrogenXMLElement.maximumDepth) deep")
        }
        position += 1
        let name = readName()
        guard !name.isEmpty else { throw fail("an element without a name") }
        // Attributes: skipped up to the tag's end (quoted values may hold '>').
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                break
            }
            advance()
        }
        guard position < bytes.count else { throw fail("<\(name)> is not closed", at: startLine) }
        let selfClosing = bytes[position - 1] == UInt8(ascii: "/")
        position += 1
        var result = HydrogenXMLElement(name: name, text: "", children: [], line: startLine)
        if selfClosing { return result }
        var text: [UInt8] = []
        while true {
            guard position < bytes.count else { throw fail("<\(name)> (line \(startLine)) has no end tag") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "<") {
                if starts("</") {
                    position += 2
                    let closing = readName()
                    guard closing == name else { throw fail("</\(closing)> closes <\(name)> (line \(startLine))") }
                    skipSpace()
                    guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw fail("</\(closing) is not closed") }
                    position += 1
                    break
                }
                if starts("<![CDATA[") {
                    position += 9
                    let start = position
                    try skip(past: "]]>")
                    text += bytes[start..<(position - 3)]
                    continue
                }
                if try skipMarkup() { continue }
                result.children.append(try element(depth: depth + 1))
            } else if byte == UInt8(ascii: "&") {
                text += try entity()
            } else {
                text.append(byte)
                advance()
            }
        }
        result.text = String(decoding: text, as: UTF8.self).trimmingWhitespace()
        return result
    }

    /// Decodes `&name;` or `&#N;` / `&#xN;` at `&`.
    mutating func entity() throws(HydrogenXMLError) -> [UInt8] {
        guard let end = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { throw fail("a bare '&'") }
        let name = String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
        position = end + 1
        switch name {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            let value: UInt32?
            if name.hasPrefix("#x") || name.hasPrefix("#X") { value = UInt32(name.dropFirst(2), radix: 16) }
            else if name.hasPrefix("#") { value = UInt32(name.dropFirst()) }
            else { value = nil }
            guard let value, let scalar = Unicode.Scalar(value) else { throw fail("unknown entity '&\(name);'") }
            return Array(String(Character(scalar)).utf8)
        }
    }

    mutating func readName() -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "<") || Self.isSpace(byte) { break }
            position += 1
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    func starts(_ text: String) -> Bool {
        let pattern = Array(text.utf8)
        return bytes.count - position >= pattern.count && bytes[position..<(position + pattern.count)].elementsEqual(pattern)
    }

    mutating func skip(past terminator: String) throws(HydrogenXMLError) {
        let startLine = line
        while position < bytes.count {
            if starts(terminator) { position += terminator.utf8.count; return }
            advance()
        }
        throw fail("'\(terminator)' missing", at: startLine)
    }

    mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { advance() }
    }

    mutating func advance() {
        if bytes[position] == UInt8(ascii: "\n") { line += 1 }
        position += 1
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    func fail(_ reason: String, at errorLine: Int? = nil) -> HydrogenXMLError {
        HydrogenXMLError(line: errorLine ?? line, reason: reason)
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(scalars[first...last])
    }
}
