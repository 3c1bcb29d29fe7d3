/// A loaded pad, as the control thread and the TUI see it.
public struct DrumKitPadInfo: Equatable, Sendable {
    /// The pad's own note: activity (`DrumKitNode.activity(note:)`) is reported under it.
    public var note: UInt8
    /// Every note that plays the pad, `note` first.
    public var notes: [UInt8]
    public var name: String
    public var chokeGroup: String?
    public var gainDB: Double
    public var pan: Double
    public var voiceCount: Int
    /// Velocity layers that loaded.
    public var layerCount: Int
    /// Samples that loaded, over all layers.
    public var sampleCount: Int
}
