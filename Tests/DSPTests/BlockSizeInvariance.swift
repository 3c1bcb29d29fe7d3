import DSP
import Engine
import Foundation
import RenderTestSupport
import XCTest

/// One second of seeded noise at 48 kHz under a slow swell: its level in dB
/// follows a sine from `lowDB` to `lowDB + swellDB`, `cyclesPerSecond` times a
/// second, so a dynamics node crosses its threshold both ways many times.
func swellingNoise(seed: UInt64, lowDB: Double, swellDB: Double, cyclesPerSecond: Double) -> [Float] {
    var noise = SeededUniformNoise(state: seed)
    return (0..<48_000).map { i -> Float in
        let envelope = Float(pow(10, (lowDB + swellDB * (0.5 + 0.5 * sin(2 * .pi * cyclesPerSecond * Double(i) / 48_000))) / 20))
        return envelope * noise.next()
    }
}

/// Renders `signal` through a fresh node from `makeNode` in blocks of 1, 64
/// and 333 frames, and asserts that the three outputs are the same samples.
func assertBlockSizeInvariant(_ makeNode: () -> AudioNode, _ signal: [Float],
                              file: StaticString = #filePath, line: UInt = #line) {
    var outputs: [[Float]] = []
    for block in [1, 64, 333] {
        let harness = BlockRenderHarness(makeNode(), inputChannelCounts: [1])
        outputs.append(harness.run([[signal]], blockSize: block)[0])
    }
    assertSameSamples(outputs[0], outputs[1], "blocks of 1 and 64", file: file, line: line)
    assertSameSamples(outputs[0], outputs[2], "blocks of 1 and 333", file: file, line: line)
}
