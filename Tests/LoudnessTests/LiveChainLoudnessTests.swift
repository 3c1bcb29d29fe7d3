import Chains
import CommandLineInterface
import Engine
import Foundation
import Loudness
import Sessions
import XCTest

/// The live chain's loudness tap hands over exactly what the chain plays:
/// the short-term loudness the control thread measures from it equals a
/// meter fed the chain's output blocks directly.
final class LiveChainLoudnessTests: XCTestCase {
    func testTheShortTermLoudnessIsTheChainsOutputs() throws {
        let chain = try LiveChain(inputChannelCount: 2, settings: try LiveSettings(commandLine: ["--volume", "0.8", "--reverb", "20"]))
        let engine = RenderEngine()
        engine.install(try chain.compile(spec: ProcessSpec(sampleRate: 48000, maximumBlockSize: 256)))
        let live = ShortTermLoudness(tap: chain.loudnessTap)
        let direct = try LoudnessMeter(channelCount: 2, sampleRate: 48000, measures: .shortTerm)
        let signal = sine(frequency: 1000, amplitude: amplitude(dBFS: -12), seconds: 4)
        let input = AudioBuffer(channelCount: 2, capacity: 256), output = AudioBuffer(channelCount: 2, capacity: 256)
        var interleaved = [Float](repeating: 0, count: 512)
        for block in 0..<(signal.count / 512) {
            for i in 0..<256 {
                input[0][i] = signal[(block * 256 + i) * 2]
                input[1][i] = signal[(block * 256 + i) * 2 + 1]
            }
            engine.render(input: input.block(frames: 256), output: output.block(frames: 256))
            for i in 0..<256 { interleaved[2 * i] = output[0][i]; interleaved[2 * i + 1] = output[1][i] }
            direct.add(interleaved, frames: 256)
            if block % 8 == 0 { live.update() }
        }
        live.update()
        engine.releaseAll()
        let lufs = try XCTUnwrap(live.shortTermLUFS)
        print("live chain: short-term \(lufs) LUFS through the tap, \(direct.shortTermLUFS) LUFS measured on its output")
        XCTAssertTrue(lufs.isFinite && lufs < -12, "the chain's volume and limiter took the sine down: \(lufs)")
        XCTAssertEqual(lufs, direct.shortTermLUFS, accuracy: 0.01)
        XCTAssertEqual(chain.loudnessTap.droppedFrames, 0)
    }
}
