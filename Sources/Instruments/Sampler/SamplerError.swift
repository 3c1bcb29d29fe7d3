/// Why a sampler could not be set up: no SoundFont, a bad SoundFont file, an
/// instrument the font does not have. Each description is one line that names
/// the file (or value) at fault and, where there is one, what to do about it.
public enum SamplerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No SoundFont was given and none is installed in the standard places.
    case noSoundFontInstalled(searched: [String])
    /// The file named does not exist. `origin` says who named it
    /// (`--soundfont`, `$BUSKER_SOUNDFONT`), empty when unknown.
    case soundFontNotFound(path: String, origin: String)
    /// The file exists but cannot be read (permissions, a directory, I/O error).
    case soundFontUnreadable(path: String, reason: String)
    /// The file does not start with a RIFF header of form type `sfbk`.
    case notASoundFont(path: String, reason: String)
    /// The RIFF header promises more bytes than the file has.
    case soundFontTruncated(path: String, expectedBytes: Int, actualBytes: Int)
    /// FluidSynth refused the file; `message` is its last log line, if any.
    case soundFontLoadFailed(path: String, message: String?)
    /// The font has no preset at this bank and program.
    case presetNotFound(path: String, bank: Int, program: Int)
    /// `--instrument` named nothing General MIDI knows.
    case unknownInstrument(String)
    /// `--instrument` is the start or part of several General MIDI names.
    case ambiguousInstrument(String, candidates: [String])
    /// Both `--instrument` and `--program` were given, with different programs.
    case conflictingInstrument(instrument: String, program: Int)
    /// A number outside its range (`--program`, `--bank`, polyphony, gain).
    case valueOutOfRange(name: String, value: String, range: String)
    /// FluidSynth could not create a settings object or a synthesizer.
    case synthesizerCreationFailed(String)

    public var description: String {
        switch self {
        case .noSoundFontInstalled(let searched):
            return "no SoundFont found (looked at $\(SoundFontLocator.environmentVariable) and \(searched.joined(separator: ", "))): "
                + "install one with `sudo apt-get install fluid-soundfont-gm`, or pass --soundfont FILE.sf2"
        case .soundFontNotFound(let path, let origin):
            return origin.isEmpty ? "SoundFont \(path): no such file" : "SoundFont \(path) (from \(origin)): no such file"
        case .soundFontUnreadable(let path, let reason):
            return "SoundFont \(path): cannot read it: \(reason)"
        case .notASoundFont(let path, let reason):
            return "\(path) is not a SoundFont (SF2/SF3): \(reason)"
        case .soundFontTruncated(let path, let expected, let actual):
            return "SoundFont \(path) is truncated or corrupt: its header promises \(expected) bytes, the file has \(actual)"
        case .soundFontLoadFailed(let path, let message):
            if let message, !message.isEmpty {
                return "SoundFont \(path) is corrupt: FluidSynth could not load it (\(message))"
            }
            return "SoundFont \(path) is corrupt: FluidSynth could not load it"
        case .presetNotFound(let path, let bank, let program):
            let name = bank == 0 && GeneralMIDI.programNames.indices.contains(program) ? " (\(GeneralMIDI.programNames[program]))" : ""
            return "SoundFont \(path) has no instrument at bank \(bank), program \(program)\(name)"
        case .unknownInstrument(let name):
            return "unknown instrument '\(name)': use a General MIDI name (piano, xylophone, \"Acoustic Guitar (nylon)\", …) or --program 0-127"
        case .ambiguousInstrument(let name, let candidates):
            let listed = candidates.prefix(8).map { "\"\($0)\"" }.joined(separator: ", ") + (candidates.count > 8 ? ", …" : "")
            return "instrument '\(name)' could be any of \(candidates.count): \(listed); give more of the name"
        case .conflictingInstrument(let instrument, let program):
            return "--instrument \(instrument) and --program \(program) disagree: give one of them"
        case .valueOutOfRange(let name, let value, let range):
            return "\(name) \(value) is out of range (\(range))"
        case .synthesizerCreationFailed(let reason):
            return "FluidSynth could not create a synthesizer: \(reason)"
        }
    }
}
