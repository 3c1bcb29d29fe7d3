import Engine
import MIDI
import Sequencing
import Synchronization

/// The drum kit in the render graph: a stereo source that plays a `DrumKit`
/// from the MIDI events of each block, sample-accurately.
///
/// It reads the scheduler's `MIDIEventBuffer` in render: voices are rendered
/// up to each event's frame, the event is applied, and rendering goes on, so
/// a hit starts at its exact frame, not at the block's start. By default it
/// listens to channel index 9 (General MIDI's channel 10) and plays the GM
/// drum map, as the kit's manifest lays it out.
///
/// Kits are swapped without the audio thread waiting, allocating or freeing,
/// as `RenderEngine` swaps plans: `install(_:)` parks a retained kit in an
/// atomic slot; at the start of a block the audio thread takes it and fades
/// the old kit's voices out over `DrumFade.kitSwapSeconds` while the new kit
/// plays; once silent, the old kit goes back through a wait-free queue, and
/// the control thread frees it in `collectRetired()`.
///
/// Messages: note-on plays a pad; note-off is ignored (drums are one-shots)
/// unless the pad stops on note-off; All Notes Off, All Sound Off, the
/// Omni/Mono/Poly mode messages and System Reset fade every voice out over
/// `DrumFade.silenceSeconds`.
public final class DrumKitNode: AudioNode, @unchecked Sendable {
    /// The scheduler's events, read in `render`.
    public let events: MIDIEventBuffer
    /// The MIDI channel index (0–15) the kit listens to; nil for every channel.
    public let channel: UInt8?

    // MARK: Shared (atomics)
    /// Kits on their way to the audio thread, and back to be freed.
    private let handover = Handover<DrumKit>(retiredCapacity: 16)
    private let sounding = Atomic<Int>(0)
    private let swaps = Atomic<Int>(0)
    /// Per note 0–127: `DrumPadActivity` packed in one word, under the pad's own note.
    private let activity: UnsafeMutablePointer<Atomic<UInt64>>

    // MARK: Audio thread only
    private var current: UnsafeMutableRawPointer?
    /// The replaced kit, fading out; at most one at a time.
    private var outgoing: UnsafeMutableRawPointer?

    // MARK: Control thread only
    /// The kit last handed to `install(_:)`.
    public private(set) var installedKit: DrumKit?
    private var engineRate: Double?

    /// - Parameters:
    ///   - events: the scheduler's buffer (`MIDIScheduler.events`).
    ///   - channel: the channel index to play (9 is GM's channel 10); nil for all.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(events: MIDIEventBuffer, channel: UInt8? = GeneralMIDI.percussionChannel, name: String = "drums") {
        self.events = events
        self.channel = channel
        activity = .allocate(capacity: 128)
        for note in 0..<128 { (activity + note).initialize(to: Atomic(0)) }
        super.init(name: name)
    }

    deinit {
        // No audio thread holds the node any more: every kit can go.
        for raw in [current, outgoing] {
            if let raw { Unmanaged<DrumKit>.fromOpaque(raw).release() }
        }
        activity.deinitialize(count: 128)
        activity.deallocate()
    }

    // MARK: Node contract

    public override var inputBusCount: Int { 0 }

    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    /// - Realtime: unsafe. Control thread.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        engineRate = spec.sampleRate
    }

    // MARK: Control thread

    /// Hands `kit` to the audio thread; it plays from the next block on, while
    /// the kit it replaces fades out. A kit installed before the previous one
    /// was picked up replaces it (and that one is released here).
    /// - Throws: `DrumKitError.sampleRateMismatch` when the node is prepared
    ///   for another rate than the kit was loaded at; `.kitInUse` when the kit
    ///   was installed in another node (its voices are that node's).
    /// - Realtime: unsafe (may free). Control thread only.
    public func install(_ kit: DrumKit) throws(DrumKitError) {
        if let engineRate, engineRate != kit.sampleRate {
            throw .sampleRateMismatch(manifestPath: kit.manifestPath, kitRate: kit.sampleRate, engineRate: engineRate)
        }
        if let owner = kit.owner, owner != ObjectIdentifier(self) { throw .kitInUse(manifestPath: kit.manifestPath) }
        kit.owner = ObjectIdentifier(self)
        handover.offer(kit)
        installedKit = kit
    }

    /// Frees the kits the audio thread has finished with. Call it regularly
    /// from the control loop.
    /// - Returns: how many kits were released.
    /// - Realtime: unsafe (frees). Control thread only.
    @discardableResult
    public func collectRetired() -> Int {
        handover.collectRetired()
    }

    /// Whether an installed kit is still waiting for the audio thread.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var hasPendingKit: Bool { handover.hasPending }

    // MARK: Any thread (for the TUI)

    /// Hits sounding at the end of the last block: voices, and stolen or
    /// replaced voices still fading.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var activeVoiceCount: Int { sounding.load(ordering: .relaxed) }

    /// Kits the audio thread has taken up since the node was made.
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public var kitSwapCount: Int { swaps.load(ordering: .relaxed) }

    /// The activity of the pad whose own note is `note` (see `DrumKitPadInfo.note`).
    /// - Thread: any
    /// - Realtime: safe (an atomic load)
    public func activity(note: UInt8) -> DrumPadActivity {
        DrumPadActivity(packed: activity[Int(note & 0x7F)].load(ordering: .relaxed))
    }

    // MARK: Audio thread

    /// Silences the kit at once, without a fade. Never while a block renders:
    /// the audio thread calls it between blocks, `prepare` while no running
    /// plan holds the node.
    /// - Thread: audio, control
    /// - Realtime: safe
    public override func reset() {
        if let current { Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.stopAll() } }
        if let outgoing { Unmanaged<DrumKit>.fromOpaque(outgoing)._withUnsafeGuaranteedRef { $0.stopAll() } }
        sounding.store(0, ordering: .relaxed)
    }

    /// Renders the block's hits at their frames.
    /// - Thread: audio
    /// - Realtime: safe. Atomics, a wait-free queue and the kit's preallocated storage.
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        adoptPendingKit()
        output.clear()
        let frames = output.frameCount
        let left = output[0], right = output[min(1, output.channelCount - 1)]
        var done = 0
        for index in 0..<events.count {
            let event = events[index]
            let at = min(max(event.offset, done), frames)
            if at > done {
                renderVoices(left: left + done, right: right + done, frames: at - done)
                done = at
            }
            apply(event.message)
        }
        if done < frames { renderVoices(left: left + done, right: right + done, frames: frames - done) }
        finishBlock()
    }

    /// Takes a newly installed kit, unless the previous swap is still fading.
    /// - Thread: audio
    /// - Realtime: safe
    private func adoptPendingKit() {
        guard outgoing == nil, let next = handover.take() else { return }
        if let old = current {
            Unmanaged<DrumKit>.fromOpaque(old)._withUnsafeGuaranteedRef { $0.fadeAll(frames: $0.swapFadeFrames) }
            outgoing = old
        }
        current = next
        swaps.add(1, ordering: .relaxed)
    }

    /// Adds `frames` frames of the current and the outgoing kit's voices.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private func renderVoices(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) {
        if let current {
            Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.render(left: left, right: right, frames: frames) }
        }
        if let outgoing {
            Unmanaged<DrumKit>.fromOpaque(outgoing)._withUnsafeGuaranteedRef { $0.render(left: left, right: right, frames: frames) }
        }
    }

    /// Applies one message at the current frame.
    /// - Thread: audio
    /// - Realtime: safe
    private func apply(_ message: MIDIMessage) {
        if let channel, let messageChannel = message.channel, messageChannel != channel { return }
        switch message {
        case let .noteOn(_, note, velocity) where velocity > 0:
            guard let current else { return }
            Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { kit in
                let pad = kit.hit(note: note, velocity: velocity)
                if pad >= 0 { recordHit(padNote: kit.padTable[pad].note, velocity: velocity) }
            }
        case let .noteOn(_, note, _), let .noteOff(_, note, _):
            guard let current else { return }
            Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.release(note: note) }
        case .controlChange:
            if message.channelMode?.endsAllNotes == true { silenceAll() }
        case .systemReset:
            silenceAll()
        default:
            break
        }
    }

    /// Fades every voice of both kits out over `DrumFade.silenceSeconds`.
    /// - Thread: audio
    /// - Realtime: safe
    private func silenceAll() {
        if let current {
            Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.fadeAll(frames: $0.silenceFadeFrames) }
        }
        if let outgoing {
            Unmanaged<DrumKit>.fromOpaque(outgoing)._withUnsafeGuaranteedRef { $0.fadeAll(frames: $0.silenceFadeFrames) }
        }
    }

    /// Counts a hit of the pad whose own note is `padNote`, for the TUI.
    /// - Thread: audio (the only writer of `activity`)
    /// - Realtime: safe
    private func recordHit(padNote: UInt8, velocity: UInt8) {
        let slot = activity + Int(padNote & 0x7F)
        var now = DrumPadActivity(packed: slot.pointee.load(ordering: .relaxed))
        now.hitCount += 1
        now.lastVelocity = velocity
        slot.pointee.store(now.packed, ordering: .relaxed)
    }

    /// Publishes the voice count and retires the old kit once it is silent.
    /// - Thread: audio
    /// - Realtime: safe
    private func finishBlock() {
        var count = 0
        if let current { count += Unmanaged<DrumKit>.fromOpaque(current)._withUnsafeGuaranteedRef { $0.countSoundingVoices() } }
        if let old = outgoing {
            let remaining = Unmanaged<DrumKit>.fromOpaque(old)._withUnsafeGuaranteedRef { $0.countSoundingVoices() }
            if remaining == 0 {
                handover.retire(old)
                outgoing = nil
            }
            count += remaining
        }
        sounding.store(count, ordering: .relaxed)
    }
}
