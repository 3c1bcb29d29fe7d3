import Instruments

/// Why a chain cannot be built from its description: a strip reading a
/// channel the input lacks, an instrument or kit that is not there, a
/// SoundFont or kit that cannot be read. Each description is one line for the
/// user, in the chain's words (strips, channels, presets, banks): a command
/// line names its own options when it reports one. What was asked for that
/// cannot be (`isRequestError`) and what failed on the way are told apart, so
/// a command line can answer the first as a usage error and the second as a
/// runtime failure.
public enum ChainError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Strip `strip` (from 1) reads capture channel `channel`, which an input of
    /// `inputChannelCount` channels does not have.
    case missingInputChannel(strip: Int, channel: Int, inputChannelCount: Int)
    /// A strip control's value is not one it takes (`gain needs a number, not 'x'`).
    case stripValue(key: StripSettings.Key, text: String)
    /// The instrument, program or bank asked for names no preset: neither a
    /// General MIDI name nor the font's own (`unknownInstrument`), several
    /// (`ambiguousInstrument`), or one the program contradicts (`conflictingInstrument`).
    case instrument(SamplerError)
    /// `--instrument NAME` is a name of the font's own (not General MIDI) that
    /// the font does not have: look at the font's preset names.
    case instrumentNotInFont(String)
    /// The font's preset `instrument` is in bank `presetBank`, and the bank asked for is `bank`.
    case bankConflict(instrument: String, presetBank: Int, bank: Int)
    /// No installed drum kit has this name.
    case unknownKit(String)
    /// The SoundFont cannot be found, read or loaded.
    case soundFont(SamplerError)
    /// The drum kit cannot be found, read or loaded.
    case kit(DrumKitError)

    public var description: String {
        switch self {
        case let .missingInputChannel(strip, channel, count):
            "strip \(strip) reads channel \(channel), but the input has "
                + (count == 1 ? "1 channel" : "\(count) channels")
        case let .stripValue(key, text):
            key.isFlag ? "\(key.rawValue) takes on or off, not '\(text)'" : "\(key.rawValue) needs a number, not '\(text)'"
        case let .instrument(error): error.description
        case let .instrumentNotInFont(name): SamplerError.unknownInstrument(name).description
        case let .bankConflict(instrument, presetBank, bank):
            "instrument \(instrument) is bank \(presetBank), not bank \(bank)"
        case let .unknownKit(name): DrumKitError.unknownKit(name: name).description
        case let .soundFont(error): error.description
        case let .kit(error): error.description
        }
    }

    /// Whether the description asked for something that cannot be (a channel,
    /// value, instrument or kit that is not there), rather than something
    /// failing on the way (a file that cannot be read).
    public var isRequestError: Bool {
        switch self {
        case .missingInputChannel, .stripValue, .instrument, .instrumentNotInFont, .bankConflict, .unknownKit: true
        case .soundFont, .kit: false
        }
    }
}
