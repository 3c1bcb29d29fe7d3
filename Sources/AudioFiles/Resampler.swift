import CSndFile
import CSampleRate

/// Streams interleaved Float32 from one sample rate to another with
/// libsamplerate's band-limited sinc converter (Erik de Castro Lopo).
///
/// - Realtime: unsafe (allocates when buffers grow). The file driver's reader
/// thread, and the control thread when it loads drum samples.
public final class Resampler {
    public let channelCount: Int
    public let ratio: Double
    private let state: OpaquePointer
    private var output: [Float] = []

    public init(fromRate: Int, toRate: Int, channelCount: Int) throws(AudioFileError) {
        self.channelCount = channelCount
        ratio = Double(toRate) / Double(fromRate)
        guard src_is_valid_ratio(ratio) != 0 else {
            throw .resampler(reason: "cannot convert \(fromRate) Hz to \(toRate) Hz (ratio out of range)")
        }
        var error: Int32 = 0
        guard let s = src_new(Int32(SRC_SINC_MEDIUM_QUALITY), Int32(channelCount), &error) else {
            throw .resampler(reason: String(cString: src_strerror(error)))
        }
        state = s
    }

    deinit { src_delete(state) }

    /// Forgets the input so far, as after a seek: the next frames convert as
    /// the start of a new stream, with nothing of the old one mixed in.
    /// - Thread: reader, control
    /// - Realtime: safe (clears the converter's state; no allocation)
    public func reset() { src_reset(state) }

    /// Converts `frames` input frames (and flushes when `endOfInput`), calling
    /// `sink` with the converted frames, possibly several times.
    /// - Thread: reader, control
    /// - Realtime: unsafe (allocates when a chunk is larger than any before)
    public func process(_ input: UnsafePointer<Float>, frames: Int, endOfInput: Bool,
                        sink: (UnsafePointer<Float>, Int) throws(AudioFileError) -> Void) throws(AudioFileError) {
        let capacityFrames = Int(Double(max(frames, 1)) * ratio) + 256
        if output.count < capacityFrames * channelCount {
            output = [Float](repeating: 0, count: capacityFrames * channelCount)
        }
        var consumed = 0
        while true {
            var data = SRC_DATA()
            let produced: Int = try output.withUnsafeMutableBufferPointer { (out) throws(AudioFileError) -> Int in
                data.data_in = input + consumed * channelCount
                data.input_frames = Int(frames - consumed)
                data.data_out = out.baseAddress!
                data.output_frames = capacityFrames
                data.end_of_input = endOfInput ? 1 : 0
                data.src_ratio = ratio
                let rc = src_process(state, &data)
                if rc != 0 { throw .resampler(reason: String(cString: src_strerror(rc))) }
                return Int(data.output_frames_gen)
            }
            consumed += Int(data.input_frames_used)
            if produced > 0 {
                try output.withUnsafeBufferPointer { (out) throws(AudioFileError) in try sink(out.baseAddress!, produced) }
            }
            // Done when all input is used and, at the end, the converter is drained.
            if consumed >= frames && (produced == 0 || !endOfInput) { break }
        }
    }
}
