/// The thresholds by which the howl detector tells howling from programme
/// material, after the feature set surveyed by T. van Waterschoot and
/// M. Moonen, "Fifty years of acoustic feedback control: state of the art
/// and future challenges", Proc. IEEE 99(2), 2011, section V-B:
///
/// - PTPR (peak-to-threshold power ratio): the peak is above an absolute level;
/// - PAPR (peak-to-average power ratio): it stands out of the whole spectrum;
/// - PHPR (peak-to-harmonic power ratio): it has no harmonics or subharmonic
///   (a howl is a sinusoid; sung and played notes carry overtones); asked of a
///   followed peak rather than of every frame (see `HowlDetector.followCandidates`);
/// - PNPR (peak-to-neighbouring power ratio): it is narrow;
/// - persistence over several frames and a positive magnitude slope that is
///   steady (a howl grows exponentially, a straight line in dB; the
///   "interframe magnitude slope deviation" idea of Osmanovic, Clarke and
///   Ifeachor, AES 2007), or, once the limiter holds it, a loud peak whose
///   frequency does not move at all (a sung note's does).
///
/// Levels are in dB relative to a full-scale sine (a sine of amplitude A reads
/// 20·log10 A at its peak bin).
///
/// Frame counts and slopes per frame are given for 48 kHz; `HowlDetector` converts
/// them to its rate (frames × rate / 48 kHz, slopes the other way), so each window
/// lasts the same time at 44.1 or 96 kHz. Bin counts stay bins: the frame is scaled
/// so a bin is 21–23 Hz wide at every rate.
///
/// The hop is 512 samples (10.7 ms at 48 kHz), a quarter of the 2048-sample frame: the
/// usual 75 % overlap for a Hann window. A 256-sample hop finds no howl sooner in the
/// simulator (`busker bench --howl`: the same added stable gain, the same catch times
/// within a hop) and costs twice the analysis, most of the voice chain's time.
public struct HowlCriteria: Sendable, Equatable {
    /// Analysis frame and hop, in samples (2048 and 512 at 48 kHz: 23 Hz bins, a frame every 10.7 ms;
    /// the frame is taken from the signal decimated to 24 kHz, 1024 samples there).
    /// The frame is for 48 kHz: the detector scales it to its analysis rate, to the next power of two
    /// (1024 analysed samples at 44.1, 48 and 96 kHz). The hop stays this many input samples at every
    /// rate (the guard sizes its buffers by it).
    public var frameSize = 2048
    public var hopSize = 512
    /// The band searched for howls, in Hz (its bottom at least 3 bins up: 64–70 Hz at 44.1, 48 and 96 kHz;
    /// its top no higher than the decimator's passband, 9.7 kHz at 48 kHz: `HowlDetector.highestFrequency`).
    public var lowestFrequency: Float = 60
    public var highestFrequency: Float = 16_000
    /// PTPR: the absolute level a peak must reach, in dB.
    public var thresholdDB: Float = -60
    /// PAPR, PNPR and PHPR minima, in dB. PAPR is over the mean of the band searched (up to 9.7 kHz
    /// at 48 kHz, the decimator's passband). A higher PAPR bar lets a second howl, which rises beside
    /// a first one already notched, grow much louder before it stands out enough to be found
    /// (`busker bench --howl` reports the guarded peak level).
    public var minimumPAPR: Float = 13
    public var minimumPNPR: Float = 15
    public var minimumPHPR: Float = 12
    /// Frames a growing peak must be followed for before it counts (6 ≈ 64 ms at 48 kHz): half
    /// again the frames a note's onset takes to slide into the window (frameSize / hopSize = 4),
    /// which looks like steady growth too, then stops.
    public var growthFrames = 6
    /// Growth at least this steep (dB per frame; 0.8 ≈ 75 dB/s) counts after `growthFrames`;
    /// slower growth, down to `minimumSlopeDB` (0.2 ≈ 19 dB/s), must last twice as long
    /// (128 ms: longer than the rising half of a tremolo or a swell).
    public var fastSlopeDB: Float = 0.8
    public var minimumSlopeDB: Float = 0.2
    /// Creeping growth, as a loop a hair over unity makes: at least `minimumCreepSlopeDB`
    /// per frame (0.03 ≈ 3 dB/s) over `creepFrames` (48 ≈ 0.5 s), at a frequency as
    /// still as a held howl's (`saturatedFrequencyDeviationBins`): a sung swell wavers.
    public var creepFrames = 48
    public var minimumCreepSlopeDB: Float = 0.03
    /// How far (RMS, in bins) a growing peak's frequency may wander: a howl sits at the loop's
    /// phase crossing, a voice's pitch glides (0.1 bin = 2.3 Hz at 48 kHz).
    public var growingFrequencyDeviationBins: Float = 0.1
    /// How far the levels may stray from a straight line, RMS dB.
    public var maximumSlopeDeviationDB: Float = 1.5
    /// A peak at least this loud (dB) … (a howl the limiter holds is at least as loud at the guard
    /// as the limiter's −1 dBFS ceiling: the loop's gain from the guard round to it is ≥ 1, and
    /// the master volume after the guard only lowers the ceiling's share; so a quieter still tone,
    /// a test tone at −20 dB say, is programme)
    public var saturatedLevelDB: Float = -6
    /// … held this many frames (16 ≈ 171 ms) …
    public var saturatedFrames = 16
    /// … within this many bins of its mean frequency (a howl's frequency is still; a voice's wavers) …
    public var saturatedFrequencyDeviationBins: Float = 0.05
    /// … and within this many dB of its mean level is a howl that has stopped growing.
    public var saturatedLevelDeviationDB: Float = 1.5
    /// Peaks followed per frame, the loudest first.
    public var candidatesPerFrame = 6

    public init() {}
}
