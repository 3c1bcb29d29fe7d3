import Chains
import DSP

extension LiveSettings {
    /// `busker live --preset NAME [options]`: the preset's settings, with the
    /// options given on the command line over them. `--inputs` remakes the
    /// strips (strip N keeps the preset's strip N, with the new channels; new
    /// strips start at the defaults); `--bass`, `--gate`… set every strip;
    /// `--strip N:key=value` strip N; `--volume`, `--room`, `--no-howl-guard` the bus.
    /// - Throws: `CommandLineError.usage`, as `init(arguments:)` does.
    public init(arguments args: ArgumentScanner, over preset: LiveSettings) throws {
        self = preset
        if let text = args.string("inputs") {
            let lists = try Self.parseInputs(text)
            strips = lists.enumerated().map { index, channels in
                var strip = index < preset.strips.count ? preset.strips[index] : StripSettings()
                strip.channels = channels
                return strip
            }
        }
        for key in StripSettings.Key.allCases where key.hasGlobalOption {
            let value: StripSettings.Key.Value
            if key.isFlag {
                guard args.has(key.rawValue) else { continue }
                value = .flag(true)
            } else {
                guard let text = args.string(key.rawValue) else { continue }
                // --gate-threshold needs the gate on: given with --gate, or on in every strip already.
                if let needed = key.globalRequires, !args.has(needed.rawValue),
                   !strips.allSatisfy({ needed.value(in: $0) == .flag(true) }) {
                    throw CommandLineError.usage("--\(key.rawValue) goes with --\(needed.rawValue)")
                }
                value = try Self.parse(key, text, option: "--\(key.rawValue)")
                var probe = StripSettings()
                key.set(value, in: &probe)
                do {
                    try probe.validate()
                } catch {
                    throw CommandLineError.usage("--\(error.description)")
                }
            }
            for index in strips.indices { key.set(value, in: &strips[index]) }
        }
        try applyStripAndBusOptions(args)
        do {
            try validate()
        } catch {
            throw CommandLineError.usage("--\(error.description)")
        }
    }
}
