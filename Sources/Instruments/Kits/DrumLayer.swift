/// A velocity layer as the audio thread plays it: a run of samples in the
/// kit's sample table, alternated round-robin.
struct DrumLayer {
    var firstSample: Int
    var sampleCount: Int
    /// The layer's own linear gain (a Hydrogen layer's `<gain>`; 1 for a manifest layer).
    var gain: Float
    /// The next sample to play, 0 ..< sampleCount (audio thread).
    var nextSample = 0
}
