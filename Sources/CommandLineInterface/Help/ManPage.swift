/// `busker(1)` in troff (the man macros), made from the same text as
/// `busker --help` and each command's `--help`, so the two cannot disagree.
///
/// Each command's help text becomes a subsection: its description as
/// paragraphs, each option line (`OptionDeclaration`) a tagged paragraph
/// with the option in bold and its placeholder in italics, section lines
/// ("ALSA devices (…):") bold.
public struct ManPage {
    public var title = "BUSKER"
    public var section = "1"
    public var version: String
    /// One line for NAME: what Busker is.
    public var tagline: String
    /// The top-level description paragraphs (plain text, blank lines between).
    public var description: String
    public var commands: [CommandHelp]
    /// Closing text: exit status, files, environment (plain text, "TITLE:" lines start sections).
    public var epilogue: String
    /// The keys of each screen, for the KEYS section: a title ("busker live")
    /// and the key tables the screen itself draws its key help from.
    public var keys: [(title: String, keys: [(key: String, action: String)])]

    public init(version: String, tagline: String, description: String, commands: [CommandHelp], epilogue: String,
                keys: [(title: String, keys: [(key: String, action: String)])] = []) {
        self.version = version
        self.tagline = tagline
        self.description = description
        self.commands = commands
        self.epilogue = epilogue
        self.keys = keys
    }

    /// The page's troff source.
    public var troff: String {
        var out: [String] = []
        out.append(#".\" Made by busker help --man from the --help texts; do not edit."#)
        out.append(".TH \(title) \(section) \"\" \"busker \(Self.escape(version))\" \"User Commands\"")
        // Long command lines read better unhyphenated and ragged-right.
        out.append(".nh")
        out.append(".ad l")
        out.append(".SH NAME")
        out.append("busker \\- \(Self.escape(tagline))")
        out.append(".SH SYNOPSIS")
        for command in commands {
            for usage in command.usageLines {
                out.append(".br")
                out.append(Self.synopsis(usage))
            }
        }
        out.append(".SH DESCRIPTION")
        out += Self.paragraphs(description)
        out.append(".SH COMMANDS")
        for command in commands {
            out.append(".SS \"busker \(command.name)\"")
            out.append(Self.escape(command.summary))
            out += Self.body(of: command.text)
        }
        if !keys.isEmpty {
            out.append(".SH KEYS")
            for screen in keys {
                out.append(".SS \"\(Self.escape(screen.title))\"")
                for (key, action) in screen.keys {
                    out += [".TP", ".B \(Self.escape(key))", Self.escape(action)]
                }
            }
        }
        var sectionLines: [String] = []
        for line in epilogue.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasSuffix(":"), line.first?.isUppercase == true, line == line.uppercased() {
                out += Self.paragraphs(sectionLines.joined(separator: "\n"))
                sectionLines = []
                out.append(".SH \(line.dropLast())")
            } else if let colon = line.range(of: ": "), line[..<colon.lowerBound].allSatisfy({ $0.isUppercase || $0 == "_" }) {
                // "NAME: what it does" (an environment variable): a tagged paragraph.
                out += Self.paragraphs(sectionLines.joined(separator: "\n"))
                sectionLines = []
                out += [".TP", ".B \(Self.escape(String(line[..<colon.lowerBound])))", Self.escape(String(line[colon.upperBound...]))]
            } else {
                sectionLines.append(String(line))
            }
        }
        out += Self.paragraphs(sectionLines.joined(separator: "\n"))
        return out.joined(separator: "\n") + "\n"
    }

    /// A help text after its usage lines, as troff.
    static func body(of text: String) -> [String] {
        var out: [String] = []
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        // Skip the usage lines (they are in SYNOPSIS).
        if lines.first?.hasPrefix("usage:") == true {
            while let line = lines.first, line.hasPrefix("usage:") || line.hasPrefix("       ") { lines.removeFirst() }
        }
        var inOption = false
        for line in lines {
            let indent = line.prefix(while: { $0 == " " }).count
            let text = line.dropFirst(indent)
            if text.isEmpty {
                inOption = false
                out.append(".PP")
            } else if OptionDeclaration.isOptionLine(line) {
                let (tag, description) = optionTag(text)
                out.append(".TP")
                out.append(tag)
                if !description.isEmpty { out.append(escape(description)) }
                inOption = true
            } else if inOption, indent > 6 {
                out.append(escape(String(text)))
            } else if indent == 0, text.hasSuffix(":") {
                inOption = false
                out.append(".PP")
                out.append(".B \"\(escape(String(text)))\"")
            } else {
                if inOption || indent > 0 {
                    out.append(indent > 0 ? ".IP" : ".PP")
                }
                inOption = false
                out.append(escape(String(text)))
            }
        }
        // Paragraph marks in a row say no more than one.
        return out.enumerated().filter { i, line in !(line == ".PP" && i + 1 < out.count && [".PP", ".TP", ".IP"].contains(out[i + 1])) }
            .map(\.element)
    }

    /// An option line's options in bold with their placeholders in italics,
    /// and the description after them.
    static func optionTag(_ text: Substring) -> (String, String) {
        // The options end at the first two spaces followed by something that is not an option.
        var tagEnd = text.endIndex
        var search = text.startIndex
        while let gap = text[search...].range(of: "  ") {
            let next = text[gap.upperBound...].drop(while: { $0 == " " })
            if !next.hasPrefix("-") {
                tagEnd = gap.lowerBound
                break
            }
            search = next.startIndex
        }
        var tagText = text[..<tagEnd]
        var description = tagEnd < text.endIndex ? String(text[tagEnd...].drop(while: { $0 == " " })) : ""
        // `--limiter-lookahead MS the look-ahead…`: one space before the description.
        let declared = OptionDeclaration.parse(helpText: "  " + tagText)
        if let last = declared.last, !last.description.isEmpty, declared.count == 1 {
            let cut = tagText.range(of: " " + last.description)!
            description = last.description + (description.isEmpty ? "" : " " + description)
            tagText = tagText[..<cut.lowerBound]
        }
        var parts: [String] = []
        for word in tagText.split(separator: " ", omittingEmptySubsequences: true) {
            if word.hasPrefix("-") {
                parts.append("\\fB\(escape(String(word)))\\fR")
            } else {
                parts.append("\\fI\(escape(String(word)))\\fR")
            }
        }
        return (parts.joined(separator: " "), description)
    }

    static func synopsis(_ usage: String) -> String {
        usage.split(separator: " ").map { word -> String in
            if word == "busker" || word.hasPrefix("-") || word == word.lowercased() && !word.contains("[") && !word.contains("|") && !word.contains("<") {
                return "\\fB\(escape(String(word)))\\fR"
            }
            return escape(String(word))
        }.joined(separator: " ")
    }

    static func paragraphs(_ text: String) -> [String] {
        var out: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) {
                if out.last != ".PP" && !out.isEmpty { out.append(".PP") }
            } else {
                out.append(escape(String(line.drop(while: { $0 == " " }))))
            }
        }
        while out.last == ".PP" { out.removeLast() }
        return out
    }

    /// Text made safe for troff: backslashes, dashes (so they copy as
    /// ASCII hyphen-minus) and a leading dot or apostrophe.
    static func escape(_ text: String) -> String {
        var result = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}

private extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
