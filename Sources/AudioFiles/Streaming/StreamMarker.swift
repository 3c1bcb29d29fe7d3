/// A point in a `SoundFileStream`'s ring where the frames change meaning,
/// sent by the reader thread to the audio thread beside the frames (a
/// wait-free queue, in ring order).
///
/// `ringFrame` counts stereo frames ever written to the ring: the marker
/// applies to the frame with that index. The reader pushes a `start` marker
/// before it writes the first frame it names, so a consumer that sees
/// frames at or past `ringFrame` also sees the marker.
struct StreamMarker: Sendable {
    enum Kind: UInt8, Sendable {
        /// The first frame of a generation: the track's frame `position` after a seek.
        case start
        /// The loop's end was reached: this frame is the loop's start again.
        case wrap
        /// The track (this generation) has no frames from here on.
        case end
    }

    var kind: Kind
    /// The seek that made these frames; frames of older generations are never played.
    var generation: Int
    /// Where it applies, in frames ever written to the ring.
    var ringFrame: Int
    /// The track's frame (at the session's rate) that the frame at `ringFrame` plays.
    var position: Int
}
