import Foundation

/// One option as a command's `--help` text declares it. The help text is the
/// one source of a command's options: `ArgumentScanner(_:help:)` accepts what
/// it declares, the man page and the shell completion are made from it, so
/// the three cannot disagree.
///
/// An option line starts with 2 to 6 spaces and a dash:
///
///     -D, --device, --output PCM  description (repeatable)
///
/// - `-X,` a one-letter form (optional); then one or more long names, the
///   first the option's own name and the others its other spellings;
/// - a value placeholder, one word with a capital letter, a `|` or a `[`
///   (`PCM`, `auto|none|CLIENT:PORT`, `[PATH]`); none makes a flag;
/// - two spaces, then the description. The word "repeatable" in the
///   description (its continuation lines too: lines indented further) lets
///   the option be given more than once; any other option given twice is a
///   usage error.
///
/// Several short options may share a line, two spaces apart
/// (`--bass DB  --treble DB`), when none has a description.
public struct OptionDeclaration: Equatable, Sendable {
    /// Long names without dashes; the first is the name the code reads.
    public var names: [String]
    /// The one-letter form (`o` for `-o`), if any.
    public var letter: Character?
    /// The value's placeholder as written (`PCM`, `[PATH]`), nil for a flag.
    public var placeholder: String?
    /// The description, continuation lines joined by single spaces.
    public var description: String
    /// Whether the option may be given more than once.
    public var repeatable: Bool

    public init(names: [String], letter: Character? = nil, placeholder: String? = nil, description: String = "", repeatable: Bool = false) {
        self.names = names
        self.letter = letter
        self.placeholder = placeholder
        self.description = description
        self.repeatable = repeatable
    }

    /// The name the code reads the option by.
    public var name: String { names[0] }
    /// Whether the option takes a value.
    public var takesValue: Bool { placeholder != nil }
    /// Whether the value may be left out (`--record [PATH]`).
    public var valueIsOptional: Bool { placeholder?.hasPrefix("[") ?? false }

    /// The words a value may be, when the placeholder lists them
    /// (`auto|none|CLIENT:PORT` gives auto and none); empty otherwise.
    public var valueWords: [String] {
        guard let placeholder, placeholder.contains("|") else { return [] }
        return placeholder.split(separator: "|").map(String.init).filter { $0 == $0.lowercased() && !$0.contains("…") }
    }

    /// Every spelling on the command line: `-D`, `--device`, `--output`.
    public var spellings: [String] { (letter.map { ["-\($0)"] } ?? []) + names.map { "--" + $0 } }

    /// Whether a line of help text declares options (2 to 6 spaces, then a dash).
    public static func isOptionLine(_ line: Substring) -> Bool {
        let indent = line.prefix(while: { $0 == " " }).count
        return (2...6).contains(indent) && line.dropFirst(indent).hasPrefix("-")
    }

    /// Every option `helpText` declares, in order.
    public static func parse(helpText: String) -> [OptionDeclaration] {
        var result: [OptionDeclaration] = []
        // Options of the line being read, which continuation lines describe.
        var open: Range<Int>?
        for line in helpText.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix(while: { $0 == " " }).count
            if isOptionLine(line) {
                let (declared, description) = parseOptionLine(line.dropFirst(indent))
                let start = result.count
                for var option in declared {
                    option.description = description
                    result.append(option)
                }
                open = declared.isEmpty ? nil : start..<result.count
            } else if let range = open, indent > 6, !line.allSatisfy({ $0 == " " }) {
                for i in range {
                    let text = line.trimmingCharacters(in: [" "])
                    result[i].description += result[i].description.isEmpty ? text : " " + text
                }
            } else {
                open = nil
            }
        }
        for i in result.indices where result[i].description.contains("repeatable") {
            result[i].repeatable = true
        }
        return result
    }

    /// The options at the start of one line and the description after them.
    private static func parseOptionLine(_ text: Substring) -> ([OptionDeclaration], String) {
        var options: [OptionDeclaration] = []
        // Chunks are two or more spaces apart.
        var chunks: [Substring] = []
        var rest = text
        while !rest.isEmpty {
            if let gap = rest.range(of: "  ") {
                chunks.append(rest[..<gap.lowerBound])
                rest = rest[gap.upperBound...].drop(while: { $0 == " " })
            } else {
                chunks.append(rest)
                rest = ""
            }
        }
        var description: [Substring] = []
        for (index, chunk) in chunks.enumerated() {
            guard chunk.hasPrefix("-") else {
                description = Array(chunks[index...])
                break
            }
            var option = OptionDeclaration(names: [])
            var words = chunk.split(separator: " ")[...]
            while let word = words.first, word.hasPrefix("-") {
                words.removeFirst()
                let bare = word.hasSuffix(",") ? word.dropLast() : word
                if bare.hasPrefix("--") {
                    option.names.append(String(bare.dropFirst(2)))
                } else if bare.count == 2 {
                    option.letter = bare.last
                }
            }
            if let word = words.first, isPlaceholder(word) {
                option.placeholder = String(word)
                words.removeFirst()
            }
            if !option.names.isEmpty { options.append(option) }
            if !words.isEmpty {
                // `--limiter-lookahead MS the look-ahead…`: one space before the description.
                description = [words.joined(separator: " ")[...]] + chunks[(index + 1)...]
                break
            }
        }
        return (options, description.joined(separator: " "))
    }

    private static func isPlaceholder(_ word: Substring) -> Bool {
        word.hasPrefix("[") || word.contains("|") || word.contains(where: { $0.isUppercase })
    }
}
