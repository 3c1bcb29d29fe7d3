import Chains

/// A control of `busker live` that a MIDI controller can drive: the mic
/// switch, the master volume, or one strip's reverb send, mute, gain, pan,
/// bass or treble. Strips are numbered from 1, as on the screen.
///
/// Toggles (`mic`, `mute`) flip on a press; the others follow a knob or
/// fader (a CC, 0–127) across their range.
public enum LiveControl: Hashable, Sendable {
    /// The big MIC ON/OFF: every strip muted or unmuted together, with the mixer's ramp.
    case mic
    /// The bus's master volume, 0–1.
    case volume
    /// A strip's send to the bus reverb, 0–100 %.
    case reverb(strip: Int)
    case mute(strip: Int)
    /// A strip's input gain, −24…24 dB.
    case gain(strip: Int)
    /// A strip's pan, −1 (left) … +1 (right); CC value 64 is the centre.
    case pan(strip: Int)
    case bass(strip: Int)
    case treble(strip: Int)

    /// Strips a map may name (a session uses as many as it has).
    public static let stripRange = 1...16

    /// Whether a press flips it (a footswitch, a pad) rather than a knob setting it.
    public var isToggle: Bool {
        switch self {
        case .mic, .mute: true
        default: false
        }
    }

    /// The strip it belongs to, or nil for the bus's controls.
    public var strip: Int? {
        switch self {
        case .mic, .volume: nil
        case let .reverb(strip), let .mute(strip), let .gain(strip), let .pan(strip), let .bass(strip), let .treble(strip): strip
        }
    }

    /// The preset's spelling: `mic`, `volume`, `reverb 1`, `mute 2`.
    public var text: String {
        switch self {
        case .mic: "mic"
        case .volume: "volume"
        case let .reverb(strip): "reverb \(strip)"
        case let .mute(strip): "mute \(strip)"
        case let .gain(strip): "gain \(strip)"
        case let .pan(strip): "pan \(strip)"
        case let .bass(strip): "bass \(strip)"
        case let .treble(strip): "treble \(strip)"
        }
    }

    /// The names a map's value may start with, for error messages.
    public static let names = ["mic", "volume", "reverb N", "mute N", "gain N", "pan N", "bass N", "treble N"]

    /// Reads the preset's spelling (case and extra spaces do not matter).
    /// A strip control without a number means strip 1.
    /// - Throws: a one-line reason (the map's parser adds the line).
    public init(text: String) throws(MIDIControlMapError) {
        let words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let name = words.first else { throw .init(problem: "no control after '=' (one of: \(Self.names.joined(separator: ", ")))") }
        let strip: Int
        switch words.count {
        case 1: strip = 1
        case 2:
            guard let number = Int(words[1]), Self.stripRange.contains(number) else {
                throw .init(problem: "strip '\(words[1])' is not a number \(Self.stripRange.lowerBound)–\(Self.stripRange.upperBound)")
            }
            strip = number
        default: throw .init(problem: "'\(text)' is not a control (one of: \(Self.names.joined(separator: ", ")))")
        }
        switch name {
        case "mic" where words.count == 1: self = .mic
        case "volume" where words.count == 1: self = .volume
        case "reverb": self = .reverb(strip: strip)
        case "mute": self = .mute(strip: strip)
        case "gain": self = .gain(strip: strip)
        case "pan": self = .pan(strip: strip)
        case "bass": self = .bass(strip: strip)
        case "treble": self = .treble(strip: strip)
        case "mic", "volume": throw .init(problem: "\(name) belongs to the whole mix and takes no strip number")
        default: throw .init(problem: "unknown control '\(name)' (one of: \(Self.names.joined(separator: ", ")))")
        }
    }

    /// For the screen: "strip 1 reverb", "the mic".
    public var label: String {
        switch self {
        case .mic: "mic on/off"
        case .volume: "volume"
        case let .reverb(strip): "strip \(strip) reverb"
        case let .mute(strip): "strip \(strip) mute"
        case let .gain(strip): "strip \(strip) gain"
        case let .pan(strip): "strip \(strip) pan"
        case let .bass(strip): "strip \(strip) bass"
        case let .treble(strip): "strip \(strip) treble"
        }
    }

    /// The value a continuous control has in `settings`, or nil for a toggle
    /// or a strip the session does not have.
    public func value(in settings: LiveSettings) -> Float? {
        switch self {
        case .mic, .mute: return nil
        case .volume: return settings.volume
        default: break
        }
        guard let index = stripIndex(in: settings) else { return nil }
        let s = settings.strips[index]
        switch self {
        case .reverb: return s.reverbSendPercent
        case .gain: return s.gainDB
        case .pan: return s.pan
        case .bass: return s.bassDB
        case .treble: return s.trebleDB
        case .mic, .volume, .mute: return nil
        }
    }

    /// Sets a continuous control's value (clamped to its range); does nothing
    /// for a toggle or a strip the session does not have.
    public func set(_ value: Float, in settings: inout LiveSettings) {
        guard let range else { return }
        let v = min(max(value, range.lowerBound), range.upperBound)
        if self == .volume {
            settings.volume = v
            return
        }
        guard let index = stripIndex(in: settings) else { return }
        switch self {
        case .reverb: settings.strips[index].reverbSendPercent = v
        case .gain: settings.strips[index].gainDB = v
        case .pan: settings.strips[index].pan = v
        case .bass: settings.strips[index].bassDB = v
        case .treble: settings.strips[index].trebleDB = v
        case .mic, .volume, .mute: break
        }
    }

    /// The range a CC's 0–127 spans, or nil for a toggle.
    public var range: ClosedRange<Float>? {
        switch self {
        case .mic, .mute: nil
        case .volume: VoiceSettings.volumeRange
        case .reverb: StripSettings.reverbSendRange
        case .gain: StripSettings.gainRange
        case .pan: StripSettings.panRange
        case .bass: VoiceSettings.bassRange
        case .treble: VoiceSettings.trebleRange
        }
    }

    /// A CC value 0–127 as this control's value: linear across the range,
    /// except pan, whose centre is 64 (as on every MIDI pan knob).
    public func value(forCC cc: UInt8) -> Float? {
        guard let range else { return nil }
        let v = Float(min(cc, 127))
        if case .pan = self { return min(max((v - 64) / 63, -1), 1) }
        return range.lowerBound + v / 127 * (range.upperBound - range.lowerBound)
    }

    func stripIndex(in settings: LiveSettings) -> Int? {
        guard let strip, strip >= 1, strip <= settings.strips.count else { return nil }
        return strip - 1
    }
}
