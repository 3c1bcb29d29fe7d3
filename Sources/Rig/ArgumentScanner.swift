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

    /// - Parameters:
    ///   - valued: options that take a value (without the leading dashes).
    ///   - flags: options that take none.
    ///   - aliases: one-letter forms, such as `["o": "output"]` for `-o`.
    public init(_ arguments: [String], valued: Set<String>, flags known: Set<String>, aliases: [Character: String] = [:]) throws {
        var i = 0
        while i < arguments.count {
            var arg = arguments[i]
            i += 1
            if arg.count == 2, arg.first == "-", let letter = arg.last, let long = aliases[letter] {
                arg = "--" + long
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
            if valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else { throw CommandLineError.usage("option --\(name) needs a value") }
                    value = arguments[i]
                    i += 1
                }
                options[name] = value
                allValues[name, default: []].append(value)
            } else if known.contains(name) {
                if inlineValue != nil { throw CommandLineError.usage("option --\(name) takes no value") }
                flags.insert(name)
            } else {
                throw CommandLineError.usage("unknown option '--\(name)'")
            }
        }
    }

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    public func string(_ name: String) -> String? { options[name] }

    /// Every value given for `name`, in order; empty when absent.
    public func strings(_ name: String) -> [String] { allValues[name] ?? [] }

    /// A number option, or nil when absent; a usage error when it is not a finite number.
    public func float(_ name: String) throws -> Float? {
        guard let text = options[name] else { return nil }
        let cleaned = text.hasPrefix("+") ? String(text.dropFirst()) : text
        guard let value = Float(cleaned), value.isFinite else {
            throw CommandLineError.usage("--\(name) needs a number, not '\(text)'")
        }
        return value
    }

    /// A whole-number option within `range`, or nil when absent.
    public func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text) else { throw CommandLineError.usage("--\(name) needs a whole number, not '\(text)'") }
        guard range.contains(value) else {
            throw CommandLineError.usage("--\(name) \(value) is out of range \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }
}
