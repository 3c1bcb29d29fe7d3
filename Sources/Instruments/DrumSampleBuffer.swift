import Foundation
import FileIO

/// One sample file decoded once, at load, into planar Float32 at the engine
/// rate, and owned until its kit is freed (on the control thread).
///
/// Mono files stay mono (one channel, played through the pad's pan); stereo
/// files keep both channels; files with more channels are folded to stereo
/// (even channels left, odd channels right, averaged).
///
/// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
final class DrumSampleBuffer {
    let path: String
    let left: UnsafeMutablePointer<Float>
    /// `left` itself for a mono sample.
    let right: UnsafeMutablePointer<Float>
    let frameCount: Int
    let channelCount: Int

    /// Decodes `path` (any format libsndfile reads) and converts it to
    /// `sampleRate` with libsamplerate when it was made at another rate.
    /// `semitones` shifts its pitch (and length) by resampling it as if it
    /// had been made at its rate × 2^(semitones/12).
    init(path: String, sampleRate: Int, semitones: Double = 0) throws(AudioFileError) {
        self.path = path
        let reader = try SoundFileReader(path: path)
        let fileChannels = reader.channelCount
        var interleaved = try reader.readAll()
        let sourceRate = semitones == 0 ? reader.sampleRate
            : Int((Double(reader.sampleRate) * pow(2, min(48, max(-48, semitones)) / 12)).rounded())
        if sourceRate != sampleRate && !interleaved.isEmpty {
            interleaved = try Self.resample(interleaved, channels: fileChannels, from: sourceRate, to: sampleRate)
        }
        let frames = interleaved.count / fileChannels
        guard frames > 0 else { throw .unsupported(path: path, reason: "holds no audio (0 frames)") }
        frameCount = frames
        channelCount = min(fileChannels, 2)
        left = .allocate(capacity: frames)
        right = channelCount == 2 ? .allocate(capacity: frames) : left
        if fileChannels == 1 {
            left.initialize(from: interleaved, count: frames)
            return
        }
        // Fold: channel c goes to side c % 2, averaged over the channels on that side.
        let leftShare = Float(1) / Float((fileChannels + 1) / 2)
        let rightShare = Float(1) / Float(fileChannels / 2)
        for frame in 0..<frames {
            var l: Float = 0, r: Float = 0
            for c in 0..<fileChannels {
                if c % 2 == 0 { l += interleaved[frame * fileChannels + c] } else { r += interleaved[frame * fileChannels + c] }
            }
            (left + frame).initialize(to: l * leftShare)
            (right + frame).initialize(to: r * rightShare)
        }
    }

    deinit {
        if right != left { right.deallocate() }
        left.deallocate()
    }

    /// The audio thread's view of this buffer.
    var view: DrumSample { DrumSample(left: left, right: right, frameCount: frameCount) }

    /// Bytes of sample memory held.
    var byteCount: Int { frameCount * channelCount * MemoryLayout<Float>.size }

    private static func resample(_ input: [Float], channels: Int, from fromRate: Int, to toRate: Int) throws(AudioFileError) -> [Float] {
        let resampler = try Resampler(fromRate: fromRate, toRate: toRate, channelCount: channels)
        var output: [Float] = []
        output.reserveCapacity(Int(Double(input.count) * Double(toRate) / Double(fromRate)) + 256 * channels)
        try input.withUnsafeBufferPointer { (p) throws(AudioFileError) in
            try resampler.process(p.baseAddress!, frames: input.count / channels, endOfInput: true) { q, n in
                output.append(contentsOf: UnsafeBufferPointer(start: q, count: n * channels))
            }
        }
        return output
    }
}
