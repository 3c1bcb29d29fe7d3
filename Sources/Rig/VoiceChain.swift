import DSP
import Engine
import FeedbackGuard
import SpeechProcessing

/// The live voice chain as a graph:
///
///     input → input meter → high-pass → [voice processing] → noise gate → compressor
///           → bass → treble → boost → reverb
///           → howl guard → mixer (bus 0; master volume) → limiter → output meter → output
///
/// The noise gate and the compressor are always in the graph and switched by
/// an atomic (off, each costs a copy), so turning them on or off while live is
/// a parameter change, not a rebuild. Voice processing (speexdsp, which lives
/// in SpeechProcessing) is in the graph only when its node was passed in.
///
/// The same chain runs under every driver: the ALSA duplex driver live, the
/// file driver offline, the benchmark and the tests. The mixer has spare
/// buses for instruments to join later.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class VoiceChain {
    public static let bassFrequency: Float = 150
    public static let trebleFrequency: Float = 6000

    public let graph: AudioGraph
    public let inputMeter: MeterNode
    public let highPass: BiquadNode
    /// speexdsp's noise suppression and gain control, when the chain was built with it.
    public let voiceProcessor: VoiceProcessingNode?
    public let noiseGate: NoiseGateNode
    public let compressor: CompressorNode
    /// Bass, treble, boost and reverb.
    public let tone: ToneControls
    public var bass: BiquadNode { tone.bass }
    public var treble: BiquadNode { tone.treble }
    public var boost: GainNode { tone.boost }
    public var reverb: ReverbNode { tone.reverb }
    public let mixer: MixerNode
    public let limiter: LimiterNode
    public let outputMeter: MeterNode
    /// The mixer bus the voice feeds.
    public let voiceBus = 0
    /// The room the reverb was last set to.
    public var room: RoomPreset { tone.room }
    /// Feedback protection (notches on howling frequencies), after the tone stage;
    /// bypassed when `VoiceSettings.howlGuard` is off. Adds no latency.
    public let howlGuard: HowlGuardNode

    /// - Parameters:
    ///   - inputChannelCount: channels the driver captures (1 for a mic).
    ///   - mixerInputs: mixer buses, the voice's included.
    ///   - limiterLookaheadMilliseconds: the limiter's look-ahead, which is also
    ///     its latency: 1 ms by default; 0 for the live mic, where every frame of
    ///     delay counts and an instant attack is the better trade.
    ///   - voiceProcessor: a voice processing node (SpeechProcessing's
    ///     `VoiceProcessingNode`) placed after the high-pass, or nil for none.
    ///     `settings.voiceProcessing` switches it.
    public init(inputChannelCount: Int, settings: VoiceSettings = VoiceSettings(), mixerInputs: Int = 1,
                limiterLookaheadMilliseconds: Float = 1, voiceProcessor: VoiceProcessingNode? = nil) throws {
        try settings.validate()
        graph = AudioGraph(inputChannelCount: inputChannelCount)
        inputMeter = MeterNode(name: "input meter")
        highPass = BiquadNode(name: "high-pass", kind: .highPass, frequency: settings.highPassHz)
        self.voiceProcessor = voiceProcessor
        noiseGate = NoiseGateNode(thresholdDB: settings.gateThresholdDB, isOn: settings.noiseGate)
        compressor = CompressorNode(makeupDB: settings.compressorMakeupDB, isOn: settings.compressor)
        tone = ToneControls(settings: settings)
        howlGuard = HowlGuardNode()
        mixer = MixerNode(name: "mixer", inputCount: max(1, mixerInputs), outputChannelCount: 2)
        limiter = LimiterNode(name: "limiter", ceilingDB: -1, lookaheadMilliseconds: limiterLookaheadMilliseconds)
        outputMeter = MeterNode(name: "output meter")

        let cleanUp: [AudioNode] = (voiceProcessor.map { [$0] } ?? []) + [noiseGate, compressor]
        let ids = ([inputMeter, highPass] + cleanUp + tone.nodes + [howlGuard]).map { graph.add($0) }
        try graph.connect(graph.input, to: ids[0])
        for (a, b) in zip(ids, ids.dropFirst()) { try graph.connect(a, to: b) }
        let mixerID = graph.add(mixer)
        try graph.connect(ids.last!, to: mixerID, bus: voiceBus)
        let limiterID = graph.add(limiter)
        let meterID = graph.add(outputMeter)
        try graph.connect(mixerID, to: limiterID)
        try graph.connect(limiterID, to: meterID)
        graph.output = meterID
        apply(settings)
    }

    /// Sets every control from `settings`; the nodes smooth the change.
    /// Values are clamped to their ranges (validate first for an error instead).
    public func apply(_ settings: VoiceSettings) {
        highPass.frequency.value = settings.highPassHz
        voiceProcessor?.isOn = settings.voiceProcessing
        noiseGate.isOn = settings.noiseGate
        noiseGate.thresholdDB.value = settings.gateThresholdDB
        compressor.isOn = settings.compressor
        compressor.makeupDB.value = settings.compressorMakeupDB
        tone.apply(settings)
        howlGuard.isEnabled = settings.howlGuard
        mixer.masterVolume.value = settings.volume
    }

    /// Frames the chain delays its input by (the voice processor's two frames and
    /// the limiter's look-ahead; the howl guard adds none), once compiled.
    public var latencyFrames: Int { (voiceProcessor?.latencyFrames ?? 0) + limiter.latencyFrames }

    /// Compiles the chain for `spec`.
    public func compile(spec: ProcessSpec) throws -> RenderPlan { try graph.compile(spec: spec) }
}
