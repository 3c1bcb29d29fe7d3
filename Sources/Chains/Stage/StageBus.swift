import DSP
import Engine
import Foundation

/// Where the stage's parts meet the mic: after the mic's own bus and its
/// howl guard, so that a held chord or a backing track is never notched.
///
///     mic bus → howl guard ───────────────────────────→ stage mixer, bus 0
///     part source → [dry pair] → part meter ─┬────────→ stage mixer, bus 1 … (fader, pan, mute)
///                                            └→ part send mixer (send level + fader)
///     sampler ch 2–3 (CC 91) ────────────────→ part send mixer (the fader)
///     part send mixer (stereo) → parts' reverb (wet only) → stage mixer
///     sampler ch 4–5 (CC 93) → chorus sends (the fader) → chorus (wet only) → stage mixer
///     stage mixer → (the live chain's master, limiter, meter)
///
/// Sends are post-fader, as on a mixing desk: a part's fader moves its
/// reverb and chorus with it. The parts' reverb is the mic's room, a tank of its own: the mic's reverb
/// stays on the guarded side, where its tail is part of the loop the guard watches.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class StageBus {
    public let parts: [StagePart]
    /// Bus 0 the guarded mic bus, bus 1 + i part i, then the reverb return and the chorus return.
    public let mixer: MixerNode
    /// One stereo bus per part (its send level), then one per part with sends (its CC 91 pair, at unity).
    public let sendMixer: MixerNode
    public let reverb: ReverbNode
    /// The chorus of the parts' CC 93 sends; nil when no part has sends.
    public let chorus: ChorusNode?
    /// The CC 93 pairs of the parts with sends, summed at unity (muted with their part) into the chorus.
    public let chorusSendMixer: MixerNode?
    /// Each part's meter in the graph: what the stem taps, once built.
    public private(set) var partOutputs: [AudioGraph.NodeID] = []

    public var reverbReturnBus: Int { parts.count + 1 }
    public var chorusReturnBus: Int { parts.count + 2 }

    /// - Realtime: unsafe (allocates). Control thread.
    public init(parts: [StagePart], room: RoomPreset) {
        precondition(!parts.isEmpty, "a stage bus has at least one part")
        self.parts = parts
        let sendingParts = parts.filter(\.hasSends).count
        mixer = MixerNode(name: "stage mixer", inputCount: parts.count + (sendingParts > 0 ? 3 : 2), outputChannelCount: 2)
        sendMixer = MixerNode(name: "part send mixer", inputCount: parts.count + sendingParts, outputChannelCount: 2)
        reverb = ReverbNode(name: "part reverb", preset: room, passesDry: false)
        reverb.wet.value = 100
        chorus = sendingParts > 0 ? ChorusNode(name: "part chorus") : nil
        chorusSendMixer = sendingParts > 0 ? MixerNode(name: "chorus sends", inputCount: sendingParts, outputChannelCount: 2) : nil
    }

    /// Adds the parts, the sends and the returns to `graph`, with `micOutput`
    /// (the guarded mic bus) on bus 0.
    /// - Returns: the stage mixer's node, for the master to follow.
    /// - Throws: `GraphError` (a wiring mistake).
    public func build(in graph: AudioGraph, micOutput: AudioGraph.NodeID) throws -> AudioGraph.NodeID {
        let mixerID = graph.add(mixer), sendID = graph.add(sendMixer)
        try graph.connect(micOutput, to: mixerID, bus: 0)
        var sendBus = parts.count
        var chorusInputs: [AudioGraph.NodeID] = []
        for (index, part) in parts.enumerated() {
            let sourceID = graph.add(part.source)
            var dry = sourceID
            if part.hasSends {
                dry = try pair(of: sourceID, left: 0, in: graph)
                try graph.connect(try pair(of: sourceID, left: 2, in: graph), to: sendID, bus: sendBus)
                sendBus += 1
                chorusInputs.append(try pair(of: sourceID, left: 4, in: graph))
            }
            let meterID = graph.add(part.meter)
            try graph.connect(dry, to: meterID)
            try graph.connect(meterID, to: mixerID, bus: 1 + index)
            try graph.connect(meterID, to: sendID, bus: index)
            partOutputs.append(meterID)
        }
        let reverbID = graph.add(reverb)
        try graph.connect(sendID, to: reverbID)
        try graph.connect(reverbID, to: mixerID, bus: reverbReturnBus)
        if let chorus, let chorusSendMixer {
            let sumID = graph.add(chorusSendMixer)
            for (bus, input) in chorusInputs.enumerated() { try graph.connect(input, to: sumID, bus: bus) }
            let chorusID = graph.add(chorus)
            try graph.connect(sumID, to: chorusID)
            try graph.connect(chorusID, to: mixerID, bus: chorusReturnBus)
        }
        return mixerID
    }

    /// A send after the fader, as on a mixing desk: its gain plus the
    /// fader's, held in the mixer's range (its bottom is silence).
    static func postFader(_ sendDB: Float, level: Float) -> Float {
        sendDB <= MixerInput.silenceDB ? MixerInput.silenceDB : min(12, max(MixerInput.silenceDB, sendDB + level))
    }

    private func pair(of source: AudioGraph.NodeID, left: Int, in graph: AudioGraph) throws -> AudioGraph.NodeID {
        let id = graph.add(ChannelPairNode(name: "pair \(left)-\(left + 1)", left: left, right: left + 1))
        try graph.connect(source, to: id)
        return id
    }

    /// Sets each part's fader, pan, mute (with solo) and send; `micMuted`
    /// mutes the mic's bus 0 (a part soloed mutes it too).
    /// - Parameter settings: by part name; a part not named keeps the defaults.
    public func apply(_ settings: [String: PartSettings], room: RoomPreset, roomChanged: Bool) {
        let anySolo = parts.contains { settings[$0.name]?.solo ?? false }
        mixer.inputs[0].isMuted = anySolo
        for (index, part) in parts.enumerated() {
            let values = settings[part.name] ?? PartSettings()
            let muted = values.mute || (anySolo && !values.solo)
            let strip = mixer.inputs[1 + index]
            strip.gainDB.value = values.levelDB
            strip.pan.value = values.pan
            strip.isMuted = muted
            sendMixer.inputs[index].gainDB.value = Self.postFader(LiveChain.sendGainDB(percent: values.reverbSendPercent),
                                                                  level: values.levelDB)
            sendMixer.inputs[index].isMuted = muted
        }
        // The sampler's own sends (CC 91, CC 93) follow its strip's fader and mute.
        for (index, part) in parts.filter(\.hasSends).enumerated() {
            let values = settings[part.name] ?? PartSettings()
            let muted = values.mute || (anySolo && !values.solo)
            sendMixer.inputs[parts.count + index].gainDB.value = Self.postFader(0, level: values.levelDB)
            sendMixer.inputs[parts.count + index].isMuted = muted
            chorusSendMixer?.inputs[index].gainDB.value = Self.postFader(0, level: values.levelDB)
            chorusSendMixer?.inputs[index].isMuted = muted
        }
        if roomChanged { reverb.apply(room) }
    }
}
