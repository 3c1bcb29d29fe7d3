import CEBUR128
#if canImport(Glibc)
import Glibc
#endif

/// EBU R 128 loudness of a stream of interleaved Float frames, measured by
/// libebur128 (ITU-R BS.1770 K-weighting and gating): integrated loudness,
/// loudness range, short-term and momentary loudness, and true peak.
///
/// The channels are weighted as libebur128 maps them by position, which is
/// BS.1770's for the usual layouts: 1 channel is mono (weight 1), 2 are left
/// and right, 5 are L R C Ls Rs, 6 are L R C LFE (not counted) Ls Rs.
///
/// Not for the audio thread: libebur128 keeps the gating blocks of the whole
/// stream in lists that grow (integrated loudness and loudness range), and
/// frees them at the end. One thread at a time owns a meter (a take's writer,
/// the live screen's control thread, `busker analyze`).
public final class LoudnessMeter {
    /// What a meter measures; more costs more (true peak oversamples 4× below 96 kHz).
    public struct Measures: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// Momentary (400 ms) and short-term (3 s) loudness only: constant memory.
        public static let shortTerm = Measures(rawValue: Int32(EBUR128_MODE_S.rawValue))
        /// Integrated loudness (gated, over everything added).
        public static let integrated = Measures(rawValue: Int32(EBUR128_MODE_I.rawValue))
        /// Loudness range (EBU Tech 3342).
        public static let range = Measures(rawValue: Int32(EBUR128_MODE_LRA.rawValue))
        /// True peak (ITU-R BS.1770 annex 2, oversampled) and sample peak.
        public static let truePeak = Measures(rawValue: Int32(EBUR128_MODE_TRUE_PEAK.rawValue))
        /// Everything a finished take or a file is reported with.
        public static let report: Measures = [.integrated, .range, .truePeak]
    }

    public let channelCount: Int
    public let sampleRate: Int
    public let measures: Measures
    private var state: UnsafeMutablePointer<ebur128_state>?
    /// Frames added so far.
    public private(set) var frames = 0

    /// - Throws: `LoudnessError.unsupported` for a channel count or rate libebur128 refuses.
    /// - Realtime: unsafe (allocates). Any thread but the audio thread.
    public init(channelCount: Int, sampleRate: Int, measures: Measures = .report) throws(LoudnessError) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.measures = measures
        guard channelCount > 0, channelCount <= 64, sampleRate >= 16, sampleRate <= 2_822_400,
              let state = ebur128_init(UInt32(channelCount), UInt(sampleRate), measures.rawValue) else {
            throw .unsupported(channels: channelCount, sampleRate: sampleRate)
        }
        self.state = state
    }

    deinit { if state != nil { ebur128_destroy(&state) } }

    /// Measures `frames` interleaved frames (`channelCount` samples each).
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 allocates a gating block every 100 ms)
    public func add(_ interleaved: UnsafePointer<Float>, frames count: Int) {
        guard count > 0, let state else { return }
        _ = ebur128_add_frames_float(state, interleaved, count)
        frames += count
    }

    /// Integrated loudness in LUFS; −∞ while nothing passed the gates (silence, under 400 ms).
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var integratedLUFS: Double { value(ebur128_loudness_global) }

    /// Loudness range in LU (EBU Tech 3342); 0 under 3 s.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var loudnessRangeLU: Double { value(ebur128_loudness_range) }

    /// Loudness of the last 3 s in LUFS; −∞ for silence.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var shortTermLUFS: Double { value(ebur128_loudness_shortterm) }

    /// Loudness of the last 400 ms in LUFS; −∞ for silence.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var momentaryLUFS: Double { value(ebur128_loudness_momentary) }

    /// The highest true peak of any channel so far, in dBTP (0 is full scale); −∞ for silence.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var truePeakDBTP: Double { decibels(ebur128_true_peak) }

    /// The highest sample of any channel so far, in dBFS; −∞ for silence.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var samplePeakDBFS: Double { decibels(ebur128_sample_peak) }

    /// Everything the meter measured, as a take or a file is reported.
    /// - Thread: the meter's owner
    /// - Realtime: unsafe (libebur128 walks, and for the range sorts, its lists)
    public var report: LoudnessReport {
        LoudnessReport(integratedLUFS: integratedLUFS, loudnessRangeLU: loudnessRangeLU, truePeakDBTP: truePeakDBTP,
                       samplePeakDBFS: samplePeakDBFS, seconds: Double(frames) / Double(sampleRate))
    }

    private func value(_ read: (UnsafeMutablePointer<ebur128_state>?, UnsafeMutablePointer<Double>?) -> Int32) -> Double {
        var out = -Double.infinity
        guard read(state, &out) == EBUR128_SUCCESS.rawValue else { return -.infinity }
        return out
    }

    private func decibels(_ read: (UnsafeMutablePointer<ebur128_state>?, UInt32, UnsafeMutablePointer<Double>?) -> Int32) -> Double {
        var peak = 0.0
        for c in 0..<channelCount {
            var out = 0.0
            if read(state, UInt32(c), &out) == EBUR128_SUCCESS.rawValue { peak = max(peak, out) }
        }
        return peak > 0 ? 20 * log10(peak) : -.infinity
    }
}
