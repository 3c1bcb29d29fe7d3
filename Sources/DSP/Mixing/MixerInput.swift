import Engine

/// The controls of one input bus of a `MixerNode`: gain, pan and mute.
///
/// Every control is a `Parameter` (an atomic): the control thread writes, the
/// audio thread reads once per block and ramps to the new value over 20 ms.
public final class MixerInput: @unchecked Sendable {
    /// The bus this strip controls (0-based).
    public let bus: Int

    // MARK: Shared (atomics)
    /// Gain in dB, −60…+12, default 0. −60 is the bottom of the fader and means silence.
    public let gainDB: Parameter
    /// Pan (mono sources, constant power) or balance (stereo sources), −1 (left)…+1 (right).
    public let pan: Parameter
    /// 0 = playing, 1 = muted; anything ≥ 0.5 counts as muted. Muting ramps like a gain change.
    public let mute: Parameter

    /// Bottom of the gain fader: this value and below mean silence.
    public static var silenceDB: Float { -60 }

    init(bus: Int) {
        self.bus = bus
        gainDB = Parameter(name: "gain", unit: "dB", range: MixerInput.silenceDB...12, default: 0)
        pan = Parameter(name: "pan", range: -1...1, default: 0)
        mute = Parameter(name: "mute", range: 0...1, default: 0)
    }

    /// Whether the input is muted; backed by `mute`.
    /// - Thread: any
    /// - Realtime: safe (an atomic load or store)
    public var isMuted: Bool {
        get { mute.value >= 0.5 }
        set { mute.value = newValue ? 1 : 0 }
    }
}
