/// What a device granted, as far as the render graph cares: a graph is
/// compiled for one rate, block size and channel layout, so a change in any
/// of them means rebuilding it.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    public var sampleRate: Int
    public var periodFrames: Int
    /// 0 when nothing is captured.
    public var inputChannels: Int
    public var outputChannels: Int

    public init(sampleRate: Int, periodFrames: Int, inputChannels: Int, outputChannels: Int) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
    }

    public var description: String {
        "\(sampleRate) Hz, period \(periodFrames), \(inputChannels) in / \(outputChannels) out"
    }
}
