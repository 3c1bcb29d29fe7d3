import DSP
import Engine
import FeedbackGuard
#if canImport(Glibc)
import Glibc
#endif
import Loudness
import SpeechProcessing

/// The live chain as a graph: channel strips summed onto a stereo bus, a
/// reverb on a send, then the bus's safety stages.
///
///     capture ─┬→ strip 1 (pick → gain → meter → high-pass → [voice processing] → gate
///              │           → compressor → bass → treble → boost) ─┬→ bus mixer, bus 1 (pan, mute)
///              │                                                  └→ send mixer, bus 1 (send level, mute)
///              └→ strip 2 … the same, on bus 2 of each mixer
///     send mixer (mono) → reverb (wet only: the return) → bus mixer, last bus
///     bus mixer (stereo) → howl guard → master (volume; down-mix for a mono device)
///                        → limiter (−1 dBFS) → output meter → loudness tap → output
///
/// On a stage (`parts` not empty) the guarded mic bus meets the parts
/// (keyboard, kit, song, backing track) on the `StageBus` before the master:
/// the guard sees the mic and its reverb only, never an instrument.
///
/// - **Pan** is the mixer's constant-power law (left = cos θ, right = sin θ,
///   θ = (pan + 1)·π/4), with every strip's bus gain at +3.01 dB so that a
///   centred strip reaches both speakers at unity: a voice on capture channel 1
///   comes out equal left and right, as loud as it went in. Hard left is +3 dB
///   on one side.
/// - **Mute**: a strip's own mute, and the mic switch (every strip at once),
///   act on the strip's bus and send gains, which ramp over 20 ms; the reverb's
///   tail rings out.
/// - **Reverb send**: each strip's send level is linear (50 % sends the strip at
///   −6 dB) into one mono send bus; the reverb (`ReverbNode` with `passesDry`
///   false) returns only its tail, added to the bus at unity. While every send
///   is at 0 the return is 0 and the tank idles (no CPU); turning the last
///   send down ends the tail over the return's 30 ms ramp.
/// - **Loudness**: the loudness tap only hands the output to the control
///   thread through a ring (`ShortTermLoudness` measures it there).
/// - **Latency**: the strips' voice processors (all strips carry one when any
///   does, so the strips stay aligned) and the limiter's look-ahead.
///
/// The same chain runs under every driver: the ALSA duplex driver live, the
/// file driver offline, the benchmark and the tests. The strips and the
/// channels they read are fixed when the chain is built; every control
/// (`apply`) changes live.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class LiveChain {
    /// A centred strip's bus gain, 20·log10(√2) dB: the pan law's −3 dB at centre made up.
    public static let centreMakeUpDB: Float = 10 * log10f(2)

    public let graph: AudioGraph
    public let strips: [ChannelStrip]
    /// Each strip's last node in the graph (its boost): what the strip sends to the bus, before pan and mute.
    public private(set) var stripOutputs: [AudioGraph.NodeID] = []
    /// One mono bus per strip: the reverb sends.
    public let sendMixer: MixerNode
    /// The bus reverb, a send effect: its output is the return.
    public let reverb: ReverbNode
    /// Bus i (0-based) is strip i + 1; the last bus, `returnBus`, is the reverb return.
    public let busMixer: MixerNode
    public var returnBus: Int { strips.count }
    /// Feedback protection on the stereo bus (notches on howling frequencies);
    /// bypassed when `LiveSettings.howlGuard` is off. Adds no latency.
    public let howlGuard: HowlGuardNode
    /// Master volume, and the down-mix for a mono playback device.
    public let master: MixerNode
    public let limiter: LimiterNode
    public let outputMeter: MeterNode
    /// Hands the output to the control thread for short-term loudness (EBU R 128).
    public let loudnessTap: LoudnessTap
    /// The stage's parts after the guard; nil without parts (the mic alone).
    public let stage: StageBus?
    /// Each strip's and part's own output (`addDirectOuts`), nil without.
    public private(set) var directOuts: DirectOuts?
    /// The settings last applied (strip channels as built).
    public private(set) var settings: LiveSettings
    /// The room the reverb was last set to; a preset change resets size, damping and width.
    public private(set) var room: RoomPreset
    /// The mic switch: off mutes every strip (20 ms ramp) over their own mutes.
    public var micOn = true {
        didSet { applyMutes() }
    }

    /// - Parameters:
    ///   - inputChannelCount: channels the driver captures.
    ///   - settings: the strips and the bus; every strip's channels must be among the input's.
    ///   - outputChannelCount: 2, or 1 for a mono playback device (the bus is down-mixed).
    ///   - limiterLookaheadMilliseconds: the limiter's look-ahead, which is also
    ///     its latency: 1 ms by default; 0 for the live mic, where every frame of
    ///     delay counts and an instant attack is the better trade.
    ///   - voiceProcessing: whether the strips carry voice processing (it adds
    ///     10.7 ms at 48 kHz, so it is not carried switched off); nil: when a strip's
    ///     settings ask for it.
    ///   - parts: the stage's other sources, each on a strip after the howl guard.
    /// - Throws: `ChainError.missingInputChannel` for a strip reading a channel
    ///   the input does not have; `ParameterError` for a value out of its range.
    public init(inputChannelCount: Int, settings: LiveSettings = LiveSettings(), outputChannelCount: Int = 2,
                limiterLookaheadMilliseconds: Float = 1, voiceProcessing: Bool? = nil, parts: [StagePart] = []) throws {
        try settings.validate()
        precondition(!settings.strips.isEmpty, "a live chain needs at least one strip")
        for (index, strip) in settings.strips.enumerated() {
            if let missing = strip.channels.first(where: { $0 < 1 || $0 > inputChannelCount }) {
                throw ChainError.missingInputChannel(strip: index + 1, channel: missing, inputChannelCount: inputChannelCount)
            }
        }
        self.settings = settings
        room = settings.room
        let carryVoiceProcessing = voiceProcessing ?? settings.strips.contains { $0.voiceProcessing }
        graph = AudioGraph(inputChannelCount: inputChannelCount)
        strips = settings.strips.enumerated().map { index, strip in
            ChannelStrip(number: index + 1, settings: strip, voiceProcessor: carryVoiceProcessing ? VoiceProcessingNode() : nil)
        }
        sendMixer = MixerNode(name: "send mixer", inputCount: strips.count, outputChannelCount: 1)
        reverb = ReverbNode(name: "reverb", preset: settings.room, passesDry: false)
        busMixer = MixerNode(name: "bus mixer", inputCount: strips.count + 1, outputChannelCount: 2)
        howlGuard = HowlGuardNode()
        master = MixerNode(name: "master", inputCount: 1, outputChannelCount: max(1, min(2, outputChannelCount)))
        limiter = LimiterNode(name: "limiter", ceilingDB: -1, lookaheadMilliseconds: limiterLookaheadMilliseconds)
        outputMeter = MeterNode(name: "output meter")
        loudnessTap = LoudnessTap()
        stage = parts.isEmpty ? nil : StageBus(parts: parts, room: settings.room)

        let busID = graph.add(busMixer)
        let sendID = graph.add(sendMixer)
        var lastNodes: [AudioGraph.NodeID] = []
        for (index, strip) in strips.enumerated() {
            let ids = strip.nodes.map { graph.add($0) }
            try graph.connect(graph.input, to: ids[0])
            for (a, b) in zip(ids, ids.dropFirst()) { try graph.connect(a, to: b) }
            try graph.connect(ids.last!, to: busID, bus: index)
            try graph.connect(ids.last!, to: sendID, bus: index)
            lastNodes.append(ids.last!)
        }
        stripOutputs = lastNodes
        let reverbID = graph.add(reverb)
        try graph.connect(sendID, to: reverbID)
        try graph.connect(reverbID, to: busID, bus: returnBus)
        let guardID = graph.add(howlGuard), masterID = graph.add(master)
        let limiterID = graph.add(limiter), meterID = graph.add(outputMeter), loudnessID = graph.add(loudnessTap)
        let micOutput = try graph.chain(busID, guardID)
        let masterInput = try stage?.build(in: graph, micOutput: micOutput) ?? micOutput
        graph.output = try graph.chain(masterInput, masterID, limiterID, meterID, loudnessID)
        apply(settings)
    }

    /// Sets every control from `settings`; the nodes smooth the change. The
    /// strips are matched by position; their channels, and strips beyond the
    /// chain's, are what the chain was built with and are left as they are.
    /// Values are clamped to their ranges (validate first for an error instead).
    public func apply(_ settings: LiveSettings) {
        var kept = settings
        kept.strips = strips.indices.map { i in
            var strip = i < settings.strips.count ? settings.strips[i] : self.settings.strips[i]
            strip.channels = strips[i].channels
            return strip
        }
        self.settings = kept
        for (strip, values) in zip(strips, kept.strips) {
            strip.apply(values)
        }
        for (i, values) in kept.strips.enumerated() {
            busMixer.inputs[i].gainDB.value = Self.centreMakeUpDB
            busMixer.inputs[i].pan.value = values.pan
            sendMixer.inputs[i].gainDB.value = Self.sendGainDB(percent: values.reverbSendPercent)
        }
        busMixer.inputs[returnBus].gainDB.value = 0
        applyMutes()
        stage?.apply(kept.parts, room: kept.room, roomChanged: room != kept.room)
        if room != kept.room {
            reverb.apply(kept.room)
            room = kept.room
        }
        reverb.wet.value = kept.strips.contains { $0.reverbSendPercent > 0 } ? 100 : 0
        howlGuard.isEnabled = kept.howlGuard
        master.masterVolume.value = kept.volume
    }

    /// The send mixer's gain for a send level: linear in percent, the fader's
    /// bottom (silence) at 0.
    public static func sendGainDB(percent: Float) -> Float {
        percent > 0 ? max(MixerInput.silenceDB, 20 * log10f(percent / 100)) : MixerInput.silenceDB
    }

    /// Each strip's bus and send gains muted when the strip is, or the mic is off;
    /// the direct outs with them, and each part's with its part.
    private func applyMutes() {
        for (i, values) in settings.strips.enumerated() {
            let muted = values.mute || !micOn
            busMixer.inputs[i].isMuted = muted
            sendMixer.inputs[i].isMuted = muted
        }
        directOuts?.apply(stripMutes: settings.strips.map { $0.mute || !micOn },
                          partMutes: stage?.parts.map { settings.parts[$0.name]?.mute ?? false } ?? [])
    }

    /// Frames the chain delays its input by (the voice processors' and the
    /// limiter's look-ahead; the howl guard adds none), once compiled.
    public var latencyFrames: Int { (strips.map(\.latencyFrames).max() ?? 0) + limiter.latencyFrames }

    /// Frames from a strip's output, or a stage part's fader, to the chain's
    /// output at `sampleRate` (the limiter's look-ahead and true peak): known
    /// before the chain is compiled, for what must line up with its output.
    public func busLatencyFrames(sampleRate: Double) -> Int { busLatency(ProcessSpec(sampleRate: sampleRate, maximumBlockSize: 1)) }

    /// `busLatencyFrames` as a function of the format that holds nothing of
    /// the chain (a node of its graph may keep it).
    public var busLatency: (ProcessSpec) -> Int {
        let lookahead = limiter.lookaheadMilliseconds
        return { LimiterNode.latencyFrames(lookaheadMilliseconds: lookahead, sampleRate: $0.sampleRate) }
    }

    /// Frames from the capture input to the chain's output for a format
    /// (`latencyFrames` once compiled): the strips' voice processors and the
    /// bus's; a function that holds nothing of the chain.
    public var inputLatency: (ProcessSpec) -> Int {
        let voice = strips.contains { $0.voiceProcessor != nil }, bus = busLatency
        return { (voice ? VoiceProcessingNode.windowLength(sampleRate: $0.sampleRate) : 0) + bus($0) }
    }

    /// Adds outputs of their own for each strip and part (`DirectOuts`)
    /// after the graph's output (the recording tap, when a take records), which
    /// becomes 2 + `names.count` channels: the main pair, then the direct outs.
    /// - Returns: the direct outs' names, one per channel after the main two.
    /// - Throws: `GraphError` (no output yet, a wiring mistake).
    /// - Realtime: unsafe. Control thread, before compiling.
    public func addDirectOuts() throws -> [String] {
        precondition(directOuts == nil, "direct outs are added once")
        guard let main = graph.output else { throw GraphError.noOutput }
        let outs = DirectOuts(stripCount: strips.count, parts: stage?.parts.map(\.name) ?? [])
        graph.output = try outs.build(in: graph, mainOutput: main, stripOutputs: stripOutputs,
                                      partOutputs: stage?.partOutputs ?? [], latency: busLatency)
        directOuts = outs
        applyMutes()
        return outs.names
    }

    /// Compiles the chain for `spec`.
    public func compile(spec: ProcessSpec) throws -> RenderPlan { try graph.compile(spec: spec) }
}
