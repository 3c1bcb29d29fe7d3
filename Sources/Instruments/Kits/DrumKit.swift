#if canImport(Glibc)
import Glibc
#endif

/// A loaded drum kit: every sample decoded once at the engine rate, the pads,
/// and the pool of one-shot voices that plays them.
///
/// A kit is built off the audio thread (`DrumKit.load(manifestAt:sampleRate:)`),
/// handed to a `DrumKitNode` wait-free, played by the audio thread, and handed
/// back to be freed on the control thread when another kit replaces it. Its
/// voices belong to it, so a new kit comes with its own pool and the old one
/// fades out its own voices while the new one starts.
///
/// Everything the audio thread touches sits in raw storage allocated here, at
/// init: pads, layers, the sample table, two voice slots per pad voice (the
/// voice and a fade-out slot for when it is stolen), and lookup tables from
/// note to pad and from velocity to layer. Playing a kit (`DrumKit+Playing`)
/// only reads and writes that storage.
public final class DrumKit: @unchecked Sendable {
    // MARK: Control thread only (immutable after init)
    public let name: String
    /// The manifest the kit was loaded from.
    public let manifestPath: String
    /// The rate the samples were converted to: the node's engine rate.
    public let sampleRate: Double
    /// The pads that loaded, in manifest order.
    public let pads: [DrumKitPadInfo]
    /// Samples that failed, and what the kit does without them.
    public let problems: [DrumKitProblem]
    /// Bytes of decoded sample memory.
    public let sampleMemoryBytes: Int
    /// Owns the sample memory the audio thread reads through `sampleTable`.
    private let sampleBuffers: [DrumSampleBuffer]

    // MARK: Control thread only
    /// The node the kit was installed in: a kit's voices are one node's state,
    /// so it never plays in two nodes (load it twice for that).
    var owner: ObjectIdentifier?

    // MARK: Audio thread only (storage fixed at init)
    let padTable: UnsafeMutablePointer<DrumPad>
    let padCount: Int
    let layerTable: UnsafeMutablePointer<DrumLayer>
    let layerCount: Int
    let sampleTable: UnsafeMutablePointer<DrumSample>
    /// Sample-table indices, layer by layer: a layer plays
    /// `layerRuns[firstSample ..< firstSample + sampleCount]` (a sample shared
    /// by two layers is decoded once and listed in both runs).
    let layerRuns: UnsafeMutablePointer<Int32>
    /// Voice slots, pad after pad (`DrumPad.firstVoice`).
    let voices: UnsafeMutablePointer<DrumVoice>
    /// Fade-out slots, the same layout: a stolen voice moves here to fade
    /// while the new hit starts in its slot.
    let tails: UnsafeMutablePointer<DrumVoice>
    let voiceCount: Int
    /// Note → pad index, or −1. 128 entries.
    let padForNote: UnsafeMutablePointer<Int16>
    /// Pad × 128 + velocity → layer index (into `layerTable`), or −1.
    let layerForVelocity: UnsafeMutablePointer<Int32>
    let stealFadeFrames: Int
    let chokeFadeFrames: Int
    let silenceFadeFrames: Int
    let swapFadeFrames: Int
    /// The order of the next hit, for finding a pad's oldest voice.
    var nextSerial: UInt64 = 0

    /// Lays out `plans` over the decoded `sampleBuffers`.
    /// - Realtime: unsafe (allocates). Loader or control thread.
    init(name: String, manifestPath: String, sampleRate: Double, sampleBuffers: [DrumSampleBuffer],
         plans: [DrumPadPlan], problems: [DrumKitProblem]) {
        self.name = name
        self.manifestPath = manifestPath
        self.sampleRate = sampleRate
        self.sampleBuffers = sampleBuffers
        self.problems = problems
        sampleMemoryBytes = sampleBuffers.reduce(0) { $0 + $1.byteCount }
        stealFadeFrames = DrumFade.frames(DrumFade.stealSeconds, sampleRate: sampleRate)
        chokeFadeFrames = DrumFade.frames(DrumFade.chokeSeconds, sampleRate: sampleRate)
        silenceFadeFrames = DrumFade.frames(DrumFade.silenceSeconds, sampleRate: sampleRate)
        swapFadeFrames = DrumFade.frames(DrumFade.kitSwapSeconds, sampleRate: sampleRate)

        let samples = UnsafeMutablePointer<DrumSample>.allocate(capacity: max(1, sampleBuffers.count))
        for (index, buffer) in sampleBuffers.enumerated() { (samples + index).initialize(to: buffer.view) }
        sampleTable = samples

        // Choke groups by name → small numbers, 0 meaning none.
        var groupNumbers: [String: Int] = [:]
        for plan in plans {
            if let group = plan.chokeGroup, groupNumbers[group] == nil { groupNumbers[group] = groupNumbers.count + 1 }
        }

        let padTotal = plans.count
        let layerTotal = plans.reduce(0) { $0 + $1.layers.count }
        let voiceTotal = plans.reduce(0) { $0 + $1.voiceCount }
        let runTotal = plans.reduce(0) { $0 + $1.layers.reduce(0) { $0 + $1.sampleIndices.count } }
        let padStorage = UnsafeMutablePointer<DrumPad>.allocate(capacity: max(1, padTotal))
        let layerStorage = UnsafeMutablePointer<DrumLayer>.allocate(capacity: max(1, layerTotal))
        let runStorage = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, runTotal))
        let noteStorage = UnsafeMutablePointer<Int16>.allocate(capacity: 128)
        noteStorage.initialize(repeating: -1, count: 128)
        let velocityStorage = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, padTotal) * 128)
        velocityStorage.initialize(repeating: -1, count: max(1, padTotal) * 128)

        var info: [DrumKitPadInfo] = []
        var firstVoice = 0, firstLayer = 0, run = 0
        for (padIndex, plan) in plans.enumerated() {
            // Constant-power pan: θ = (pan + 1)·π/4, left cos θ, right sin θ (−3 dB each at the centre).
            let angle = (plan.pan + 1) * Double.pi / 4
            let gain = plan.gainDB <= -144 ? 0 : pow(10, plan.gainDB / 20)
            (padStorage + padIndex).initialize(to: DrumPad(
                note: plan.note, gainLeft: Float(gain * cos(angle)), gainRight: Float(gain * sin(angle)),
                chokeGroup: plan.chokeGroup.flatMap { groupNumbers[$0] } ?? 0, stopsOnNoteOff: plan.stopsOnNoteOff,
                firstVoice: firstVoice, voiceCount: plan.voiceCount))
            for (offset, layer) in plan.layers.enumerated() {
                (layerStorage + firstLayer + offset).initialize(to: DrumLayer(firstSample: run, sampleCount: layer.sampleIndices.count,
                                                                                   gain: Float(layer.gain)))
                for sample in layer.sampleIndices {
                    (runStorage + run).initialize(to: Int32(sample))
                    run += 1
                }
            }
            for (velocity, layer) in plan.layerTable().enumerated() where layer >= 0 {
                velocityStorage[padIndex * 128 + velocity] = Int32(firstLayer + layer)
            }
            for note in plan.notes { noteStorage[Int(note)] = Int16(padIndex) }
            info.append(DrumKitPadInfo(note: plan.note, notes: plan.notes, name: plan.name, chokeGroup: plan.chokeGroup,
                                       gainDB: plan.gainDB, pan: plan.pan, voiceCount: plan.voiceCount,
                                       layerCount: plan.layers.count,
                                       sampleCount: plan.layers.reduce(0) { $0 + $1.sampleIndices.count }))
            firstVoice += plan.voiceCount
            firstLayer += plan.layers.count
        }
        pads = info
        padTable = padStorage
        padCount = padTotal
        layerTable = layerStorage
        layerCount = layerTotal
        layerRuns = runStorage
        padForNote = noteStorage
        layerForVelocity = velocityStorage
        voiceCount = voiceTotal
        voices = .allocate(capacity: max(1, voiceTotal))
        voices.initialize(repeating: DrumVoice(), count: max(1, voiceTotal))
        tails = .allocate(capacity: max(1, voiceTotal))
        tails.initialize(repeating: DrumVoice(), count: max(1, voiceTotal))
    }

    deinit {
        padTable.deallocate()
        layerTable.deallocate()
        sampleTable.deallocate()
        voices.deallocate()
        tails.deallocate()
        padForNote.deallocate()
        layerForVelocity.deallocate()
        layerRuns.deallocate()
    }

    /// The pad that `note` plays, if any.
    public func pad(forNote note: UInt8) -> DrumKitPadInfo? {
        let index = Int(padForNote[Int(note & 0x7F)])
        return index >= 0 ? pads[index] : nil
    }

    /// Every note that plays a pad (a pad's own note and the notes mapped to it).
    public var padNotes: MIDINoteSet {
        MIDINoteSet(notes: (0..<128).filter { padForNote[$0] >= 0 })
    }
}
