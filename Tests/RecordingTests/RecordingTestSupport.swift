import AudioFiles
import CSndFile
import Engine
import Foundation
import Recording
import XCTest

/// A fresh folder for one test, removed afterwards.
func makeTemporaryFolder(_ name: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("busker-rec-\(name)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A reproducible stereo signal with every sample different: a sine on the
/// left, a different sine plus a little LCG noise on the right, inside ±0.9.
func knownSignal(frames: Int, channels: Int = 2) -> [Float] {
    var out = [Float](repeating: 0, count: frames * channels)
    var state: UInt32 = 12345
    for i in 0..<frames {
        for c in 0..<channels {
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = Float(state >> 8) / Float(1 << 24) - 0.5
            out[i * channels + c] = 0.7 * sinf(Float(i) * (0.01 + 0.013 * Float(c))) + 0.2 * noise
        }
    }
    return out
}

/// Writes `samples` as a 32-bit float WAV (exact).
func writeFloatWAV(_ samples: [Float], channels: Int, rate: Int = 48000, to path: String) throws {
    let writer = try SoundFileWriter(path: path, sampleRate: rate, channelCount: channels, sampleFormat: .f32)
    try writer.write(interleaved: samples)
    try writer.close()
}

/// What libsndfile reads from `path`: its frame count, channels and samples.
func readSoundFile(_ path: String) throws -> (frames: Int, channels: Int, rate: Int, samples: [Float]) {
    let reader = try SoundFileReader(path: path)
    let samples = try reader.readAll()
    return (Int(reader.frameCount), reader.channelCount, reader.sampleRate, samples)
}

/// A graph of the file driver's input straight into a recording tap, which is the output.
func passThroughPlan(tap: RecordingTap, inputChannels: Int, spec: ProcessSpec) throws -> RenderPlan {
    let graph = AudioGraph(inputChannelCount: inputChannels)
    graph.output = graph.input
    try tap.install(atEndOf: graph)
    return try graph.compile(spec: spec)
}
