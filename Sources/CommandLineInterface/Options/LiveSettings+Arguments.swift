import Chains
import DSP

extension LiveSettings {
    /// Options that take a value, for `ArgumentScanner`.
    public static let valuedOptions: Set<String> = Set(["inputs", "strip", "volume", "room", "part"]
        + StripSettings.Key.allCases.filter { $0.hasGlobalOption && !$0.isFlag }.map(\.rawValue))
    /// Options that take none.
    public static let flagOptions: Set<String> = Set(["no-howl-guard"]
        + StripSettings.Key.allCases.filter { $0.hasGlobalOption && $0.isFlag }.map(\.rawValue))

    /// The live settings from the command line: `--inputs` makes the strips;
    /// `--gain`, `--bass`, `--gate`… set every strip; `--strip N:key=value,…`
    /// (given once per strip) overrides strip N; `--volume`, `--room` and
    /// `--no-howl-guard` set the bus. What is not given keeps its default.
    /// - Throws: `CommandLineError.usage`, one line naming the option.
    public init(arguments args: ArgumentScanner) throws {
        self.init()
        var template = StripSettings()
        for key in StripSettings.Key.allCases where key.hasGlobalOption {
            if key.isFlag {
                if args.has(key.rawValue) { key.set(.flag(true), in: &template) }
            } else if let text = args.string(key.rawValue) {
                if let needed = key.globalRequires, !args.has(needed.rawValue) {
                    throw CommandLineError.usage("--\(key.rawValue) goes with --\(needed.rawValue)")
                }
                key.set(try Self.parse(key, text, option: "--\(key.rawValue)"), in: &template)
            }
        }
        do {
            try template.validate()
        } catch {
            throw CommandLineError.usage("--\(error.description)")
        }
        let channelLists = try args.string("inputs").map(Self.parseInputs) ?? [[1]]
        strips = channelLists.map { channels in
            var strip = template
            strip.channels = channels
            return strip
        }
        try applyStripAndBusOptions(args)
    }

    /// The settings from live options alone (what `commandLineArguments()` prints).
    /// - Throws: `CommandLineError.usage` for any other option or a bad value.
    public init(commandLine: [String]) throws {
        try self.init(arguments: ArgumentScanner(commandLine, valued: Self.valuedOptions, flags: Self.flagOptions))
    }

    /// The options that come after the every-strip ones, on the command line
    /// alone or over a preset: each `--strip N:…`, then `--volume`,
    /// `--no-howl-guard`, `--room` and each `--part NAME:…`.
    /// - Throws: `CommandLineError.usage` naming the option.
    mutating func applyStripAndBusOptions(_ args: ArgumentScanner) throws {
        for text in args.strings("strip") {
            try applyStripOverride(text)
        }
        if let v = try args.float("volume") {
            guard VoiceSettings.volumeRange.contains(v) else {
                throw CommandLineError.usage("--volume \(StripSettings.Key.Value.text(v)) is out of range 0…1")
            }
            volume = v
        }
        if args.has("no-howl-guard") { howlGuard = false }
        if let name = args.string("room") {
            guard let preset = RoomPreset(rawValue: name) else {
                throw CommandLineError.usage("--room must be one of \(RoomPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            room = preset
        }
        for text in args.strings("part") {
            try applyPartOption(text)
        }
    }

    /// `--inputs 1`, `1,2`, `1+2`, `1+2,3`: the strips, each the capture
    /// channels it sums, counted from 1.
    /// - Throws: `CommandLineError.usage` with the forms it takes.
    public static func parseInputs(_ text: String) throws -> [[Int]] {
        let usage = CommandLineError.usage(
            "--inputs takes capture channels counted from 1, a comma between strips and + to sum, as 1, 1,2 or 1+2; not '\(text)'")
        let strips = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.split(separator: "+", omittingEmptySubsequences: false).map { Int($0) }
        }
        var result: [[Int]] = []
        for strip in strips {
            let channels = strip.compactMap { $0 }
            guard !channels.isEmpty, channels.count == strip.count else { throw usage }
            if let bad = channels.first(where: { !(1...maximumChannel).contains($0) }) {
                throw CommandLineError.usage("--inputs: channel \(bad) is out of range 1…\(maximumChannel) (channels count from 1)")
            }
            guard Set(channels).count == channels.count else {
                throw CommandLineError.usage("--inputs: '\(strip.compactMap { $0 }.map(String.init).joined(separator: "+"))' sums a channel twice")
            }
            result.append(channels)
        }
        guard result.count <= maximumStripCount else {
            throw CommandLineError.usage("--inputs: at most \(maximumStripCount) strips, not \(result.count)")
        }
        return result
    }

    /// Applies one `--strip N:key=value,…`.
    mutating func applyStripOverride(_ text: String) throws {
        guard let colon = text.firstIndex(of: ":"), let number = Int(text[..<colon]) else {
            throw CommandLineError.usage("--strip takes N:key=value,… as in 2:pan=0.5,bass=3; not '\(text)'")
        }
        guard (1...strips.count).contains(number) else {
            throw CommandLineError.usage("--strip \(number): there " + (strips.count == 1 ? "is 1 strip" : "are \(strips.count) strips")
                                         + " (--inputs makes more)")
        }
        var strip = strips[number - 1]
        let option = "--strip \(number)"
        for pair in text[text.index(after: colon)...].split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let key = StripSettings.Key(rawValue: parts[0]) else {
                let keys = StripSettings.Key.allCases.map(\.rawValue).joined(separator: ", ")
                throw CommandLineError.usage("\(option): '\(pair)' is not key=value with a key among \(keys)")
            }
            key.set(try Self.parse(key, parts[1], option: option), in: &strip)
        }
        do {
            try strip.validate()
        } catch {
            throw CommandLineError.usage("\(option): \(error.description)")
        }
        strips[number - 1] = strip
    }

    static func parse(_ key: StripSettings.Key, _ text: String, option: String) throws -> StripSettings.Key.Value {
        do {
            return try key.parse(text)
        } catch {
            // "--gain needs a number, not 'x'" for a global option; "--strip 2: gain needs …" for an override.
            if option == "--\(key.rawValue)" { throw CommandLineError.usage("--\(error.description)") }
            throw CommandLineError.usage("\(option): \(error.description)")
        }
    }

    /// The shortest arguments of `busker live` that make exactly these
    /// settings (`LiveSettings(commandLine:)` gives them back, equal): each
    /// strip control goes into a global option when that saves writing it for
    /// several strips, and into `--strip N:…` where a strip differs from it. Numbers are printed so they read back as the same Float.
    public func commandLineArguments() -> [String] {
        var arguments: [String] = []
        let lists = strips.map(\.channels)
        if lists != [[1]] {
            arguments += ["--inputs", lists.map { $0.map(String.init).joined(separator: "+") }.joined(separator: ",")]
        }
        let defaults = StripSettings()
        var globals: [StripSettings.Key: StripSettings.Key.Value] = [:]
        var overrides = [[String]](repeating: [], count: strips.count)
        for key in StripSettings.Key.allCases {
            let values = strips.map { key.value(in: $0) }
            let fallback = key.value(in: defaults)
            var global = fallback
            let enabled = key.globalRequires.map { globals[$0] == .flag(true) } ?? true
            if key.hasGlobalOption && enabled {
                // The value that needs the fewest settings written out (the global
                // option, if not the default, plus a strip override for every strip
                // that differs); on a tie the default, which costs no option.
                func cost(_ value: StripSettings.Key.Value) -> Int {
                    (value == fallback ? 0 : 1) + values.filter { $0 != value }.count
                }
                var best = fallback
                for value in values where cost(value) < cost(best) { best = value }
                global = best
            }
            globals[key] = global
            if global != fallback {
                arguments += key.isFlag ? ["--\(key.rawValue)"] : ["--\(key.rawValue)", global.text]
            }
            for (i, value) in values.enumerated() where value != global {
                overrides[i].append("\(key.rawValue)=\(value.text)")
            }
        }
        for (i, pairs) in overrides.enumerated() where !pairs.isEmpty {
            arguments += ["--strip", "\(i + 1):" + pairs.joined(separator: ",")]
        }
        if volume != LiveSettings().volume { arguments += ["--volume", StripSettings.Key.Value.text(volume)] }
        if room != LiveSettings().room { arguments += ["--room", room.rawValue] }
        if !howlGuard { arguments.append("--no-howl-guard") }
        return arguments + partArguments(from: LiveSettings())
    }
}
