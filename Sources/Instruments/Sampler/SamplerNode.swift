import Engine
import MIDI
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
/// When `channels` takes the percussion channel (index 9), its notes play the
/// SoundFont's percussion (bank 128, the kit the channel's program change
/// selects) only for the notes in `percussionNotes`: the drum kit node plays
/// the others. Controllers and program changes on that channel always apply.
///
/// With `sends`, the node renders six channels: the dry mix (0–1), the
/// reverb send (2–3) and the chorus send (4–5). FluidSynth renders each MIDI
/// channel to its own pair (`SamplerConfiguration.channelOutputs`), and each
/// channel's pair goes into the sends scaled by the channel's last CC 91 and
/// CC 93 (value / 127; General MIDI 2's defaults, 40 and 0, until a song
/// sets them and after a system reset), changing at the event's frame.
public final class SamplerNode: AudioNode, @unchecked Sendable {
    /// The scheduler's events, read at every block.
    public let events: MIDIEventBuffer
    /// The channels this sampler answers.
    public let channels: SamplerChannelSet
    /// Whether the node renders the reverb and chorus sends (six channels).
    public let sends: Bool
    /// CC 91 and CC 93 of a channel until a song sets them (General MIDI 2).
    public static let defaultReverbSend: UInt8 = 40
    public static let defaultChorusSend: UInt8 = 0
    /// The rate every synth of this node renders at; the graph's spec must match.
    public let sampleRate: Double
    /// How long a replaced synth fades out, in seconds.
    public static let handoverFadeSeconds = 0.010

    // MARK: Shared (atomics)
    /// Synths on their way to the audio thread, and back to be deleted.
    private let handover = Handover<SamplerSynth>(retiredCapacity: 8)
    private let voiceCount = Atomic<Int>(0)
    private let handovers = Atomic<Int>(0)
    /// `percussionNotes`, as two words.
    private let percussionLow = Atomic<UInt64>(.max)
    private let percussionHigh = Atomic<UInt64>(.max)

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
    /// With `sends`: 32 channel buffers of `maximumBlockSize` frames, and the
    /// pointers handed to FluidSynth (moved along the block segment by segment).
    private var channelScratch: UnsafeMutablePointer<Float>?
    private var channelPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>
    private var channelScratchFrames = 0
    /// Per MIDI channel, the send gains (CC value / 127).
    private let reverbSends: UnsafeMutablePointer<Float>
    private let chorusSends: UnsafeMutablePointer<Float>
    /// Bit `c`: channel `c` has had a note-on since the synth came in, so its
    /// pair may hold sound; the others are skipped when mixing.
    private var soundingChannels: UInt16 = 0

    /// - Parameters:
    ///   - events: the `MIDIScheduler`'s `events`.
    ///   - sampleRate: the engine's rate; synths are built at it.
    ///   - channels: the MIDI channels to answer; all but GM percussion by default.
    /// - Realtime: unsafe (allocates). Control thread.
    ///   - sends: render the reverb and chorus sends too (synths must then have `channelOutputs`).
    public init(name: String = "sampler", events: MIDIEventBuffer, sampleRate: Double, channels: SamplerChannelSet = .melodic,
                sends: Bool = false) {
        self.events = events
        self.sampleRate = sampleRate
        self.channels = channels
        self.sends = sends
        channelPointers = .allocate(capacity: 32)
        channelPointers.initialize(repeating: nil, count: 32)
        reverbSends = .allocate(capacity: 16)
        chorusSends = .allocate(capacity: 16)
        super.init(name: name)
        resetSends()
    }

    deinit {
        for synth in [current, fading] {
            if let synth { Unmanaged<SamplerSynth>.fromOpaque(synth).release() }
        }
        scratchLeft?.deallocate()
        scratchRight?.deallocate()
        channelScratch?.deallocate()
        channelPointers.deallocate()
        reverbSends.deallocate()
        chorusSends.deallocate()
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
        var configuration = configuration
        configuration.channelOutputs = sends
        let synth = try SamplerSynth(configuration: configuration, sampleRate: sampleRate, channels: channels)
        install(synth)
        return synth
    }

    /// Hands `synth` to the audio thread, which takes it at its next block. A
    /// synth handed over earlier and not yet taken is released here instead.
    /// With `sends`, a synth without `channelOutputs` plays dry (no sends).
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

    /// The notes of the percussion channel (index 9) this sampler plays, when
    /// `channels` takes that channel; every note until set.
    /// - Thread: any (the audio thread reads it at each block)
    /// - Realtime: safe (atomic loads and stores)
    public var percussionNotes: MIDINoteSet {
        get { MIDINoteSet(low: percussionLow.load(ordering: .relaxed), high: percussionHigh.load(ordering: .relaxed)) }
        set {
            percussionLow.store(newValue.low, ordering: .relaxed)
            percussionHigh.store(newValue.high, ordering: .relaxed)
        }
    }

    /// Synths the audio thread has taken over since start.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var handoverCount: Int { handovers.load(ordering: .relaxed) }

    // MARK: Node contract

    public override var inputBusCount: Int { 0 }

    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { sends ? 6 : 2 }

    /// - Realtime: unsafe (allocates). Control thread.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        precondition(spec.sampleRate == sampleRate, "sampler '\(name)' is built for \(sampleRate) Hz, the graph runs at \(spec.sampleRate) Hz")
        scratchLeft?.deallocate()
        scratchRight?.deallocate()
        scratchLeft = .allocate(capacity: spec.maximumBlockSize)
        scratchRight = .allocate(capacity: spec.maximumBlockSize)
        fadeLength = max(1, Int(Self.handoverFadeSeconds * spec.sampleRate))
        channelScratch?.deallocate()
        channelScratch = nil
        if sends {
            channelScratch = .allocate(capacity: 32 * spec.maximumBlockSize)
            channelScratchFrames = spec.maximumBlockSize
        }
    }

    // MARK: Audio thread

    /// Silences the playing synth and ends any fade.
    /// - Thread: audio, control
    /// - Realtime: safe
    public override func reset() {
        if let current { Unmanaged<SamplerSynth>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.silence() } }
        if let fading { Unmanaged<SamplerSynth>.fromOpaque(fading)._withUnsafeGuaranteedRef { $0.silence() } }
        fadeRemaining = 0
        resetSends()
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
        let percussion = percussionNotes
        Unmanaged<SamplerSynth>.fromOpaque(current)._withUnsafeGuaranteedRef { synth in
            // Channels whose preset came in since the last block play what they held.
            synth.resumeWaitingChannels()
            var done = 0
            let count = events.count
            for index in 0..<count {
                let event = events[index]
                let frame = min(max(event.offset, done), frames)
                if frame > done {
                    renderSegment(synth, output: output, from: done, frames: frame - done)
                    done = frame
                }
                if let channel = event.message.channel, !channels.contains(channel: channel) { continue }
                if !Self.plays(event.message, percussion: percussion) { continue }
                if sends { noteSends(event.message) }
                synth.apply(event.message)
            }
            if done < frames { renderSegment(synth, output: output, from: done, frames: frames - done) }
            var voices = synth.activeVoiceCount
            synth.freeIdlePresets(afterRendering: frames)
            if fading != nil { voices += mixFadingSynth(into: left, right, frames: frames) }
            voiceCount.store(voices, ordering: .relaxed)
        }
        if !sends {
            for c in 2..<max(2, output.channelCount) { output[c].update(from: left, count: frames) }
        }
    }

    /// Renders `frames` frames of `synth` at `start` into the dry pair, and
    /// with `sends` into the send pairs too, at the sends' present levels.
    /// - Thread: audio
    /// - Realtime: safe. Preallocated scratch, FluidSynth on this thread only.
    @inline(__always)
    private func renderSegment(_ synth: SamplerSynth, output: AudioBlock, from start: Int, frames: Int) {
        let left = output[0] + start, right = output[min(1, output.channelCount - 1)] + start
        guard sends, synth.channelOutputs, output.channelCount >= 6, let scratch = channelScratch else {
            synth.render(left: left, right: right, frameCount: frames)
            // A synth without channel outputs (built elsewhere and installed) plays dry.
            if output.channelCount >= 6 {
                for c in 2..<6 { (output[c] + start).update(repeating: 0, count: frames) }
            }
            return
        }
        let stride = channelScratchFrames
        for c in 0..<32 { channelPointers[c] = scratch + c * stride }
        for c in 0..<32 { (scratch + c * stride).update(repeating: 0, count: frames) }
        synth.renderChannels(channelPointers, frameCount: frames)
        let reverbLeft = output[2] + start, reverbRight = output[3] + start
        let chorusLeft = output[4] + start, chorusRight = output[5] + start
        for n in 0..<frames {
            left[n] = 0; right[n] = 0
            reverbLeft[n] = 0; reverbRight[n] = 0
            chorusLeft[n] = 0; chorusRight[n] = 0
        }
        for channel in 0..<16 where soundingChannels & (1 << UInt16(channel)) != 0 {
            let l = scratch + (2 * channel) * stride, r = scratch + (2 * channel + 1) * stride
            let reverb = reverbSends[channel], chorus = chorusSends[channel]
            for n in 0..<frames {
                left[n] += l[n]
                right[n] += r[n]
            }
            if reverb > 0 {
                for n in 0..<frames {
                    reverbLeft[n] += l[n] * reverb
                    reverbRight[n] += r[n] * reverb
                }
            }
            if chorus > 0 {
                for n in 0..<frames {
                    chorusLeft[n] += l[n] * chorus
                    chorusRight[n] += r[n] * chorus
                }
            }
        }
    }

    /// Follows CC 91 and CC 93, and a system reset, for the sends.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private func noteSends(_ message: MIDIMessage) {
        switch message {
        case let .noteOn(channel, _, _) where channel < 16:
            soundingChannels |= 1 << UInt16(channel)
        case let .controlChange(channel, 91, value) where channel < 16:
            reverbSends[Int(channel)] = Float(value & 0x7F) / 127
        case let .controlChange(channel, 93, value) where channel < 16:
            chorusSends[Int(channel)] = Float(value & 0x7F) / 127
        case .systemReset:
            resetSends()
        default:
            break
        }
    }

    /// Every channel's sends back to General MIDI 2's defaults.
    /// - Thread: audio, control
    /// - Realtime: safe
    private func resetSends() {
        for c in 0..<16 {
            reverbSends[c] = Float(Self.defaultReverbSend) / 127
            chorusSends[c] = Float(Self.defaultChorusSend) / 127
        }
    }

    /// Whether a message the channel filter let through is this sampler's:
    /// a note on the percussion channel only when `percussion` holds it.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private static func plays(_ message: MIDIMessage, percussion: MIDINoteSet) -> Bool {
        switch message {
        case .noteOn(GeneralMIDI.percussionChannel, let note, _), .noteOff(GeneralMIDI.percussionChannel, let note, _),
             .polyPressure(GeneralMIDI.percussionChannel, let note, _):
            return percussion.contains(note)
        default:
            return true
        }
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
        soundingChannels = 0
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
