/// One command's help: its name, the line the command list shows, and the
/// text `--help` prints. The man page (`ManPage`) and the shell completion
/// (`BashCompletion`) are made from these, and `ArgumentScanner(_:help:)`
/// accepts the options the text declares (`OptionDeclaration`).
public struct CommandHelp: Sendable {
    public var name: String
    /// One line: what the command does.
    public var summary: String
    /// What `busker NAME --help` prints: `usage:` lines, a description, option lines.
    public var text: String
    /// What the command's positional arguments are, for completion.
    public var positionals: CompletionKind

    public init(name: String, summary: String, text: String, positionals: CompletionKind = .none) {
        self.name = name
        self.summary = summary
        self.text = text
        self.positionals = positionals
    }

    /// The options the text declares.
    public var options: [OptionDeclaration] { OptionDeclaration.parse(helpText: text) }

    /// The `usage:` lines, without the word `usage:`.
    public var usageLines: [String] {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("usage: ") {
                lines.append(String(line.dropFirst("usage: ".count)))
            } else if !lines.isEmpty, line.hasPrefix("       busker") {
                lines.append(String(line.drop(while: { $0 == " " })))
            } else if !lines.isEmpty {
                break
            }
        }
        return lines
    }

    /// Placeholders left unfilled in help text: `TODO`, `FIXME`, `XXX`, `TBD`
    /// as words, `<…>` or `<...>`, and an angle-bracketed word other than the
    /// one `usage: busker <command>` uses (Busker writes placeholders in
    /// capitals: `PCM`, `PATH`). Each found, as written; empty when none.
    public static func placeholders(in text: String) -> [String] {
        var found: [String] = []
        let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        for word in words where ["TODO", "FIXME", "XXX", "TBD"].contains(String(word)) {
            found.append(String(word))
        }
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(where: { $0 == ">" || $0 == "\n" || $0 == "<" }), after[close] == ">" else {
                rest = after
                continue
            }
            let inside = after[..<close]
            if inside != "command" && !inside.isEmpty && !inside.contains(" ") && !inside.contains("-") && !inside.contains("=") {
                found.append("<\(inside)>")
            }
            rest = after[after.index(after: close)...]
        }
        return found
    }
}
