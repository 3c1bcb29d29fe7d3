import Chains
import Control
import Foundation

/// The command line that starts the same sound again, which `busker live`
/// prints when it ends. It names what the session used that the user gave
/// or changed: the devices (or files) and their options, `--osc`, the strips,
/// and the settings as `--preset NAME` plus only the options changed since
/// the preset as saved now (`--preset gig --volume 0.2`), or, without a
/// preset, every setting that is not the default. The program is named by
/// the path that was run, and the environment a session on the virtual sound
/// card needs (`ALSA_CONFIG_PATH=…`) comes first, so the line works pasted
/// into the same shell; after `Tools/live`, whose card goes with it, the
/// line is `Tools/live` with the options.
public enum LiveRestartCommand {
    /// Options that choose the devices or files, their timing and the remote
    /// controls, repeated as given.
    public static let deviceOptions = ["driver", "name", "connect", "device", "input", "output", "period", "periods", "periods-ahead", "rate",
                                       "format", "channels", "limiter-lookahead", "midi", "midi-in", "osc", "osc-bind",
                                       "soundfont", "instrument", "program", "bank", "polyphony", "kit", "drums", "note-watchdog",
                                       "song", "tempo", "from", "transpose", "section", "control-midi", "control-midi-in"]
    public static let deviceFlags = ["no-tui", "auto-resume", "reconnect", "no-drums", "loop", "direct-outs"]
    /// The environment variables that choose the ALSA configuration and the
    /// JACK server (the virtual sound card's), repeated when set.
    public static let environmentNames = ["ALSA_CONFIG_PATH", "JACK_DEFAULT_SERVER", "JACK_NO_START_SERVER"]

    /// How the session was started, apart from its settings.
    public struct Invocation: Equatable, Sendable {
        /// The program as run: a path, or a name found on PATH.
        public var program: String
        /// `NAME=value` words to put first (`ALSA_CONFIG_PATH=…`).
        public var environment: [String]
        /// The device options (`deviceArguments(_:)`).
        public var deviceArguments: [String]
        /// The script that started busker on a card of its own (`Tools/live`,
        /// from `$BUSKER_LAUNCHER`, as shell text): the line starts with it
        /// in place of `busker live` and the devices it gives.
        public var launcher: String?

        public init(program: String = "busker", environment: [String] = [], deviceArguments: [String], launcher: String? = nil) {
            self.program = program
            self.environment = environment
            self.deviceArguments = deviceArguments
            self.launcher = launcher
        }
    }

    /// The devices a launcher (`Tools/live`) gives busker live on its virtual card.
    public static let launcherDeviceArguments = ["--input", "busker_in", "--output", "busker_out"]

    /// The device options of `args`, in a fixed order, each as `--name value`.
    public static func deviceArguments(_ args: ArgumentScanner) -> [String] {
        deviceOptions.flatMap { name in args.strings(name).flatMap { ["--\(name)", $0] } }
            + deviceFlags.filter(args.has).map { "--\($0)" }
    }

    /// The program named as the shell finds it again: a name without a slash
    /// as it is (PATH found it), a path made absolute against `directory`.
    public static func program(argumentZero: String, directory: String) -> String {
        guard argumentZero.contains("/") else { return argumentZero }
        let url = argumentZero.hasPrefix("/") ? URL(fileURLWithPath: argumentZero)
            : URL(fileURLWithPath: directory).appendingPathComponent(argumentZero)
        return url.standardizedFileURL.path
    }

    /// `NAME=value` for each of `environmentNames` set in `environment`.
    public static func environmentWords(_ environment: [String: String]) -> [String] {
        environmentNames.compactMap { name in environment[name].map { "\(name)=\($0)" } }
    }

    /// The settings as options: `--preset NAME` and the options changed
    /// since it as saved, when there is one and options can say the
    /// difference; else every setting that is not the default.
    public static func settingsArguments(_ settings: LiveSettings, presetName: String?, saved: LiveSettings?) -> [String] {
        if let presetName, let saved, let changed = settings.argumentsChanged(from: saved) {
            return ["--preset", presetName] + changed
        }
        return settings.commandLineArguments()
    }

    /// The line to print.
    /// - Thread: control
    /// - Realtime: unsafe (reads the preset file)
    public static func line(settings: LiveSettings, presetName: String?, presets: PresetStore?, invocation: Invocation) -> String {
        let saved = presetName.flatMap { try? presets?.load($0) }
        let settingsWords = settingsArguments(settings, presetName: presetName, saved: saved?.settings)
        if let launcher = invocation.launcher, !launcher.isEmpty,
           invocation.deviceArguments.starts(with: launcherDeviceArguments) {
            let rest = Array(invocation.deviceArguments.dropFirst(launcherDeviceArguments.count)) + settingsWords
            return rest.isEmpty ? launcher : launcher + " " + shellText(rest)
        }
        let words = [invocation.program, "live"] + invocation.deviceArguments + settingsWords
        return (invocation.environment.map(shellAssignment) + [shellText(words)]).joined(separator: " ")
    }

    /// The MIDI bindings of `current` that the preset as saved (or, without
    /// one, the defaults) does not hold, each as "learned CC 16 → strip 1
    /// mute: not saved; w saves it": a learned mapping is named at quit, not lost in silence.
    /// - Thread: control
    /// - Realtime: unsafe (reads the preset file)
    public static func unsavedMappingLines(current: [PresetEntry]?, presetName: String?, presets: PresetStore?) -> [String] {
        guard let current, let now = try? MIDIControlMap(preset: current) else { return [] }
        var saved = MIDIControlMap.defaults
        if let presetName, let preset = try? presets?.load(presetName), let map = try? MIDIControlMap(preset: preset.midi) {
            saved = map
        }
        return now.bindings.keys.sorted().compactMap { source in
            guard let control = now.bindings[source], saved.bindings[source] != control else { return nil }
            return "learned \(source.label) → \(control.label): not saved; w saves it"
        }
    }

    /// Whether two `[midi]` sections bind the same: as the mapping reads
    /// them, so `CC64 = Mic` written by hand equals `cc64 = mic` saved.
    static func sameMapping(_ a: [PresetEntry]?, _ b: [PresetEntry]?) -> Bool {
        guard let mapA = try? MIDIControlMap(preset: a), let mapB = try? MIDIControlMap(preset: b) else { return a == b }
        return mapA == mapB
    }

    /// `NAME=value` with the value quoted as `shellText` quotes a word.
    static func shellAssignment(_ word: String) -> String {
        guard let equals = word.firstIndex(of: "=") else { return shellText([word]) }
        return String(word[...equals]) + shellText([String(word[word.index(after: equals)...])])
    }

    /// The words as a POSIX shell reads them back: a word with anything but
    /// letters, digits and `-_./:=,+@%` in single quotes.
    public static func shellText(_ words: [String]) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%")
        return words.map { word in
            if !word.isEmpty && word.allSatisfy(plain.contains) { return word }
            return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}
