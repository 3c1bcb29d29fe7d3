import AudioFiles
import Control
import DSP
import Instruments
import Recording

/// What a value on the command line is, for shell completion: a file of some
/// kinds, an ALSA PCM name, an installed drum kit, one of a few words.
public enum CompletionKind: Equatable, Sendable {
    /// Nothing to offer (a number, a name the user makes up).
    case none
    /// Files with these extensions, and folders; any file when empty.
    case files(extensions: [String])
    /// ALSA PCM names, as `busker devices --names` lists them.
    case pcm
    /// Installed drum kits (`busker kits --names`), and folders.
    case kit
    /// One of these words.
    case words([String])
    /// Busker's commands.
    case commands
    /// The presets saved in the preset folder (`PresetStore`'s).
    case preset
    /// General MIDI instrument names and the short names `--instrument` takes.
    case instrument

    public static let soundFontExtensions = ["sf2", "sf3"]
    public static let songExtensions = ["mid", "midi", "kar", "smf"]
    public static let audioExtensions = ["wav", "flac", "ogg", "aiff", "aif"]

    /// What `option`'s value is, from its name and placeholder: `PCM` a PCM
    /// name, `--kit` a kit, `--preset` a saved preset, `--instrument` an
    /// instrument name, `--soundfont` a SoundFont, `--sample-format` the
    /// format names its description lists (all, where it lists none),
    /// `--record-format` and `--room` their names, `a|b|c` its words,
    /// `PATH`, `FILE` or `DIR` a file.
    public static func forValue(of option: OptionDeclaration) -> CompletionKind {
        guard let placeholder = option.placeholder else { return .none }
        if placeholder == "PCM" { return .pcm }
        switch option.name {
        case "kit": return .kit
        case "preset": return .preset
        case "instrument": return .instrument
        case "soundfont": return .files(extensions: soundFontExtensions)
        case "sample-format":
            // The formats the command's help names (a take has no S32_LE).
            let named = SampleFormat.allCases.map(\.alsaName).filter { option.description.contains($0) }
            return .words(named.isEmpty ? SampleFormat.allCases.map(\.alsaName) : named)
        case "record-format": return .words(RecordingFormat.allCases.map(\.rawValue))
        case "room": return .words(RoomPreset.allCases.map(\.rawValue))
        default: break
        }
        if !option.valueWords.isEmpty { return .words(option.valueWords) }
        if ["PATH", "FILE", "DIR", ".wav", ".mid"].contains(where: { placeholder.contains($0) }) { return .files(extensions: []) }
        return .none
    }
}
