import Chains

extension LiveSettings {
    /// The options that, given after `--preset` over `base`, make these
    /// settings: only what differs (`--volume 0.2`, `--strip 2:mute=on`), not
    /// every setting. Nil when no options can say it (the preset has the howl
    /// guard off and these have it on); `LiveSettings(arguments:over:)` gives
    /// these settings back from the result, equal but for parts at their
    /// defaults named on one side only (the same sound).
    public func argumentsChanged(from base: LiveSettings) -> [String]? {
        var arguments: [String] = []
        // What --inputs makes of the preset's strips: strip N keeps its settings, new ones start at the defaults.
        var remade = base.strips
        let lists = strips.map(\.channels)
        if lists != base.strips.map(\.channels) {
            arguments += ["--inputs", lists.map { $0.map(String.init).joined(separator: "+") }.joined(separator: ",")]
            remade = lists.enumerated().map { index, channels in
                var strip = index < base.strips.count ? base.strips[index] : StripSettings()
                strip.channels = channels
                return strip
            }
        }
        var overrides = [[String]](repeating: [], count: strips.count)
        for key in StripSettings.Key.allCases {
            let changed = strips.indices.filter { key.value(in: strips[$0]) != key.value(in: remade[$0]) }
            guard !changed.isEmpty else { continue }
            let value = key.value(in: strips[changed[0]])
            // The same change on every strip, by an option every strip takes: one option, as the user typed it.
            let sayOnce = changed.count == strips.count && key.hasGlobalOption && key.globalRequires == nil
                && changed.allSatisfy { key.value(in: strips[$0]) == value } && (!key.isFlag || value == .flag(true))
            if sayOnce {
                arguments += key.isFlag ? ["--\(key.rawValue)"] : ["--\(key.rawValue)", value.text]
            } else {
                for index in changed { overrides[index].append("\(key.rawValue)=\(key.value(in: strips[index]).text)") }
            }
        }
        for (index, pairs) in overrides.enumerated() where !pairs.isEmpty {
            arguments += ["--strip", "\(index + 1):" + pairs.joined(separator: ",")]
        }
        if volume != base.volume { arguments += ["--volume", StripSettings.Key.Value.text(volume)] }
        if room != base.room { arguments += ["--room", room.rawValue] }
        if howlGuard != base.howlGuard {
            guard !howlGuard else { return nil }
            arguments.append("--no-howl-guard")
        }
        arguments += partArguments(from: base)
        let scanner = try? ArgumentScanner(arguments, valued: Self.valuedOptions, flags: Self.flagOptions)
        // A part at its defaults sounds the same named or not.
        guard let scanner, let remadeSettings = try? LiveSettings(arguments: scanner, over: base),
              remadeSettings.withoutDefaultParts == withoutDefaultParts else { return nil }
        return arguments
    }
}
