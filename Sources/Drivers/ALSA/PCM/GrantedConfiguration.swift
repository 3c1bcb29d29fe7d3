import Session

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

    /// The capture side; nil in playback-only mode (`DuplexDriver.Options(playback:)`),
    /// where no capture PCM is opened.
    public var capture: Stream?
    public var playback: Stream
    public var sampleRate: Int
    /// Frames per period, equal on both sides (the driver insists).
    public var periodFrames: Int
    /// Silence written to playback before each start. Duplex: the round
    /// trip. Playback only: where the first rendered frame lands in what plays.
    public var primedFrames: Int
    /// Whether capture and playback are linked (`snd_pcm_link`: one start, one clock).
    public var linked: Bool

    /// The format a render graph is compiled for.
    public var audioFormat: AudioFormat {
        AudioFormat(sampleRate: sampleRate, periodFrames: periodFrames,
                    inputChannels: capture?.channels ?? 0, outputChannels: playback.channels)
    }

    /// Whether the driver runs playback alone, with no capture PCM.
    public var isPlaybackOnly: Bool { capture == nil }

    /// The playback side's periods per buffer.
    public var periodCount: Int { playback.periodCount }
    public var bufferFrames: Int { playback.bufferFrames }

    /// Frames queued on playback right after the loop writes a period: the
    /// longest a rendered frame waits before it plays, as far as this
    /// driver's buffering decides (the device's or the sound server's own
    /// buffering comes on top). Duplex: the primed frames, where capture
    /// pacing keeps the queue. Playback only: the whole buffer
    /// (`periodCount × periodFrames`), which the loop refills whenever a
    /// period of room opens.
    public var outputLatencyFrames: Int { isPlaybackOnly ? bufferFrames : primedFrames }
    public var outputLatencyMilliseconds: Double { Double(outputLatencyFrames) * 1000 / Double(sampleRate) }

    /// Duplex: from a sample entering capture to it leaving playback, in
    /// frames, as far as this driver's buffering decides it (converters and
    /// the device's own FIFOs add a little; `jack_iodelay` measures the whole).
    /// Playback only has no capture to start the trip from: this is then
    /// `outputLatencyFrames`, the driver's share of any input-to-sound path
    /// (a MIDI key to the speaker).
    public var roundTripFrames: Int { isPlaybackOnly ? outputLatencyFrames : primedFrames }
    public var roundTripMilliseconds: Double { Double(roundTripFrames) * 1000 / Double(sampleRate) }
    public var periodMilliseconds: Double { Double(periodFrames) * 1000 / Double(sampleRate) }

    /// Duplex: "48000 Hz, FLOAT_LE, 2 in / 2 out, period 64 × 2 = 128 frames, round trip ≈ 2.7 ms (128 frames)".
    /// Playback only: "48000 Hz, FLOAT_LE, 2 out (no capture), period 64 × 2 = 128 frames, output latency ≈ 2.7 ms (128 frames)".
    public var description: String {
        let buffering = "period \(periodFrames) × \(periodCount) = \(bufferFrames) frames"
        guard let capture else {
            let ms = (outputLatencyMilliseconds * 10).rounded() / 10
            return "\(sampleRate) Hz, \(playback.format.rawValue), \(playback.channels) out (no capture), \(buffering), "
                + "output latency ≈ \(ms) ms (\(outputLatencyFrames) frames)"
        }
        let format = capture.format == playback.format
            ? playback.format.rawValue
            : "\(capture.format.rawValue) in / \(playback.format.rawValue) out"
        let ms = (roundTripMilliseconds * 10).rounded() / 10
        return "\(sampleRate) Hz, \(format), \(capture.channels) in / \(playback.channels) out, \(buffering), "
            + "round trip ≈ \(ms) ms (\(roundTripFrames) frames)\(linked ? ", linked" : "")"
    }
}
