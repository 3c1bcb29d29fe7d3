#if canImport(Glibc)
import Glibc
#endif
import Engine
import Engine
import Sequencing
import Synchronization

/// A pass-through node that copies every frame it renders into a lock-free
/// ring while a take is armed, for a `Recorder`'s writer thread to drain into
/// a file. Nothing here touches a file: the audio thread only copies into
/// preallocated memory and updates atomics.
///
/// Place it anywhere in a graph: at the end of the chain for the master mix
/// (`install(atEndOf:)`), or after any node for a stem. It records
/// `channelCount` channels; an input with fewer channels repeats its last one
/// (mono → both sides), as a mixer would.
///
/// When the writer falls behind and the ring is full, the frames that do not
/// fit are dropped, counted, and their position queued as a `DroppedSpan` for
/// the writer, which writes silence in their place and logs them: a take is
/// never silently shortened. A gap closes only when its record is queued and
/// the whole next block fits, so the ring never holds a frame written after a
/// gap the writer has not heard of.
///
/// With `midiEvents`, the MIDI events of each block (as the instruments see
/// them) are recorded too, placed on the take's timeline `midiLatencyFrames`
/// later, so a note-on lines up with the sound it starts after the chain's latency.
public final class RecordingTap: AudioNode, @unchecked Sendable {
    public let channelCount: Int
    /// Offline only (the file driver, benchmarks): when the ring is full the
    /// render thread waits for the writer instead of dropping frames, as the
    /// offline driver's render thread already waits on its own rings. Never
    /// on a live driver.
    public let waitsForWriter: Bool
    /// Interleaved frames on their way to the writer. Producer: the audio thread.
    public let ring: SampleRing
    /// Gaps, in order. Producer: the audio thread.
    let gaps: SPSCQueue<DroppedSpan>
    /// Recorded MIDI events, when the tap follows a MIDI event buffer.
    let midiQueue: SPSCQueue<RecordedMIDIEvent>?

    // MARK: Shared (atomics)
    /// What the control thread wants: record or not. Shared by taps that must
    /// start and stop on the same block (a master and its stems).
    public let recordSwitch: RecordingSwitch
    /// What the audio thread last acted on: once it reads false, the audio
    /// thread has written its last frame of the take into the ring.
    private let armAcknowledged = Atomic<Bool>(false)
    /// Frames of the current take the tap has seen (written or dropped).
    private let framesSeenCount = Atomic<Int>(0)
    /// Frames of the current take dropped because the ring was full.
    private let droppedCount = Atomic<Int>(0)
    /// MIDI events of the current take that found the MIDI queue full.
    private let droppedMIDICount = Atomic<Int>(0)
    /// The gap still open (its record not yet queued): start and length.
    private let openGapStart = Atomic<Int>(0)
    private let openGapLength = Atomic<Int>(0)
    /// Frames added to MIDI event positions (the chain's latency). Set before a take.
    private let midiLatency = Atomic<Int>(0)
    /// The take's length when it has one (`--duration`, a file's length), 0 for none.
    private let frameLimit = Atomic<Int>(0)
    /// Set by the audio thread once the take has its `frameLimit` frames.
    private let limitReached = Atomic<Bool>(false)
    /// Bumped by every `prepareTake` (and so `arm`): a new take. The audio
    /// thread restarts its counters whenever it differs from the one it last
    /// saw, not only when the switch changes: a take stopped and another
    /// started while the audio was off (suspended, waiting for a device)
    /// leaves the switch on both times the audio thread looks.
    private let takeGeneration = Atomic<Int>(0)

    // MARK: Audio thread only
    private var armed = false
    /// The `takeGeneration` the counters below belong to.
    private var seenGeneration = 0
    /// Blocks rendered, for the switch's once-a-block latch.
    private var blockIndex = 0
    private var takeFrame = 0
    private var gapStart = 0
    private var gapLength = 0
    /// Interleaving scratch, `maximumBlockSize × channelCount`, from `allocate`.
    private var scratch: UnsafeMutablePointer<Float>?
    private var scratchFrames = 0

    // MARK: Control thread only
    private let midiEvents: MIDIEventBuffer?

    /// - Parameters:
    ///   - channelCount: channels recorded (2 for the master mix).
    ///   - ringSeconds: how far the writer may fall behind before frames are dropped.
    ///   - sampleRate: sizes the ring.
    ///   - midiEvents: the scheduler's event buffer, to record MIDI alongside audio.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(name: String = "recording tap", channelCount: Int, sampleRate: Double, ringSeconds: Double = 4,
                midiEvents: MIDIEventBuffer? = nil, waitsForWriter: Bool = false, recordSwitch: RecordingSwitch = RecordingSwitch()) {
        precondition(channelCount > 0 && sampleRate > 0 && ringSeconds > 0)
        self.channelCount = channelCount
        self.waitsForWriter = waitsForWriter
        self.recordSwitch = recordSwitch
        ring = SampleRing(capacity: max(4096, Int(ringSeconds * sampleRate)) * channelCount)
        gaps = SPSCQueue(capacity: 1024)
        self.midiEvents = midiEvents
        midiQueue = midiEvents == nil ? nil : SPSCQueue(capacity: 8192)
        super.init(name: name)
    }

    deinit { scratch?.deallocate() }

    /// Adds the tap at the end of `graph`, after its current output, and makes
    /// it the output: what the driver plays is exactly what is recorded.
    /// - Realtime: unsafe. Control thread, before compiling.
    public func install(atEndOf graph: AudioGraph) throws {
        guard let last = graph.output else { throw GraphError.noOutput }
        let id = graph.add(self)
        try graph.connect(last, to: id)
        graph.output = id
    }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        scratch?.deallocate()
        scratchFrames = spec.maximumBlockSize
        scratch = .allocate(capacity: spec.maximumBlockSize * channelCount)
        scratch!.initialize(repeating: 0, count: spec.maximumBlockSize * channelCount)
    }

    // MARK: Control side (the recorder)

    /// Starts a take at the next block. Frames-seen and drop counts restart.
    /// - Realtime: safe, but meant for the control thread.
    /// - Parameter frameLimit: record this many frames and no more (0: until disarmed).
    public func arm(midiLatencyFrames: Int = 0, frameLimit: Int = 0) {
        prepareTake(midiLatencyFrames: midiLatencyFrames, frameLimit: frameLimit)
        recordSwitch.set(true)
    }

    /// Sets a take's parameters without starting it (the shared switch will).
    public func prepareTake(midiLatencyFrames: Int = 0, frameLimit: Int = 0) {
        midiLatency.store(midiLatencyFrames, ordering: .relaxed)
        self.frameLimit.store(max(0, frameLimit), ordering: .relaxed)
        limitReached.store(false, ordering: .relaxed)
        // Published after the take's parameters, before the switch turns on.
        takeGeneration.add(1, ordering: .releasing)
    }

    /// Ends the take at the next block (of every tap on the same switch).
    /// - Thread: control, writer, reader
    /// - Realtime: safe
    public func disarm() { recordSwitch.set(false) }

    /// Whether the audio thread has acted on the last `disarm` (or never armed):
    /// after this reads false no more frames of the take reach the ring.
    /// - Thread: any
    /// - Realtime: safe
    public var isRecordingOnAudioThread: Bool { armAcknowledged.load(ordering: .acquiring) }
    /// Whether a take is requested.
    /// - Thread: any
    /// - Realtime: safe
    public var isArmed: Bool { recordSwitch.isOn }
    /// Whether the take has all the frames its limit asked for.
    /// - Thread: any
    /// - Realtime: safe
    public var hasReachedLimit: Bool { limitReached.load(ordering: .acquiring) }
    /// Frames of the current (or last) take the tap has seen, dropped ones included.
    /// - Thread: any
    /// - Realtime: safe
    public var framesSeen: Int { framesSeenCount.load(ordering: .acquiring) }
    /// Frames of the current (or last) take dropped because the ring was full.
    /// - Thread: any
    /// - Realtime: safe
    public var droppedFrames: Int { droppedCount.load(ordering: .relaxed) }
    /// MIDI events dropped because the MIDI queue was full.
    /// - Thread: any
    /// - Realtime: safe
    public var droppedMIDIEvents: Int { droppedMIDICount.load(ordering: .relaxed) }
    /// The gap still open when the take ended (its frames are counted in `droppedFrames`).
    /// - Thread: any
    /// - Realtime: safe
    var openGap: DroppedSpan? {
        let n = openGapLength.load(ordering: .acquiring)
        return n > 0 ? DroppedSpan(start: openGapStart.load(ordering: .relaxed), count: n) : nil
    }

    // MARK: Audio thread

    /// Passes bus 0 through and, while armed, copies it into the ring.
    /// - Thread: audio
    /// - Realtime: safe
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else {
            output.clear()
            recordIfArmed(output, frames: frames)
            return
        }
        let last = input.channelCount - 1
        for c in 0..<output.channelCount {
            output.channels[c].update(from: input.channels[min(c, last)], count: frames)
        }
        recordIfArmed(output, frames: frames)
    }

    /// Latches the switch for this block and, while armed, copies the block
    /// into the ring (and its MIDI events into the MIDI queue), counting and
    /// queueing any gap.
    /// - Thread: audio
    /// - Realtime: safe (a tap made with `waitsForWriter`, offline only, sleeps while the
    ///   ring is full, as the offline render loop waits on its own rings)
    private func recordIfArmed(_ block: AudioBlock, frames blockFrames: Int) {
        let wanted = recordSwitch.state(forBlock: blockIndex)
        blockIndex &+= 1
        let generation = takeGeneration.load(ordering: .acquiring)
        if wanted != armed || (wanted && generation != seenGeneration) {
            armed = wanted
            if wanted {
                seenGeneration = generation
                takeFrame = 0
                gapStart = 0
                gapLength = 0
                droppedCount.store(0, ordering: .relaxed)
                droppedMIDICount.store(0, ordering: .relaxed)
                openGapLength.store(0, ordering: .relaxed)
                framesSeenCount.store(0, ordering: .releasing)
            }
            armAcknowledged.store(wanted, ordering: .releasing)
        }
        guard armed, let scratch, blockFrames <= scratchFrames else { return }
        var frames = blockFrames
        let limit = frameLimit.load(ordering: .relaxed)
        if limit > 0 {
            frames = min(frames, limit - takeFrame)
            if frames <= 0 {
                limitReached.store(true, ordering: .releasing)
                return
            }
        }
        if let midiEvents, let midiQueue {
            let latency = midiLatency.load(ordering: .relaxed)
            for i in 0..<midiEvents.count {
                let event = midiEvents[i]
                if event.offset >= frames { break }
                if !midiQueue.push(RecordedMIDIEvent(frame: takeFrame + event.offset + latency, message: event.message)) {
                    droppedMIDICount.add(1, ordering: .relaxed)
                }
            }
        }
        let ch = channelCount
        var writable = true
        if gapLength > 0 {
            // Close the gap only when the whole block fits after its record.
            if ring.availableToWrite / ch >= frames && gaps.push(DroppedSpan(start: gapStart, count: gapLength)) {
                gapLength = 0
            } else {
                writable = false
            }
        }
        if waitsForWriter {
            // Offline: wait for room (the writer disarms the tap if it gives up).
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000)
            while ring.availableToWrite / ch < frames && recordSwitch.isOn { nanosleep(&pause, nil) }
        }
        var written = 0
        if writable {
            written = min(frames, ring.availableToWrite / ch)
            if written > 0 {
                let last = block.channelCount - 1
                for c in 0..<ch {
                    let source = block.channels[min(c, last)]
                    for i in 0..<written { scratch[i * ch + c] = source[i] }
                }
                ring.write(scratch, count: written * ch)
            }
            if written < frames { gapStart = takeFrame + written }
        }
        let dropped = frames - written
        if dropped > 0 {
            gapLength += dropped
            droppedCount.add(dropped, ordering: .relaxed)
        }
        openGapStart.store(gapStart, ordering: .relaxed)
        openGapLength.store(gapLength, ordering: .releasing)
        takeFrame += frames
        framesSeenCount.store(takeFrame, ordering: .releasing)
        if limit > 0 && takeFrame >= limit { limitReached.store(true, ordering: .releasing) }
    }
}
