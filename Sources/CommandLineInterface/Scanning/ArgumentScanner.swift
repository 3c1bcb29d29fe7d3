/// Reads `--name value`, `--name=value` and `--flag` options and positional
/// arguments, the way Linux audio tools take them. Every mistake is a usage
/// error naming the option.
public struct ArgumentScanner {
    public private(set) var options: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    /// Every value of each valued option, in order (`options` keeps the last):
    /// for options that may be given more than once, such as `--strip`.
    public private(set) var allValues: [String: [String]] = [:]
    /// Other long spellings and the name each is kept under.
    private let synonyms: [String: String]
    /// How each option given was spelled (`-D`, `--output`), by the name it is kept under.
    private var spellings: [String: String] = [:]

    /// The options `help` declares (`OptionDeclaration`), and `-h`/`--help`:
    /// the scanner accepts exactly what the help text lists.
    /// - Throws: `CommandLineError.usage` naming the option.
    public init(_ arguments: [String], help: String) throws {
        try self.init(arguments, declared: OptionDeclaration.parse(helpText: help))
    }

    /// A command's arguments read against its `help`, or nil when they ask
    /// for the help (`-h`, `--help`), which is then printed: every command
    /// starts `guard let args = try ArgumentScanner.command(arguments, help: help) else { return }`.
    /// - Throws: `CommandLineError.usage` naming the option.
    public static func command(_ arguments: [String], help: String) throws -> ArgumentScanner? {
        let args = try ArgumentScanner(arguments, help: help)
        guard !args.has("help") else {
            print(help)
            return nil
        }
        return args
    }

    /// The options `declared` names, and `-h`/`--help`. Values are kept under
    /// each option's first name, whichever spelling was given; an option not
    /// marked repeatable given twice is a usage error.
    public init(_ arguments: [String], declared: [OptionDeclaration]) throws {
        var valued: Set<String> = [], flags: Set<String> = ["help"], repeatable: Set<String> = []
        var aliases: [Character: String] = [:], synonyms: [String: String] = [:]
        for option in declared {
            if option.takesValue { valued.insert(option.name) } else { flags.insert(option.name) }
            if option.repeatable { repeatable.insert(option.name) }
            if let letter = option.letter { aliases[letter] = option.name }
            for other in option.names.dropFirst() { synonyms[other] = option.name }
        }
        try self.init(arguments, valued: valued, flags: flags, aliases: aliases, synonyms: synonyms, repeatable: repeatable)
    }

    /// - Parameters:
    ///   - valued: options that take a value (without the leading dashes).
    ///   - flags: options that take none.
    ///   - aliases: one-letter forms, such as `["o": "output"]` for `-o`; `-h` is `--help`
    ///     when `help` is a flag.
    ///   - synonyms: other long spellings, kept under the name they map to (`["format": "sample-format"]`).
    ///   - repeatable: the options that may be given more than once; any other
    ///     given twice is a usage error. Nil: any may be repeated, the last value wins.
    public init(_ arguments: [String], valued: Set<String>, flags known: Set<String>, aliases: [Character: String] = [:],
                synonyms: [String: String] = [:], repeatable: Set<String>? = nil) throws {
        self.synonyms = synonyms
        var aliases = aliases
        if known.contains("help"), aliases["h"] == nil { aliases["h"] = "help" }
        var i = 0
        while i < arguments.count {
            var arg = arguments[i]
            i += 1
            if arg.count == 2, arg.first == "-", let letter = arg.last, let long = aliases[letter] {
                arg = "--" + long
            } else if arg.count > 2, arg.first == "-", !arg.hasPrefix("--"), let long = aliases[arg[arg.index(after: arg.startIndex)]],
                      valued.contains(long) {
                // `-Dhw:1` and `-r44100`, as aplay takes them.
                arg = "--" + long + "=" + arg.dropFirst(2)
            }
            if arg == "--" {
                positionals.append(contentsOf: arguments[i...])
                break
            }
            guard arg.hasPrefix("--"), arg.count > 2 else {
                if arg.hasPrefix("-") && arg.count > 1 && Double(arg) == nil {
                    throw CommandLineError.usage("unknown option '\(arg)'")
                }
                positionals.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            let spelling = arguments[i - 1].hasPrefix("--") ? "--" + name : String(arguments[i - 1].prefix(2))
            name = synonyms[name] ?? name
            if let repeatable, !repeatable.contains(name), options[name] != nil || flags.contains(name) {
                throw CommandLineError.usage("option \(spelling) is given twice (it takes one\(valued.contains(name) ? " value" : ""))")
            }
            if valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else { throw CommandLineError.usage("option \(spelling) needs a value") }
                    value = arguments[i]
                    i += 1
                }
                options[name] = value
                allValues[name, default: []].append(value)
                spellings[name] = spelling
            } else if known.contains(name) {
                if inlineValue != nil { throw CommandLineError.usage("option \(spelling) takes no value") }
                flags.insert(name)
                spellings[name] = spelling
            } else {
                let hint = OptionSuggestion.hint(for: name, among: valued.union(known).union(synonyms.keys).subtracting(["help"]))
                throw CommandLineError.usage("unknown option '\(spelling)'\(hint)")
            }
        }
    }

    /// Whether the flag was given (by any of its spellings).
    public func has(_ flag: String) -> Bool { flags.contains(synonyms[flag] ?? flag) }

    /// The option's value (given by any of its spellings), nil when absent.
    public func string(_ name: String) -> String? { options[synonyms[name] ?? name] }

    /// How the option was written on the command line (`-D`, `--output`), for
    /// messages; `--name` when it was not given.
    public func spelling(_ name: String) -> String { spellings[synonyms[name] ?? name] ?? "--" + name }

    /// Every value given for `name`, in order; empty when absent.
    public func strings(_ name: String) -> [String] { allValues[synonyms[name] ?? name] ?? [] }

    /// A number option, or nil when absent; a usage error when it is not a finite number.
    public func float(_ name: String) throws -> Float? {
        guard let text = string(name) else { return nil }
        let cleaned = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let value = Float(cleaned), value.isFinite else {
            throw CommandLineError.usage("--\(name) needs a number, not '\(text)'")
        }
        return value
    }

    /// A whole-number option within `range`, or nil when absent.
    public func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw CommandLineError.usage("--\(name) needs a whole number, not '\(text)'") }
        guard range.contains(value) else {
            throw CommandLineError.usage("--\(name) \(value) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}
