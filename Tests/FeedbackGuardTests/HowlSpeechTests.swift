import AudioFiles
import Engine
import FeedbackGuard
import Foundation
import XCTest

/// Speech through the howl guard, with no feedback loop: the voice
/// recordings of alsa-utils, loud, must place no notch.
final class HowlSpeechTests: XCTestCase {
    func testTheAlsaVoiceRecordingsPlaceNoNotch() throws {
        let folder = "/usr/share/sounds/alsa"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".wav") }.sorted()
        try XCTSkipIf(files.isEmpty, "no recordings in \(folder) (alsa-utils)")
        for file in files {
            let reader = try SoundFileReader(path: "\(folder)/\(file)")
            let samples = try reader.readAll()
            let channels = reader.channelCount
            let frames = samples.count / channels
            // Mono mix, scaled to a −3 dBFS peak: a loud voice.
            let recorded = (0..<frames).map { i in (0..<channels).reduce(Float(0)) { $0 + samples[i * channels + $1] } / Float(channels) }
            // At the file's own rate and resampled to 44.1 and 96 kHz: the detector's windows and band follow the rate.
            for rate in [reader.sampleRate] + [44_100, 96_000].filter({ $0 != reader.sampleRate }) {
                var mono = try resampled(recorded, from: reader.sampleRate, to: rate)
                let peak = mono.map(abs).max() ?? 0
                if peak > 0 { mono = mono.map { $0 * 0.708 / peak } }
                try check(mono, rate: rate, file: file)
            }
        }
    }

    private func resampled(_ signal: [Float], from: Int, to: Int) throws -> [Float] {
        guard from != to else { return signal }
        let resampler = try Resampler(fromRate: from, toRate: to, channelCount: 1)
        var out: [Float] = []
        try signal.withUnsafeBufferPointer { input throws(AudioFileError) in
            try resampler.process(input.baseAddress!, frames: signal.count, endOfInput: true) { p, n in
                out.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
            }
        }
        return out
    }

    /// Renders `mono` through a guard at `rate`, in blocks of 64, and asserts it placed no notch.
    private func check(_ mono: [Float], rate: Int, file: String) throws {
        let frames = mono.count
        let node = HowlGuardNode()
        node.allocate(spec: ProcessSpec(sampleRate: Double(rate), maximumBlockSize: 64), inputChannelCounts: [1], outputChannelCount: 1)
        node.reset()
        let input = AudioBuffer(channelCount: 1, capacity: 64), output = AudioBuffer(channelCount: 1, capacity: 64)
        var blocks = [input.block(frames: 64)]
        var start = 0
        while start < frames {
            let n = min(64, frames - start)
            for i in 0..<n { input[0][i] = mono[start + i] }
            blocks[0] = input.block(frames: n)
            blocks.withUnsafeBufferPointer { node.render(inputs: $0, output: output.block(frames: n)) }
            start += n
        }
        let status = node.status()
        XCTAssertEqual(status.detectionCount, 0, "\(file) at \(rate) Hz: \(status.summary): \(howlDetectionLog(mono, rate: Double(rate)))")
        XCTAssertTrue(status.notches.isEmpty, "\(file) at \(rate) Hz: \(status.summary)")
    }
}
