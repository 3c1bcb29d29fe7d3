#if canImport(Glibc)
import Glibc
#endif
import Engine
import Synchronization

/// A pass-through node that hands every frame it renders to another thread
/// for loudness metering: on the audio thread it only interleaves the block
/// into preallocated scratch and writes it into a lock-free ring. A
/// `ShortTermLoudness` on the control thread drains the ring into a
/// `LoudnessMeter` (K-weighting, gating and all the rest happen there).
///
/// When the ring is full (nobody reads it, or the reader stalled) the block
/// is dropped and counted; the audio thread never waits. Up to
/// `maximumChannelCount` channels are handed over; more pass through.
public final class LoudnessTap: AudioNode, @unchecked Sendable {
    public static var maximumChannelCount: Int { 8 }
    /// Interleaved frames on their way to the reader. Producer: the audio thread.
    public let ring: SampleRing

    // MARK: Shared (atomics)
    /// The prepared format, published by `allocate` for the reader: rate, channels, and a
    /// count that changes with every preparation (the reader starts afresh).
    private let preparedRate = Atomic<Int>(0)
    private let preparedChannels = Atomic<Int>(0)
    private let preparations = Atomic<Int>(0)
    /// Frames that found the ring full.
    private let droppedCount = Atomic<Int>(0)

    // MARK: Control thread only (set by `allocate`, read by the audio thread)
    private var channels = 0
    /// Interleaving scratch, `maximumBlockSize × channels`.
    private var scratch: UnsafeMutablePointer<Float>
    private var scratchFrames = 0

    /// - Parameter ringSamples: the ring's size in samples (all channels):
    ///   131072 holds 1.3 s of stereo at 48 kHz, many refreshes of a screen.
    /// - Realtime: unsafe (allocates). Control thread.
    public init(name: String = "loudness tap", ringSamples: Int = 131_072) {
        ring = SampleRing(capacity: ringSamples)
        scratch = .allocate(capacity: 1)
        super.init(name: name)
    }

    deinit { scratch.deallocate() }

    /// - Realtime: unsafe (allocates). Control thread only.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        scratch.deallocate()
        channels = min(max(1, outputChannelCount), Self.maximumChannelCount)
        scratchFrames = spec.maximumBlockSize
        scratch = .allocate(capacity: spec.maximumBlockSize * channels)
        scratch.initialize(repeating: 0, count: spec.maximumBlockSize * channels)
        preparedRate.store(Int(spec.sampleRate.rounded()), ordering: .relaxed)
        preparedChannels.store(channels, ordering: .relaxed)
        preparations.add(1, ordering: .releasing)
    }

    /// The format the ring's frames have: sample rate, channels, and which
    /// preparation it is (it changes when the node is prepared again).
    /// - Thread: any
    /// - Realtime: safe
    public var format: (sampleRate: Int, channelCount: Int, preparation: Int) {
        let preparation = preparations.load(ordering: .acquiring)
        return (preparedRate.load(ordering: .relaxed), preparedChannels.load(ordering: .relaxed), preparation)
    }

    /// Frames dropped because the ring was full.
    /// - Thread: any
    /// - Realtime: safe
    public var droppedFrames: Int { droppedCount.load(ordering: .relaxed) }

    // MARK: Audio thread

    /// Passes bus 0 through and writes the block, interleaved, into the ring.
    /// - Thread: audio
    /// - Realtime: safe. Copies into preallocated memory, a ring write, atomics.
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let input = inputs.connectedBus0 else {
            output.clear()
            return
        }
        let last = input.channelCount - 1
        for c in 0..<output.channelCount {
            let source = input.channels[min(c, last)], destination = output.channels[c]
            for i in 0..<frames { destination[i] = source[i] }
        }
        let ch = channels
        guard ch > 0, frames <= scratchFrames else { return }
        guard ring.availableToWrite >= frames * ch else {
            droppedCount.add(frames, ordering: .relaxed)
            return
        }
        for c in 0..<ch {
            let source = output.channels[min(c, output.channelCount - 1)]
            for i in 0..<frames { scratch[i * ch + c] = source[i] }
        }
        ring.write(scratch, count: frames * ch)
    }
}
