import AudioFiles
import AudioFileTestSupport
import Engine
import Foundation
import OfflineDrivers
import XCTest

/// A node that multiplies its input by a constant: enough graph to check the driver.
private final class ScaleNode: AudioNode {
    let factor: Float
    init(factor: Float) {
        self.factor = factor
        super.init(name: "scale")
    }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let input = inputs[0]
        for c in 0..<output.channelCount {
            let s = input[min(c, input.channelCount - 1)]
            let d = output[c]
            for i in 0..<output.frameCount { d[i] = s[i] * factor }
        }
    }
}

/// `FileRenderDriver`: a file in, a file out, every frame kept, rendered on
/// `audio-render`, the input resampled to the engine rate.
final class FileRenderDriverTests: XCTestCase {
    func testFileDriverRendersOnAudioRenderThreadAndKeepsEveryFrame() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inPath = dir.appendingPathComponent("in.wav").path
        let outPath = dir.appendingPathComponent("out.wav").path
        let frames = 48000 + 17
        let samples: [Float] = (0..<frames).map { Float(($0 % 200) - 100) / 400 }
        try writeFile(inPath, samples, rate: 48000, channels: 1)
        var options = FileRenderDriver.Options(inputPath: inPath, outputPath: outPath)
        options.sampleFormat = .f32
        options.blockSize = 333
        let driver = try FileRenderDriver(options: options)
        let report = try driver.run { channels, spec in
            XCTAssertEqual(channels, 1)
            let graph = AudioGraph(inputChannelCount: channels)
            let node = graph.add(ScaleNode(factor: 0.5))
            try graph.connect(graph.input, to: node)
            graph.output = node
            return (try graph.compile(spec: spec), 0)
        }
        XCTAssertEqual(report.renderThreadName, "audio-render")
        let out = try SoundFileReader(path: outPath)
        XCTAssertEqual(out.channelCount, 2)
        let got = try out.readAll()
        // All input frames, then at most the 50 ms of silence that ends the tail.
        XCTAssertGreaterThanOrEqual(got.count / 2, frames)
        XCTAssertLessThanOrEqual(got.count / 2, frames + 2400 + 333)
        for i in 0..<frames {
            XCTAssertEqual(got[2 * i], samples[i] * 0.5)
            XCTAssertEqual(got[2 * i + 1], samples[i] * 0.5)
        }
        XCTAssertTrue(got[(2 * frames)...].allSatisfy { $0 == 0 })
    }

    func testFileDriverResamplesToTheEngineRate() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let inPath = dir.appendingPathComponent("in22.wav").path
        let outPath = dir.appendingPathComponent("out.wav").path
        let samples: [Float] = (0..<22050).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 22050)) }
        try writeFile(inPath, samples, rate: 22050, channels: 1)
        var options = FileRenderDriver.Options(inputPath: inPath, outputPath: outPath)
        options.sampleFormat = .f32
        let report = try FileRenderDriver(options: options).run { channels, spec in
            let graph = AudioGraph(inputChannelCount: channels)
            let node = graph.add(ScaleNode(factor: 1))
            try graph.connect(graph.input, to: node)
            graph.output = node
            return (try graph.compile(spec: spec), 0)
        }
        XCTAssertEqual(report.inputRate, 22050)
        let out = try SoundFileReader(path: outPath)
        XCTAssertEqual(out.sampleRate, 48000)
        let all = try out.readAll()
        XCTAssertGreaterThanOrEqual(all.count / 2, 47990)
        let left = stride(from: 0, to: 2 * 47990, by: 2).map { all[$0] }
        XCTAssertEqual(20 * log10(amplitude(of: 440, in: left[12000..<36000], rate: 48000) / 0.5), 0, accuracy: 0.1)
    }
}
