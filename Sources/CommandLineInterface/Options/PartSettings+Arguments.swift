import Chains

extension PartSettings {
    /// The keys of `--part NAME:KEY=VALUE,…`, in the order they are written.
    public static let argumentKeys = ["level", "pan", "mute", "solo", "reverb"]

    /// `KEY=VALUE` words for each key whose value differs from `base`'s, in
    /// `argumentKeys` order; numbers written so they read back as the same Float.
    public func argumentPairs(changedFrom base: PartSettings) -> [String] {
        func flag(_ on: Bool) -> String { on ? "on" : "off" }
        var pairs: [String] = []
        if levelDB != base.levelDB { pairs.append("level=\(StripSettings.Key.Value.text(levelDB))") }
        if pan != base.pan { pairs.append("pan=\(StripSettings.Key.Value.text(pan))") }
        if mute != base.mute { pairs.append("mute=\(flag(mute))") }
        if solo != base.solo { pairs.append("solo=\(flag(solo))") }
        if reverbSendPercent != base.reverbSendPercent { pairs.append("reverb=\(StripSettings.Key.Value.text(reverbSendPercent))") }
        return pairs
    }
}

extension LiveSettings {
    /// The part's settings as they apply: as set, or the defaults.
    public func part(_ name: String) -> PartSettings { parts[name] ?? PartSettings() }

    /// Applies one `--part NAME:KEY=VALUE,…` over the part's settings as they are.
    /// - Throws: `CommandLineError.usage` naming the part and key.
    mutating func applyPartOption(_ given: String) throws {
        guard let colon = given.firstIndex(of: ":") else {
            throw CommandLineError.usage("--part \(given): expected NAME:KEY=VALUE, as in keys:level=-6")
        }
        let name = String(given[..<colon])
        guard PartSettings.names.contains(name) else {
            throw CommandLineError.usage("--part \(name): the parts are \(Self.partNamesText)")
        }
        var part = self.part(name)
        for pair in given[given.index(after: colon)...].split(separator: ",") {
            let words = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard words.count == 2 else { throw CommandLineError.usage("--part \(given): expected KEY=VALUE, not '\(pair)'") }
            try Self.set(&part, key: words[0], value: words[1], part: name)
        }
        do {
            try part.validate(part: name)
        } catch {
            throw CommandLineError.usage("--part \(error)")
        }
        parts[name] = part
    }

    /// "keys, drums and song".
    static var partNamesText: String {
        let names = PartSettings.names
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    private static func set(_ part: inout PartSettings, key: String, value: String, part name: String) throws {
        func number() throws -> Float {
            guard let x = Float(value), x.isFinite else { throw CommandLineError.usage("--part \(name): \(key) needs a number, not '\(value)'") }
            return x
        }
        func flag() throws -> Bool {
            switch value.lowercased() {
            case "on", "yes", "true", "1": return true
            case "off", "no", "false", "0": return false
            default: throw CommandLineError.usage("--part \(name): \(key) is on or off, not '\(value)'")
            }
        }
        switch key {
        case "level": part.levelDB = try number()
        case "pan": part.pan = try number()
        case "reverb": part.reverbSendPercent = try number()
        case "mute": part.mute = try flag()
        case "solo": part.solo = try flag()
        default: throw CommandLineError.usage("--part \(name): no key '\(key)' (\(PartSettings.argumentKeys.joined(separator: ", ")))")
        }
    }

    /// The `--part` options that make `parts` over `base`'s: one per part
    /// that differs, with only the keys that differ; parts in `PartSettings.names` order.
    func partArguments(from base: LiveSettings) -> [String] {
        let named = Set(parts.keys).union(base.parts.keys)
        let order = PartSettings.names + named.subtracting(PartSettings.names).sorted()
        return order.filter(named.contains).flatMap { name -> [String] in
            let pairs = part(name).argumentPairs(changedFrom: base.part(name))
            return pairs.isEmpty ? [] : ["--part", "\(name):" + pairs.joined(separator: ",")]
        }
    }

    /// These settings with every part at its defaults left out: the same
    /// sound, for comparing settings that name parts differently.
    var withoutDefaultParts: LiveSettings {
        var s = self
        s.parts = parts.filter { $0.value != PartSettings() }
        return s
    }
}
