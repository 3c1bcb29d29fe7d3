/// How long the drum kit's fade-outs take. Every stop is a linear fade to
/// zero, never a cut: cutting a voice mid-sample jumps by the voice's level
/// in one sample, which is a click.
///
/// A linear fade over N samples changes the level by at most 1/N of the
/// voice's peak per sample: 144 samples (3 ms at 48 kHz) add at most 0.7 % of
/// the peak, −43 dB, far below a drum sample's own sample-to-sample motion.
/// Its spectrum is a main lobe about 1/3 ms ≈ 330 Hz wide, so a fade this
/// short is heard as the sound stopping, not as a tick. Longer fades would let
/// a stolen voice overlap the new one audibly (a roll on four voices would
/// ring on five), and a choked open hi-hat would not sound closed.
public enum DrumFade {
    /// A stolen voice (the pad's voices all busy): 3 ms.
    public static let stealSeconds = 0.003
    /// A choked voice (a closed hi-hat cutting the open one): 3 ms, about as
    /// fast as a hi-hat's cymbals close on each other.
    public static let chokeSeconds = 0.003
    /// All notes off, all sound off, system reset, and note-offs on pads that
    /// stop on note-off: 5 ms, a little gentler since everything stops at once.
    public static let silenceSeconds = 0.005
    /// The voices of a kit being replaced by another: 5 ms.
    public static let kitSwapSeconds = 0.005

    /// `seconds` at `sampleRate` in whole frames, at least 1.
    static func frames(_ seconds: Double, sampleRate: Double) -> Int {
        max(1, Int((seconds * sampleRate).rounded()))
    }
}
