import Foundation

/// The command line that starts the same sound again, which `busker live`
/// prints when it ends: `busker live --preset gig` when the settings are a
/// saved preset's, unchanged, else every setting spelled out; either way with
/// the device (or file) options the session was started with.
public enum LiveRestartCommand {
    /// Options that choose the devices or files and their timing, repeated as given.
    public static let deviceOptions = ["driver", "name", "connect", "device", "input", "output", "period", "periods", "periods-ahead", "rate",
                                       "format", "channels", "limiter-lookahead", "midi", "midi-in"]
    public static let deviceFlags = ["no-tui", "auto-resume", "reconnect"]

    /// The device options of `args`, in a fixed order, each as `--name value`.
    public static func deviceArguments(_ args: ArgumentScanner) -> [String] {
        deviceOptions.flatMap { name in args.strings(name).flatMap { ["--\(name)", $0] } }
            + deviceFlags.filter(args.has).map { "--\($0)" }
    }

    /// `busker live` with the device options, then `--preset NAME` or every setting.
    /// - Parameter settingsArguments: the settings as options (`LiveSettings.commandLineArguments()`).
    public static func arguments(deviceArguments: [String], presetName: String?, settingsArguments: [String]) -> [String] {
        ["busker", "live"] + deviceArguments + (presetName.map { ["--preset", $0] } ?? settingsArguments)
    }

    /// The line to print: `--preset NAME` when preset `presetName` as saved
    /// now holds exactly `settings` (and `midi`, when both have a mapping),
    /// else every setting spelled out.
    /// - Thread: control
    /// - Realtime: unsafe (reads the preset file)
    public static func line(settings: LiveSettings, midi: [PresetEntry]?, presetName: String?, presets: PresetStore?,
                            deviceArguments: [String]) -> String {
        var unchanged: String?
        if let presetName, let saved = try? presets?.load(presetName), saved.settings == settings,
           midi == nil || saved.midi == nil || sameMapping(saved.midi, midi) {
            unchanged = presetName
        }
        return shellText(arguments(deviceArguments: deviceArguments, presetName: unchanged,
                                   settingsArguments: settings.commandLineArguments()))
    }

    /// Whether two `[midi]` sections bind the same: as the mapping reads
    /// them, so `CC64 = Mic` written by hand equals `cc64 = mic` saved.
    static func sameMapping(_ a: [PresetEntry]?, _ b: [PresetEntry]?) -> Bool {
        guard let mapA = try? MIDIControlMap(preset: a), let mapB = try? MIDIControlMap(preset: b) else { return a == b }
        return mapA == mapB
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
