/// What the devices actually granted, which may differ from what was asked
/// (a rate the card does not do, a buffer rounded up). Printed at start so a
/// user knows the latency they are getting.
public struct GrantedConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// One side of the duplex connection.
    public struct Stream: Sendable, Hashable {
        public var device: String
        public var format: PCMSampleFormat
        public var channels: Int
        public var periodFrames: Int
        public var periodCount: Int
        public var bufferFrames: Int
        /// RW_INTERLEAVED (true) or RW_NONINTERLEAVED.
        public var interleaved: Bool
    }

    public var capture: Stream
    public var playback: Stream
    public var sampleRate: Int
    /// Frames per period, equal on both sides (the driver insists).
    public var periodFrames: Int
    /// Silence written to playback before each start: the round trip, in frames.
    public var primedFrames: Int
    /// Whether capture and playback are linked (`snd_pcm_link`: one start, one clock).
    public var linked: Bool

    /// The playback side's periods per buffer.
    public var periodCount: Int { playback.periodCount }
    public var bufferFrames: Int { playback.bufferFrames }

    /// From a sample entering capture to it leaving playback, in frames, as
    /// far as this driver's buffering decides it (converters and the
    /// device's own FIFOs add a little; `jack_iodelay` measures the whole).
    public var roundTripFrames: Int { primedFrames }
    public var roundTripMilliseconds: Double { Double(roundTripFrames) * 1000 / Double(sampleRate) }
    public var periodMilliseconds: Double { Double(periodFrames) * 1000 / Double(sampleRate) }

    /// "48000 Hz, FLOAT_LE, 2 in / 2 out, period 64 × 2 = 128 frames, round trip ≈ 2.7 ms"
    public var description: String {
        let format = capture.format == playback.format
            ? playback.format.rawValue
            : "\(capture.format.rawValue) in / \(playback.format.rawValue) out"
        let ms = (roundTripMilliseconds * 10).rounded() / 10
        return "\(sampleRate) Hz, \(format), \(capture.channels) in / \(playback.channels) out, "
            + "period \(periodFrames) × \(periodCount) = \(bufferFrames) frames, "
            + "round trip ≈ \(ms) ms (\(roundTripFrames) frames)\(linked ? ", linked" : "")"
    }
}
