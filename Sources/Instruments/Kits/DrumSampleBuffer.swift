import AudioFiles
import Foundation

/// One sample file decoded once, at load, into planar samples at the engine
/// rate, and owned until its kit is freed (on the control thread).
///
/// Mono files stay mono (one channel, played through the pad's pan); stereo
/// files keep both channels; files with more channels are folded to stereo
/// (even channels left, odd channels right, averaged).
///
/// Held as 16-bit values where every decoded value is exactly one (k / 32768:
/// a 16-bit file at the engine rate, unshifted), at half the memory of
/// Float32 and with the same numbers played; as Float32 otherwise (24-bit
/// and float files, anything resampled, shifted or folded).
///
/// - Realtime: unsafe (file I/O, allocates). Loader or control thread.
final class DrumSampleBuffer {
    let path: String
    /// The audio thread's view: Float32 or 16-bit pointers, `right` the same as `left` for a mono sample.
    let view: DrumSample
    let frameCount: Int
    let channelCount: Int
    /// Bytes per value held: 2 (16-bit) or 4 (Float32).
    private let valueSize: Int

    /// Decodes what `reader` reads (any format libsndfile reads; a kit's
    /// sample opened and checked by `KitSampleFile`) and converts it to
    /// `sampleRate` with libsamplerate when it was made at another rate.
    /// `semitones` shifts its pitch (and length) by resampling it as if it
    /// had been made at its rate × 2^(semitones/12).
    init(reading reader: SoundFileReader, sampleRate: Int, semitones: Double = 0) throws(AudioFileError) {
        let path = reader.path
        self.path = path
        let fileChannels = reader.channelCount
        guard reader.frameCount <= Int64(KitSampleFile.maximumValues / fileChannels) else {
            throw .unsupported(path: path, reason: "holds \(reader.frameCount) frames; a kit sample may hold at most \(KitSampleFile.maximumValues / fileChannels)")
        }
        var interleaved = try reader.readAll()
        let sourceRate = semitones == 0 ? reader.sampleRate
            : Int((Double(reader.sampleRate) * pow(2, min(48, max(-48, semitones)) / 12)).rounded())
        if sourceRate != sampleRate && !interleaved.isEmpty {
            interleaved = try Self.resample(interleaved, channels: fileChannels, from: sourceRate, to: sampleRate)
        }
        let frames = interleaved.count / fileChannels
        guard frames > 0 else { throw .unsupported(path: path, reason: "holds no audio (0 frames)") }
        frameCount = frames
        let channels = min(fileChannels, 2)
        channelCount = channels
        // Planar: mono as it is, stereo split, more channels folded (channel c to side c % 2, averaged).
        var planar = [[Float]](repeating: [Float](repeating: 0, count: frames), count: channels)
        if fileChannels <= 2 {
            for frame in 0..<frames {
                for c in 0..<channels { planar[c][frame] = interleaved[frame * fileChannels + c] }
            }
        } else {
            let shares = [Float(1) / Float((fileChannels + 1) / 2), Float(1) / Float(fileChannels / 2)]
            for frame in 0..<frames {
                for c in 0..<fileChannels { planar[c % 2][frame] += interleaved[frame * fileChannels + c] }
                for side in 0..<2 { planar[side][frame] *= shares[side] }
            }
        }
        let sixteenBit = planar.allSatisfy { $0.allSatisfy(Self.isSixteenBitValue) }
        valueSize = sixteenBit ? 2 : 4
        if sixteenBit {
            let sides = planar.map { side -> UnsafePointer<Int16> in
                let values = UnsafeMutablePointer<Int16>.allocate(capacity: frames)
                for frame in 0..<frames { (values + frame).initialize(to: Int16(side[frame] * 32768)) }
                return UnsafePointer(values)
            }
            view = DrumSample(left16: sides[0], right16: sides[channels - 1], frameCount: frames)
        } else {
            let sides = planar.map { side -> UnsafePointer<Float> in
                let values = UnsafeMutablePointer<Float>.allocate(capacity: frames)
                values.initialize(from: side, count: frames)
                return UnsafePointer(values)
            }
            view = DrumSample(left: sides[0], right: sides[channels - 1], frameCount: frames)
        }
    }

    deinit {
        if let left = view.left16, let right = view.right16 {
            if right != left { UnsafeMutablePointer(mutating: right).deallocate() }
            UnsafeMutablePointer(mutating: left).deallocate()
        }
        if let left = view.left, let right = view.right {
            if right != left { UnsafeMutablePointer(mutating: right).deallocate() }
            UnsafeMutablePointer(mutating: left).deallocate()
        }
    }

    /// Whether `value` is exactly k / 32768 for a 16-bit k.
    private static func isSixteenBitValue(_ value: Float) -> Bool {
        let scaled = value * 32768
        return scaled == scaled.rounded() && scaled >= -32768 && scaled <= 32767
    }

    /// Bytes of sample memory held.
    var byteCount: Int { frameCount * channelCount * valueSize }

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
