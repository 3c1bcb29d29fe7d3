/// What a node is prepared for: the engine's sample rate and the largest block
/// it will ever be asked to render. Any smaller block size is allowed.
public struct ProcessSpec: Sendable, Equatable, CustomStringConvertible {
    public var sampleRate: Double
    public var maximumBlockSize: Int

    public init(sampleRate: Double, maximumBlockSize: Int) {
        precondition(sampleRate > 0, "sample rate must be positive")
        precondition(maximumBlockSize > 0, "maximum block size must be positive")
        self.sampleRate = sampleRate
        self.maximumBlockSize = maximumBlockSize
    }

    public var description: String { "\(Int(sampleRate)) Hz, up to \(maximumBlockSize) frames" }
}
