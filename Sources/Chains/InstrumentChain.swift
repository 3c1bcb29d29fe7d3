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
/// A source with sends (the sampler: dry 0–1, reverb send 2–3, chorus send
/// 4–5) also feeds two return buses, as on a mixing desk:
///
///     sampler ch 2–3 → send reverb (wet only, the `--room` room) ─→ mixer
///     sampler ch 4–5 → chorus (wet only) ────────────────────────→ mixer
///
/// The insert reverb after the tone controls stays the master reverb (`--reverb`).
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
    /// The reverb the song's CC 91 sends feed, and the chorus of its CC 93;
    /// nil without a source with sends.
    public let sendReverb: ReverbNode?
    public let chorus: ChorusNode?

    /// - Parameters:
    ///   - sources: instrument nodes, one mixer bus each, in order.
    ///   - settings: tone, reverb and volume (the high-pass is a mic control and unused here).
    ///   - limiterLookaheadMilliseconds: look-ahead and latency of the output limiter.
    ///   - sendSource: one of `sources` whose channels 2–3 and 4–5 are reverb and chorus sends.
    public init(sources: [AudioNode], settings: VoiceSettings = VoiceSettings(), limiterLookaheadMilliseconds: Float = 1,
                sendSource: AudioNode? = nil) throws {
        precondition(!sources.isEmpty, "an instrument chain needs at least one source")
        try settings.validate()
        graph = AudioGraph(inputChannelCount: 0)
        self.sources = sources
        mixer = MixerNode(name: "mixer", inputCount: sources.count + (sendSource == nil ? 0 : 2), outputChannelCount: 2)
        tone = ToneControls()
        reverb = ReverbNode(name: "reverb", preset: settings.room)
        room = settings.room
        limiter = LimiterNode(name: "limiter", ceilingDB: -1, lookaheadMilliseconds: limiterLookaheadMilliseconds)
        outputMeter = MeterNode(name: "output meter")
        let mixerID = graph.add(mixer)
        var sendSourceID: AudioGraph.NodeID?
        for (bus, source) in sources.enumerated() {
            let id = graph.add(source)
            if source === sendSource { sendSourceID = id }
            try graph.connect(id, to: mixerID, bus: bus)
        }
        if let sendSourceID {
            let reverb = ReverbNode(name: "send reverb", preset: settings.room, passesDry: false)
            reverb.wet.value = 100
            let chorus = ChorusNode(name: "chorus")
            for (offset, (channel, effect)) in [(2, reverb as AudioNode), (4, chorus)].enumerated() {
                let pair = graph.add(ChannelPairNode(name: "\(effect.name) send", left: channel, right: channel + 1))
                try graph.connect(sendSourceID, to: pair)
                let effectID = graph.add(effect)
                try graph.connect(pair, to: effectID)
                try graph.connect(effectID, to: mixerID, bus: sources.count + offset)
            }
            sendReverb = reverb
            self.chorus = chorus
        } else {
            sendReverb = nil
            chorus = nil
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
            sendReverb?.apply(settings.room)
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
