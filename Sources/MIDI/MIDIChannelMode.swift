/// The channel mode messages of MIDI 1.0: control changes 120–127, which
/// change how a receiver responds on a channel rather than setting a controller.
///
/// They arrive as ``MIDIMessage/controlChange(channel:controller:value:)``;
/// ``MIDIMessage/channelMode`` recognises them. Note tracking relies on
/// ``allNotesOff`` and ``allSoundOff`` (and on Omni/Mono/Poly, which per the
/// specification also turn all notes off).
public enum MIDIChannelMode: Equatable, Hashable, Sendable {
    /// CC 120 (value 0): silence at once, release tails included.
    case allSoundOff
    /// CC 121 (value 0): controllers back to their defaults.
    case resetAllControllers
    /// CC 122: 0 disconnects the instrument's own keyboard from its sound, 127 reconnects it.
    case localControl(isOn: Bool)
    /// CC 123 (value 0): release every note started by a note on this channel.
    case allNotesOff
    /// CC 124 (value 0). Also all notes off.
    case omniOff
    /// CC 125 (value 0). Also all notes off.
    case omniOn
    /// CC 126: mono mode with `channelCount` channels (0 means as many as the receiver has). Also all notes off.
    case monoOn(channelCount: UInt8)
    /// CC 127 (value 0). Also all notes off.
    case polyOn

    // MARK: Audio thread

    /// Recognises controller 120–127 with its value; nil for ordinary controllers.
    /// - Thread: audio, control
    /// - Realtime: safe
    public init?(controller: UInt8, value: UInt8) {
        switch controller {
        case 120: self = .allSoundOff
        case 121: self = .resetAllControllers
        // The specification sends 0 for off and 127 for on; anything but 0 counts as on.
        case 122: self = .localControl(isOn: value != 0)
        case 123: self = .allNotesOff
        case 124: self = .omniOff
        case 125: self = .omniOn
        case 126: self = .monoOn(channelCount: value)
        case 127: self = .polyOn
        default: return nil
        }
    }

    /// True for the mode messages that, per MIDI 1.0, end every sounding note
    /// on the channel: All Notes Off and the four Omni/Mono/Poly messages.
    /// All Sound Off ends them too, more abruptly.
    /// - Thread: audio, control
    /// - Realtime: safe
    public var endsAllNotes: Bool {
        switch self {
        case .allSoundOff, .allNotesOff, .omniOff, .omniOn, .monoOn, .polyOn: return true
        case .resetAllControllers, .localControl: return false
        }
    }

    // MARK: Control thread

    /// The controller number (120–127) that carries this mode message.
    public var controller: UInt8 {
        switch self {
        case .allSoundOff: return 120
        case .resetAllControllers: return 121
        case .localControl: return 122
        case .allNotesOff: return 123
        case .omniOff: return 124
        case .omniOn: return 125
        case .monoOn: return 126
        case .polyOn: return 127
        }
    }

    /// The control value sent with this mode message.
    public var value: UInt8 {
        switch self {
        case .localControl(let isOn): return isOn ? 127 : 0
        case .monoOn(let channelCount): return channelCount & 0x7F
        default: return 0
        }
    }
}

extension MIDIMessage {
    // MARK: Audio thread

    /// The channel mode message this control change carries, or nil when the
    /// message is not a control change 120–127.
    /// - Thread: audio, control
    /// - Realtime: safe
    public var channelMode: MIDIChannelMode? {
        guard case .controlChange(_, let controller, let value) = self else { return nil }
        return MIDIChannelMode(controller: controller, value: value)
    }

    // MARK: Control thread

    /// A channel mode message on `channel` as the control change that carries it.
    public static func channelMode(_ mode: MIDIChannelMode, channel: UInt8) -> MIDIMessage {
        .controlChange(channel: channel, controller: mode.controller, value: mode.value)
    }

    /// CC 120 All Sound Off.
    public var isAllSoundOff: Bool { channelMode == .allSoundOff }
    /// CC 121 Reset All Controllers.
    public var isResetAllControllers: Bool { channelMode == .resetAllControllers }
    /// CC 122 Local Control (on or off).
    public var isLocalControl: Bool {
        if case .localControl = channelMode { return true }
        return false
    }
    /// CC 123 All Notes Off.
    public var isAllNotesOff: Bool { channelMode == .allNotesOff }
    /// CC 124 Omni Off.
    public var isOmniOff: Bool { channelMode == .omniOff }
    /// CC 125 Omni On.
    public var isOmniOn: Bool { channelMode == .omniOn }
    /// CC 126 Mono On.
    public var isMonoOn: Bool {
        if case .monoOn = channelMode { return true }
        return false
    }
    /// CC 127 Poly On.
    public var isPolyOn: Bool { channelMode == .polyOn }
}
