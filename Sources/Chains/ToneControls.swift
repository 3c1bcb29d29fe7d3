import DSP
import Engine

/// The tone stage every channel strip and the instrument chain share: a bass
/// shelf at 150 Hz, a treble shelf at 6 kHz and a boost, in that order. The
/// two shelves render as one node, `shelves`, in one pass (the same output as
/// the two in series, faster); the controls set `bass` and `treble`.
///
/// - Realtime: building and `apply` are control-thread work; the nodes render on the audio thread.
public final class ToneControls {
    public static let bassFrequency: Float = 150
    public static let trebleFrequency: Float = 6000

    public let bass: BiquadNode
    public let treble: BiquadNode
    /// Bass then treble, the node in the graph.
    public let shelves: BiquadSeriesNode
    public let boost: GainNode

    /// - Parameter namePrefix: put before the nodes' names ("strip 2 bass"), for diagnostics.
    public init(namePrefix: String = "") {
        bass = BiquadNode(name: namePrefix + "bass", kind: .lowShelf, frequency: Self.bassFrequency)
        treble = BiquadNode(name: namePrefix + "treble", kind: .highShelf, frequency: Self.trebleFrequency)
        shelves = BiquadSeriesNode(name: namePrefix + "bass+treble", first: bass, second: treble)
        boost = GainNode(name: namePrefix + "boost", gainDB: 0, range: VoiceSettings.boostRange)
    }

    /// The nodes in signal order.
    public var nodes: [AudioNode] { [shelves, boost] }

    /// Sets bass, treble and boost in dB; the nodes smooth the change.
    public func apply(bassDB: Float, trebleDB: Float, boostDB: Float) {
        bass.gainDB.value = bassDB
        treble.gainDB.value = trebleDB
        boost.gainDB.value = boostDB
    }
}
