import Chains
import DSP

extension VoiceSettings {
    /// The voice controls from the command line (`--bass`, `--reverb`, `--gate`…),
    /// each checked against its range; what is not given keeps its default.
    /// - Throws: `CommandLineError.usage` naming the option.
    public init(arguments args: ArgumentScanner) throws {
        self.init()
        if let v = try args.float("bass") { bassDB = v }
        if let v = try args.float("treble") { trebleDB = v }
        if let v = try args.float("boost") { boostDB = v }
        if let v = try args.float("reverb") { reverbPercent = v }
        if let v = try args.float("volume") { volume = v }
        if let v = try args.float("high-pass") { highPassHz = v }
        noiseGate = args.has("gate")
        if let v = try args.float("gate-threshold") {
            guard noiseGate else { throw CommandLineError.usage("--gate-threshold goes with --gate") }
            gateThresholdDB = v
        }
        compressor = args.has("compressor")
        if let v = try args.float("makeup") {
            guard compressor else { throw CommandLineError.usage("--makeup goes with --compressor") }
            compressorMakeupDB = v
        }
        voiceProcessing = args.has("voice-processing")
        if args.has("no-howl-guard") { howlGuard = false }
        if let name = args.string("room") {
            guard let preset = RoomPreset(rawValue: name) else {
                throw CommandLineError.usage("--room must be one of \(RoomPreset.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            room = preset
        }
        do {
            try validate()
        } catch {
            throw CommandLineError.usage("--\(error.description)")
        }
    }
}
