/// A non-owning view of planar Float32 audio: one pointer per channel, all of
/// `frameCount` frames. It is a plain value of pointers, so passing it around on
/// the audio thread costs nothing and allocates nothing.
public struct AudioBlock {
    /// Channel pointers; `channels[c]` points at `frameCount` samples.
    public let channels: UnsafePointer<UnsafeMutablePointer<Float>>
    public let channelCount: Int
    public let frameCount: Int

    // MARK: Audio thread

    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public init(channels: UnsafePointer<UnsafeMutablePointer<Float>>, channelCount: Int, frameCount: Int) {
        self.channels = channels
        self.channelCount = channelCount
        self.frameCount = frameCount
    }

    /// The samples of one channel.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public subscript(channel: Int) -> UnsafeMutablePointer<Float> { channels[channel] }

    /// Fills every channel with zeros.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public func clear() {
        for c in 0..<channelCount { channels[c].update(repeating: 0, count: frameCount) }
    }

    /// Copies `source` into this block, adapting the channel count the way a
    /// mixer would: mono goes to every channel, more channels than we hold are
    /// folded down by averaging, missing channels repeat the last one.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public func copy(from source: AudioBlock) {
        let frames = min(frameCount, source.frameCount)
        if source.channelCount == channelCount || source.channelCount == 1 || source.channelCount < channelCount {
            for c in 0..<channelCount {
                let s = source.channels[min(c, source.channelCount - 1)]
                channels[c].update(from: s, count: frames)
            }
        } else {
            // Fold down: destination channel c takes the mean of source channels c, c+n, c+2n…
            for c in 0..<channelCount {
                let d = channels[c]
                d.update(repeating: 0, count: frames)
                var sc = c
                var taken: Float = 0
                while sc < source.channelCount {
                    let s = source.channels[sc]
                    for i in 0..<frames { d[i] += s[i] }
                    taken += 1
                    sc += channelCount
                }
                let scale = 1 / taken
                for i in 0..<frames { d[i] *= scale }
            }
        }
    }

    /// The same channels, limited to the first `frames` frames, starting at `offset`.
    /// Needs scratch room for the channel pointers, since they change.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public func slice(offset: Int, frames: Int, pointerStorage: UnsafeMutablePointer<UnsafeMutablePointer<Float>>) -> AudioBlock {
        for c in 0..<channelCount { pointerStorage[c] = channels[c] + offset }
        return AudioBlock(channels: UnsafePointer(pointerStorage), channelCount: channelCount, frameCount: frames)
    }
}

/// Owning planar Float32 storage for `channelCount` channels of `capacity` frames,
/// allocated once. It hands out `AudioBlock` views of any length up to capacity.
/// - Realtime: creating and destroying it allocate (control thread only); `block(frames:)` is safe.
public final class AudioBuffer {
    public let channelCount: Int
    public let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    @usableFromInline let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    public init(channelCount: Int, capacity: Int) {
        precondition(channelCount >= 0 && capacity > 0)
        self.channelCount = channelCount
        self.capacity = capacity
        storage = .allocate(capacity: max(1, channelCount * capacity))
        storage.initialize(repeating: 0, count: max(1, channelCount * capacity))
        pointers = .allocate(capacity: max(1, channelCount))
        for c in 0..<channelCount { pointers[c] = storage + c * capacity }
    }

    deinit {
        storage.deallocate()
        pointers.deallocate()
    }

    // MARK: Audio thread

    /// A view of the first `frames` frames of every channel.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public func block(frames: Int) -> AudioBlock {
        AudioBlock(channels: UnsafePointer(pointers), channelCount: channelCount, frameCount: frames)
    }

    /// The samples of one channel.
    /// - Thread: audio, control
    /// - Realtime: safe
    @inlinable
    public subscript(channel: Int) -> UnsafeMutablePointer<Float> { pointers[channel] }

    /// Zeros every sample.
    /// - Thread: audio, control
    /// - Realtime: safe
    public func clear() { storage.update(repeating: 0, count: max(1, channelCount * capacity)) }
}

extension UnsafeBufferPointer where Element == AudioBlock {
    // MARK: Audio thread

    /// Input bus 0 when it is there and carries channels, else nil (no bus, or
    /// an unconnected one): what a node with one input renders from; without
    /// it a node writes silence.
    /// - Thread: audio
    /// - Realtime: safe
    @inlinable
    public var connectedBus0: AudioBlock? {
        if count == 0 { return nil }
        let bus = self[0]
        return bus.channelCount > 0 ? bus : nil
    }
}
