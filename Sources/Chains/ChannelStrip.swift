import DSP
import Engine
import SpeechProcessing

/// One mono channel strip of the live chain, as on a small PA mixer:
///
///     capture channel(s) → pick/sum → input gain → meter → high-pass → [voice processing]
///                        → noise gate → compressor → bass → treble → boost → (pan, mute, send: the bus)
///
/// Its pan, mute and reverb send live on the bus mixers (`LiveChain`), which
/// ramp them over 20 ms. The gate and the compressor are always in the graph,
/// switched by an atomic, so turning them on or off while live is a parameter
/// change. Voice processing (`VoiceProcessingNode`) is in the strip only when its node was
/// passed in.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class ChannelStrip {
    /// The capture channels this strip reads, 1-based, as built (they cannot change live).
    public let channels: [Int]
    public let pick: ChannelPickNode
    public let inputGain: GainNode
    /// After the input gain: what the strip gets from its channel(s).
    public let meter: MeterNode
    public let highPass: BiquadNode
    /// Noise suppression and gain control, when the strip was built with it.
    public let voiceProcessor: VoiceProcessingNode?
    public let noiseGate: NoiseGateNode
    public let compressor: CompressorNode
    /// Bass, treble and boost.
    public let tone: ToneControls

    /// - Parameters:
    ///   - number: the strip's number from 1, for the nodes' names.
    ///   - settings: its controls; `settings.channels` are fixed here.
    ///   - voiceProcessor: placed after the high-pass, or nil for none.
    public init(number: Int, settings: StripSettings, voiceProcessor: VoiceProcessingNode?) {
        let prefix = "strip \(number) "
        channels = settings.channels
        pick = ChannelPickNode(name: prefix + "in " + settings.channels.map(String.init).joined(separator: "+"),
                               channels: settings.channels.map { $0 - 1 })
        inputGain = GainNode(name: prefix + "gain", gainDB: settings.gainDB, range: StripSettings.gainRange)
        meter = MeterNode(name: prefix + "meter")
        highPass = BiquadNode(name: prefix + "high-pass", kind: .highPass, frequency: settings.highPassHz)
        self.voiceProcessor = voiceProcessor
        noiseGate = NoiseGateNode(thresholdDB: settings.gateThresholdDB, isOn: settings.noiseGate)
        compressor = CompressorNode(makeupDB: settings.compressorMakeupDB, isOn: settings.compressor)
        tone = ToneControls(namePrefix: prefix)
        apply(settings)
    }

    /// The nodes in signal order, the pick first and the boost last.
    public var nodes: [AudioNode] {
        [pick, inputGain, meter, highPass] + (voiceProcessor.map { [$0] } ?? []) + [noiseGate, compressor] + tone.nodes
    }

    /// Sets the strip's own controls (not pan, mute or send: those are the bus's);
    /// the nodes smooth the change. A voice processing request without the node is ignored.
    public func apply(_ settings: StripSettings) {
        inputGain.gainDB.value = settings.gainDB
        highPass.frequency.value = settings.highPassHz
        voiceProcessor?.isOn = settings.voiceProcessing
        noiseGate.isOn = settings.noiseGate
        noiseGate.thresholdDB.value = settings.gateThresholdDB
        compressor.isOn = settings.compressor
        compressor.makeupDB.value = settings.compressorMakeupDB
        tone.apply(bassDB: settings.bassDB, trebleDB: settings.trebleDB, boostDB: settings.boostDB)
    }

    /// Frames the strip delays its input by (the voice processor's), once compiled.
    public var latencyFrames: Int { voiceProcessor?.latencyFrames ?? 0 }
}
