import DSP
import Engine

/// The tone stage the voice chain and the instrument chain share: a bass
/// shelf at 150 Hz, a treble shelf at 6 kHz, a boost and the reverb, set
/// together from `VoiceSettings`.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class ToneControls {
    public let bass: BiquadNode
    public let treble: BiquadNode
    public let boost: GainNode
    public let reverb: ReverbNode
    /// The room the reverb was last set to; a preset change resets size, damping and width.
    public private(set) var room: RoomPreset

    public init(settings: VoiceSettings) {
        bass = BiquadNode(name: "bass", kind: .lowShelf, frequency: VoiceChain.bassFrequency)
        treble = BiquadNode(name: "treble", kind: .highShelf, frequency: VoiceChain.trebleFrequency)
        boost = GainNode(name: "boost", gainDB: 0, range: VoiceSettings.boostRange)
        reverb = ReverbNode(name: "reverb", preset: settings.room)
        room = settings.room
        apply(settings)
    }

    /// The nodes in signal order.
    public var nodes: [AudioNode] { [bass, treble, boost, reverb] }

    /// Sets bass, treble, boost, room and reverb amount; the nodes smooth the change.
    public func apply(_ settings: VoiceSettings) {
        bass.gainDB.value = settings.bassDB
        treble.gainDB.value = settings.trebleDB
        boost.gainDB.value = settings.boostDB
        if room != settings.room {
            reverb.apply(settings.room)
            room = settings.room
        }
        reverb.wet.value = settings.reverbPercent
    }
}
