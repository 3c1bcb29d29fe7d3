#if canImport(Glibc)
import Glibc
#endif
import Engine

/// A stereo chorus on a send bus: its output is only the effect (the dry
/// signal goes by the mixer), each side a copy of its input read through a
/// delay line whose length swings slowly around `centreMilliseconds`; the
/// two sides swing a quarter cycle apart, which widens the image. The same
/// shape as FluidSynth's and most synth choruses (a modulated delay of
/// 10–25 ms), with one voice a side.
///
/// Delay lines are allocated in `allocate`; rendering only reads and writes them.
public final class ChorusNode: AudioNode {
    /// The delay around which each side swings, in ms.
    public static let centreMilliseconds: Double = 15
    /// How far it swings either way, in ms.
    public static let depthMilliseconds: Double = 4
    /// Swings a second.
    public static let rateHertz: Double = 0.4

    // MARK: Audio thread only (storage from `allocate`)
    private var lines: UnsafeMutablePointer<Float>?
    private var lineLength = 0
    private var writeIndex = 0
    private var phase = 0.0
    private var phaseStep = 0.0
    private var centreFrames = 0.0
    private var depthFrames = 0.0

    public override init(name: String = "chorus") {
        super.init(name: name)
    }

    deinit { lines?.deallocate() }

    public override func outputChannelCount(inputChannelCounts: [Int]) -> Int { 2 }

    /// - Realtime: unsafe (allocates). Control thread.
    public override func allocate(spec: ProcessSpec, inputChannelCounts: [Int], outputChannelCount: Int) {
        lines?.deallocate()
        centreFrames = Self.centreMilliseconds * spec.sampleRate / 1000
        depthFrames = Self.depthMilliseconds * spec.sampleRate / 1000
        lineLength = Int(centreFrames + depthFrames) + 4
        lines = .allocate(capacity: 2 * lineLength)
        lines?.initialize(repeating: 0, count: 2 * lineLength)
        phaseStep = 2 * Double.pi * Self.rateHertz / spec.sampleRate
        writeIndex = 0
        phase = 0
    }

    // MARK: Audio thread

    /// Empties the delay lines.
    /// - Thread: audio, control
    /// - Realtime: safe
    public override func reset() {
        lines?.update(repeating: 0, count: 2 * lineLength)
        writeIndex = 0
        phase = 0
    }

    /// Writes the input into the lines and reads each side at its swinging delay.
    /// - Thread: audio
    /// - Realtime: safe. Arithmetic on preallocated lines.
    public override func render(inputs: UnsafeBufferPointer<AudioBlock>, output: AudioBlock) {
        let frames = output.frameCount
        guard let lines, let input = inputs.connectedBus0, input.channelCount > 0 else {
            output.clear()
            return
        }
        let inLeft = input.channels[0], inRight = input.channels[min(1, input.channelCount - 1)]
        let outLeft = output.channels[0], outRight = output.channels[min(1, output.channelCount - 1)]
        let lineRight = lines + lineLength
        let length = lineLength
        for n in 0..<frames {
            lines[writeIndex] = inLeft[n]
            lineRight[writeIndex] = inRight[n]
            let delayLeft = centreFrames + depthFrames * sin(phase)
            let delayRight = centreFrames + depthFrames * cos(phase)
            let left = Self.read(lines, length: length, at: writeIndex, delay: delayLeft)
            let right = Self.read(lineRight, length: length, at: writeIndex, delay: delayRight)
            outLeft[n] = left
            outRight[n] = right
            writeIndex = writeIndex + 1 == length ? 0 : writeIndex + 1
            phase += phaseStep
            if phase > 2 * Double.pi { phase -= 2 * Double.pi }
        }
        for c in 2..<max(2, output.channelCount) { output.channels[c].update(from: outLeft, count: frames) }
    }

    /// The line's value `delay` frames before `index`, linearly interpolated.
    /// - Thread: audio
    /// - Realtime: safe
    @inline(__always)
    private static func read(_ line: UnsafeMutablePointer<Float>, length: Int, at index: Int, delay: Double) -> Float {
        let whole = Int(delay)
        let fraction = Float(delay - Double(whole))
        var a = index - whole
        if a < 0 { a += length }
        var b = a - 1
        if b < 0 { b += length }
        return line[a] + (line[b] - line[a]) * fraction
    }
}
