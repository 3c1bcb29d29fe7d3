/// Everything a `SamplerSynth` is built from: the SoundFont, the instrument
/// set on the sampler's channels at load, and FluidSynth's settings.
public struct SamplerConfiguration: Equatable, Sendable {
    /// The SF2 or SF3 file (see `SoundFontLocator`).
    public var soundFontPath: String
    /// Program (and bank) set on every channel the sampler takes at load;
    /// MIDI program changes and bank selects change it afterwards.
    public var instrument: SamplerInstrument
    /// Voices FluidSynth may play at once (`synth.polyphony`). When a note
    /// needs a voice and none is free, FluidSynth steals the one that matters
    /// least (released, quietest, oldest: its `synth.overflow.*` priorities).
    /// A stereo preset uses two voices per note.
    public var polyphony: Int
    /// FluidSynth's master gain (`synth.gain`). The default, 0.3, is 3.5 dB
    /// above FluidSynth's own 0.2: loud enough that one played instrument
    /// (a fortissimo note, a full chord) comes out at a useful level with
    /// headroom left, while a dense General MIDI arrangement stays mostly
    /// below full scale and the output limiter catches the rest.
    public var gain: Double
    /// FluidSynth's own reverb and chorus; off by default because Busker's reverb serves.
    public var reverb: Bool
    public var chorus: Bool
    /// Render each MIDI channel to its own stereo pair (`synth.audio-groups =
    /// 16`), for `SamplerSynth.renderChannels`: the per-channel sends of
    /// `SamplerNode`. Off by default (one stereo mix).
    public var channelOutputs = false
    /// Seconds a resident preset may stay unselected on every channel before
    /// it is freed, once the synth is silent (0: never). A song's presets,
    /// read before it starts, are never freed.
    public var unloadIdlePresetsAfterSeconds = SamplerConfiguration.defaultUnloadIdlePresetsAfterSeconds

    public static let defaultPolyphony = 256
    public static let defaultGain = 0.3
    public static let defaultUnloadIdlePresetsAfterSeconds = 30.0
    public static let polyphonyRange = 1...65535
    public static let gainRange = 0.0...10.0

    public init(soundFontPath: String, instrument: SamplerInstrument = .piano,
                polyphony: Int = SamplerConfiguration.defaultPolyphony, gain: Double = SamplerConfiguration.defaultGain,
                reverb: Bool = false, chorus: Bool = false) {
        self.soundFontPath = soundFontPath
        self.instrument = instrument
        self.polyphony = polyphony
        self.gain = gain
        self.reverb = reverb
        self.chorus = chorus
    }
}
