import AudioFiles
import Foundation

/// A new empty folder under the system's temporary folder; the caller removes it.
public func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("busker-files-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Writes interleaved `samples` (`channels` per frame) to a sound file at `path`.
public func writeFile(_ path: String, _ samples: [Float], rate: Int, channels: Int, format: SampleFormat = .f32) throws {
    let writer = try SoundFileWriter(path: path, sampleRate: rate, channelCount: channels, sampleFormat: format)
    try samples.withUnsafeBufferPointer { (p) throws(AudioFileError) in try writer.write(p.baseAddress!, frames: samples.count / channels) }
    try writer.close()
}

/// Amplitude of `frequency` in `x` (single-bin DFT over whole periods).
public func amplitude(of frequency: Double, in x: ArraySlice<Float>, rate: Double) -> Double {
    var re = 0.0, im = 0.0
    for (n, v) in x.enumerated() {
        let phase = 2 * Double.pi * frequency * Double(n) / rate
        re += Double(v) * cos(phase)
        im -= Double(v) * sin(phase)
    }
    return 2 * (re * re + im * im).squareRoot() / Double(x.count)
}
