import AudioFiles
import Foundation

/// A stereo sound file read whole, and the measures the render comparisons
/// use: energy in tenth-second windows, onsets, differences.
struct StereoRender {
    var left: [Float]
    var right: [Float]
    var sampleRate: Int

    init(path: String) throws {
        let reader = try SoundFileReader(path: path)
        let channels = reader.channelCount
        var interleaved = [Float](repeating: 0, count: Int(reader.frameCount) * channels)
        let n = try interleaved.withUnsafeMutableBufferPointer { (b) throws(AudioFileError) in
            try reader.read(into: b.baseAddress!, frames: Int(reader.frameCount))
        }
        left = stride(from: 0, to: n * channels, by: channels).map { interleaved[$0] }
        right = stride(from: min(1, channels - 1), to: n * channels, by: channels).map { interleaved[$0] }
        sampleRate = reader.sampleRate
    }

    init(left: [Float], right: [Float], sampleRate: Int) {
        self.left = left
        self.right = right
        self.sampleRate = sampleRate
    }

    var frameCount: Int { left.count }

    /// This render minus `other`, frame by frame (the shorter length).
    func subtracting(_ other: StereoRender) -> StereoRender {
        let n = min(frameCount, other.frameCount)
        return StereoRender(left: (0..<n).map { left[$0] - other.left[$0] }, right: (0..<n).map { right[$0] - other.right[$0] },
                            sampleRate: sampleRate)
    }

    /// RMS of both channels over `seconds` (clipped to the file), in dBFS; −200 for silence.
    func levelDB(_ seconds: ClosedRange<Double>) -> Double {
        let from = min(frameCount, Int(seconds.lowerBound * Double(sampleRate)))
        let to = min(frameCount, Int(seconds.upperBound * Double(sampleRate)))
        guard to > from else { return -200 }
        var sum = 0.0
        for i in from..<to { sum += Double(left[i] * left[i] + right[i] * right[i]) }
        let rms = (sum / Double(2 * (to - from))).squareRoot()
        return rms > 0 ? max(-200, 20 * log10(rms)) : -200
    }

    /// The level of each tenth of a second, in dBFS (as `levelDB`).
    var tenthSecondLevels: [Double] {
        (0..<(frameCount * 10 / sampleRate)).map { levelDB(Double($0) / 10...Double($0 + 1) / 10) }
    }
}
