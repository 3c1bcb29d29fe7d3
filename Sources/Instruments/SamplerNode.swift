import Engine
import Sequencing
import Synchronization

/// A source node that plays MIDI through FluidSynth inside Busker's graph:
/// the sampler for pitched instruments (piano, xylophone, any General MIDI
/// program of a SoundFont).
///
/// Each block it walks the scheduler's events in order: renders the synth up
/// to the event's frame, applies the event, goes on. FluidSynth itself renders
/// in 64-frame internal blocks (`SamplerSynth.internalBlockSize`), and an
/// event takes effect at the start of its next internal block, so a note
/// starts on the first 64-frame boundary at or after its frame, counted from
/// the synth's first rendered frame: within 64 frames (1.3 ms at 48 kHz) of
/// sample-accurate, whatever Busker's block size. That is FluidSynth's design
/// and not fought here.
///
/// The synth is built off the audio thread (`load` or `SamplerSynth.init`)
/// and handed over wait-free through an atomic slot: at the start of a block
/// the audio thread takes it, and the synth it replaces fades out over 10 ms
/// (no click from cut voices) and then goes back through a queue, to be
/// deleted on the control thread by `collectRetired()`. Loading a new
/// SoundFont while playing therefore never blocks, allocates or frees on the
/// audio thread.
///
/// Messages on channels outside `channels` are ignored (by default the GM
/// percussion channel, which belongs to the drum kit); system reset always applies.
public final class SamplerNode: AudioNode, @unchecked Sendable {
    /// The scheduler's events, read at every block.
    public let events: MIDIEventBuffer
    /// The channels this sampler answers.
    public let channels: SamplerChannelSet
    /// The rate every synth of this node renders at; the graph's spec must match.
    public let sampleRate: Double
    /// How long a replaced synth fades out, in seconds.
    public static let handoverFadeSeconds = 0.010

    // MARK: Shared (atomics)
    /// Synths on their way to the audio thread, and back to be deleted.
    private let handover = Handover<SamplerSynth>(retiredCapacity: 8)
    private let voiceCount = Atomic<Int>(0)
    private let handovers = Atomic<Int>(0)

    // MARK: Audio thread only
    /// The synth playing (retained), or nil before the first handover.
    private var current: UnsafeMutableRawPointer?
    /// The synth being faded out after a handover (retained), or nil.
    private var fading: UnsafeMutableRawPointer?
    private var fadeRemaining = 0
    private var fadeLength = 1
    /// Scratch for the fading synth, `maximumBlockSize` frames per channel.
    private var scratchLeft: UnsafeMutablePointer<Float>?
    private var scratchRight: UnsafeMutablePointer<Float>?

    /// - Parameters:
    ///   - events: the `MIDIScheduler`'s `events`.
    ///   - sampleRate: the engine's rate; synths are built at it.
    ///   - channels: the MIDI channels to answer; all but GM percussion by default.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(name: String = "sampler", events: MIDIEventBuffer, sampleRate: Double, channels: SamplerChannelSet = .melodic) {
        self.events = events
        self.sampleRate = sampleRate
        self.channels = channels
        super.init(name: name)
    }

    deinit {
        for synth in [current, fading] {
            if let synth { Unmanaged<SamplerSynth>.fromOpaque(synth).release() }
        }
        scratchLeft?.deallocate()
        scratchRight?.deallocate()
    }

    // MARK: Control thread

    /// Builds a synth for `configuration` at this node's rate and hands it to
    /// the audio thread. Slow (it loads the SoundFont); the audio thread keeps
    /// playing the old synth meanwhile.
    /// - Returns: the synth handed over (its `presetName` is for the screen).
    /// - Throws: `SamplerError`; the current synth then stays.
    /// - Realtime: unsafe (allocates, reads files). Control thread (to load on
    ///   another thread, build the `SamplerSynth` there and `install` it here).
    @discardableResult
    public func load(_ configuration: SamplerConfiguration) throws -> SamplerSynth {
        let synth = try SamplerSynth(configuration: configuration, sampleRate: sampleRate, channels: channels)
        install(synth)
        return synth
    }

    /// Hands `synth` to the audio thread, which takes it at its next block. A
    /// synth handed over earlier and not yet taken is released here instead.
    /// - Realtime: unsafe (may free). Control thread: the one thread that also
    ///   calls `collectRetired` (the retired queue has a single consumer).
    public func install(_ synth: SamplerSynth) {
        precondition(synth.sampleRate == sampleRate, "a \(synth.sampleRate) Hz synth in a \(sampleRate) Hz sampler")
        handover.offer(synth)
    }

    /// Deletes the synths the audio thread has retired. Call it regularly
    /// from the control loop.
    /// - Returns: how many were deleted.
    /// - Realtime: unsafe (frees). Control thread.
    @discardableResult
    public func collectRetired() -> Int {
        handover.collectRetired()
    }

    /// Whether a synth handed over is still waiting for the audio thread.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var hasPendingSynth: Bool { handover.hasPending }

    /// Voices sounding at the end of the last block (for the TUI).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var activeVoiceCount: Int { voiceCount.load(ordering: .relaxed) }

    /// Synths the audio thread has taken over since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var handoverCount: Int { handovers.load(ordering: .relaxed) }

    // MARK: Node contract

    public override var inputBusCount: Int { 0 }

    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    /// - Realtime: unsafe (allocates). Control thread.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        precondition(spec.sampleRate == sampleRate, "sampler '\(name)' is built for \(sampleRate) Hz, the graph runs at \(spec.sampleRate) Hz")
        scratchLeft?.deallocate()
        scratchRight?.deallocate()
        scratchLeft = .allocate(capacity: spec.maximumBlockSize)
        scratchRight = .allocate(capacity: spec.maximumBlockSize)
        fadeLength = max(1, Int(Self.handoverFadeSeconds * spec.sampleRate))
    }

    // MARK: Audio thread

    /// Silences the playing synth and ends any fade.
    /// - Thread: audio, control
    /// - Realtime: safe
    public override func reset() {
        if let current { Unmanaged<SamplerSynth>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.silence() } }
        if let fading { Unmanaged<SamplerSynth>.fromOpaque(fading)._withUnsafeGuaranteedRef { $0.silence() } }
        fadeRemaining = 0
    }

    /// Renders the block: the synth up to each event's frame, the event, and so on.
    /// - Thread: audio
    /// - Realtime: safe. No allocation, no locks: atomics, FluidSynth calls on
    ///   a synth only this thread touches, preallocated scratch.
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        adoptPendingSynth()
        let frames = output.frameCount
        guard let current else {
            output.clear()
            voiceCount.store(0, ordering: .relaxed)
            return
        }
        let left = output[0], right = output[min(1, output.channelCount - 1)]
        Unmanaged<SamplerSynth>.fromOpaque(current)._withUnsafeGuaranteedRef { synth in
            // Channels whose preset came in since the last block play what they held.
            synth.resumeWaitingChannels()
            var done = 0
            let count = events.count
            for index in 0..<count {
                let event = events[index]
                let frame = min(max(event.offset, done), frames)
                if frame > done {
                    synth.render(left: left + done, right: right + done, frameCount: frame - done)
                    done = frame
                }
                if let channel = event.message.channel, !channels.contains(channel: channel) { continue }
                synth.apply(event.message)
            }
            if done < frames { synth.render(left: left + done, right: right + done, frameCount: frames - done) }
            var voices = synth.activeVoiceCount
            if fading != nil { voices += mixFadingSynth(into: left, right, frames: frames) }
            voiceCount.store(voices, ordering: .relaxed)
        }
        for c in 2..<max(2, output.channelCount) { output[c].update(from: left, count: frames) }
    }

    /// Takes a synth handed over, if there is one and the previous handover's fade is over.
    /// - Thread: audio
    /// - Realtime: safe
    private func adoptPendingSynth() {
        guard fading == nil, let next = handover.take() else { return }
        if let old = current {
            fading = old
            fadeRemaining = fadeLength
        }
        current = next
        handovers.add(1, ordering: .relaxed)
    }

    /// Adds the fading synth's output, on a linear ramp down, and retires it
    /// when the ramp ends.
    /// - Returns: the fading synth's voice count.
    /// - Thread: audio
    /// - Realtime: safe
    private func mixFadingSynth(into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        guard let fading, let scratchLeft, let scratchRight else { return 0 }
        let voices = Unmanaged<SamplerSynth>.fromOpaque(fading)._withUnsafeGuaranteedRef { synth in
            synth.render(left: scratchLeft, right: scratchRight, frameCount: frames)
            return synth.activeVoiceCount
        }
        let step = 1 / Float(fadeLength)
        var gain = Float(fadeRemaining) * step
        let n = min(frames, fadeRemaining)
        for i in 0..<n {
            gain -= step
            left[i] += scratchLeft[i] * gain
            right[i] += scratchRight[i] * gain
        }
        fadeRemaining -= n
        if fadeRemaining == 0 {
            handover.retire(fading)
            self.fading = nil
        }
        return voices
    }
}
