import DSP
import Engine

/// The instruments' graph, the play and render counterpart of `LiveChain`:
///
///     source 0 ─┐
///     source 1 ─┼→ mixer (a bus each; gain, pan, mute; master volume)
///     …        ─┘   → bass → treble → boost → reverb → limiter → output meter → output
///
/// The sources are instrument nodes (the sampler, the drum kit) that render
/// from MIDI events; the tone controls, reverb and limiter are the live
/// chain's nodes, so an instrument sounds through the same EQ and the same
/// safety ceiling as the mic. The graph takes no input: `AudioGraph(inputChannelCount: 0)`.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class InstrumentChain {
    public let graph: AudioGraph
    public let sources: [AudioNode]
    public let mixer: MixerNode
    /// Bass, treble and boost, as in a channel strip.
    public let tone: ToneControls
    /// An insert reverb (its mix law in `ReverbNode`).
    public let reverb: ReverbNode
    /// The room the reverb was last set to; a preset change resets size, damping and width.
    public private(set) var room: RoomPreset
    public let limiter: LimiterNode
    public let outputMeter: MeterNode

    /// - Parameters:
    ///   - sources: instrument nodes, one mixer bus each, in order.
    ///   - settings: tone, reverb and volume (the high-pass is a mic control and unused here).
    ///   - limiterLookaheadMilliseconds: look-ahead and latency of the output limiter.
    public init(sources: [AudioNode], settings: VoiceSettings = VoiceSettings(), limiterLookaheadMilliseconds: Float = 1) throws {
        precondition(!sources.isEmpty, "an instrument chain needs at least one source")
        try settings.validate()
        graph = AudioGraph(inputChannelCount: 0)
        self.sources = sources
        mixer = MixerNode(name: "mixer", inputCount: sources.count, outputChannelCount: 2)
        tone = ToneControls()
        reverb = ReverbNode(name: "reverb", preset: settings.room)
        room = settings.room
        limiter = LimiterNode(name: "limiter", ceilingDB: -1, lookaheadMilliseconds: limiterLookaheadMilliseconds)
        outputMeter = MeterNode(name: "output meter")
        let mixerID = graph.add(mixer)
        for (bus, source) in sources.enumerated() {
            try graph.connect(graph.add(source), to: mixerID, bus: bus)
        }
        var last = mixerID
        for node in tone.nodes + [reverb, limiter, outputMeter] {
            let id = graph.add(node)
            try graph.connect(last, to: id)
            last = id
        }
        graph.output = last
        apply(settings)
    }

    /// Sets tone, reverb and master volume from `settings`; the nodes smooth the change.
    public func apply(_ settings: VoiceSettings) {
        tone.apply(bassDB: settings.bassDB, trebleDB: settings.trebleDB, boostDB: settings.boostDB)
        if room != settings.room {
            reverb.apply(settings.room)
            room = settings.room
        }
        reverb.wet.value = settings.reverbPercent
        mixer.masterVolume.value = settings.volume
    }

    /// Frames the chain delays its sources by (the limiter's look-ahead), once compiled.
    public var latencyFrames: Int { limiter.latencyFrames }

    /// Compiles the chain for `spec`.
    public func compile(spec: ProcessSpec) throws -> RenderPlan { try graph.compile(spec: spec) }
}
