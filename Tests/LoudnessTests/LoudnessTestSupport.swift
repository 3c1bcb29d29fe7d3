import Engine
import Foundation

/// A sine, interleaved, the same on every channel: `amplitude` peak (1 is full
/// scale), `frequency` Hz, starting at `phase` radians.
func sine(frequency: Double, amplitude: Double, seconds: Double, rate: Int = 48000, channels: Int = 2, phase: Double = 0) -> [Float] {
    let frames = Int((seconds * Double(rate)).rounded())
    var out = [Float](repeating: 0, count: frames * channels)
    for i in 0..<frames {
        let x = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / Double(rate) + phase))
        for c in 0..<channels { out[i * channels + c] = x }
    }
    return out
}

/// A peak amplitude from dBFS.
func amplitude(dBFS: Double) -> Double { pow(10, dBFS / 20) }

/// A stereo sine source for a graph: phase kept in Double, so hours of it stay in tune.
final class SineSourceNode: AudioNode {
    let frequency: Double
    let amplitude: Float
    private var phase = 0.0
    private var step = 0.0

    init(frequency: Double, amplitude: Double) {
        self.frequency = frequency
        self.amplitude = Float(amplitude)
        super.init(name: "sine")
    }

    override var inputBusCount: Int { 0 }
    override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }
    override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        step = 2 * Double.pi * frequency / spec.sampleRate
    }
    override func reset() { phase = 0 }
    override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        for i in 0..<output.frameCount {
            let x = amplitude * Float(sin(phase))
            for c in 0..<output.channelCount { output.channels[c][i] = x }
            phase += step
            if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
        }
    }
}
