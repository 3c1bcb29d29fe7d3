/// The live screen's loudness: drains a `LoudnessTap`'s ring on the control
/// thread into a `LoudnessMeter` that measures short-term (3 s) and
/// momentary (400 ms) loudness only, so its memory stays constant however
/// long the session runs. Call `update()` often (every screen refresh): the
/// ring holds about a second.
public final class ShortTermLoudness {
    public let tap: LoudnessTap
    private var meter: LoudnessMeter?
    private var preparation = 0
    private let chunk: UnsafeMutablePointer<Float>
    private let chunkSamples: Int

    /// - Realtime: unsafe (allocates). Control thread.
    public init(tap: LoudnessTap) {
        self.tap = tap
        chunkSamples = tap.ring.capacity
        chunk = .allocate(capacity: chunkSamples)
    }

    deinit { chunk.deallocate() }

    /// Measures everything the tap has handed over since the last call. A
    /// new preparation of the tap (another rate or channel count) starts a
    /// new meter; what the ring held then is thrown away, as it may be in the
    /// old format (the first preparation has none before it: nothing is lost).
    /// - Thread: control
    /// - Realtime: unsafe (libebur128)
    public func update() {
        let format = tap.format
        if format.preparation != preparation {
            preparation = format.preparation
            if meter != nil {
                while tap.ring.read(into: chunk, count: chunkSamples) > 0 {}
            }
            meter = format.channelCount > 0 ? try? LoudnessMeter(channelCount: format.channelCount, sampleRate: format.sampleRate,
                                                                 measures: .shortTerm) : nil
        }
        guard let meter else { return }
        let ch = meter.channelCount
        while true {
            // Whole frames only: the producer writes whole blocks, so this always takes whole frames.
            let n = tap.ring.read(into: chunk, count: min(tap.ring.availableToRead, chunkSamples) / ch * ch)
            if n == 0 { break }
            meter.add(chunk, frames: n / ch)
        }
    }

    /// The loudness of the last 3 s, in LUFS (−∞ for silence); nil before any audio.
    /// - Thread: control
    /// - Realtime: unsafe (libebur128)
    public var shortTermLUFS: Double? {
        guard let meter, meter.frames > 0 else { return nil }
        return meter.shortTermLUFS
    }

    /// The loudness of the last 400 ms, in LUFS (−∞ for silence); nil before any audio.
    /// - Thread: control
    /// - Realtime: unsafe (libebur128)
    public var momentaryLUFS: Double? {
        guard let meter, meter.frames > 0 else { return nil }
        return meter.momentaryLUFS
    }
}
