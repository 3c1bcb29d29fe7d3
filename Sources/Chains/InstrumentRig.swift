import Foundation
import Instruments
import Sequencing

/// The instruments as `busker play` and `busker render` build them: the
/// parts (scheduler, sampler, kit) behind the instrument chain (mixer, EQ,
/// reverb, limiter). The song's CC 91 and CC 93 feed, channel by channel, a
/// send reverb (the `--room` room) and a chorus (`InstrumentChain`).
public final class InstrumentRig {
    public typealias Options = InstrumentParts.Options

    public let parts: InstrumentParts
    public let chain: InstrumentChain

    /// Loads the parts and builds the graph.
    /// - Throws: `ChainError.soundFont` or `.kit` with the one-line reason;
    ///   what building the instrument chain throws.
    /// - Thread: control
    /// - Realtime: unsafe (reads files, allocates)
    public init(options: Options, ports: [MIDIInputPort], player: MIDIFilePlayer?, sampleRate: Double,
                settings: VoiceSettings, limiterLookaheadMilliseconds: Float) throws {
        parts = try InstrumentParts(options: options, ports: ports, player: player, sampleRate: sampleRate)
        chain = try InstrumentChain(sources: [parts.sampler] + (parts.drums.map { [$0] } ?? []), settings: settings,
                                    limiterLookaheadMilliseconds: limiterLookaheadMilliseconds, sendSource: parts.sampler)
    }

    public var scheduler: MIDIScheduler { parts.scheduler }
    public var sampler: SamplerNode { parts.sampler }
    public var synth: SamplerSynth { parts.synth }
    public var soundFont: SoundFontLocator.Location { parts.soundFont }
    public var drums: DrumKitNode? { parts.drums }
    public var kit: DrumKit? { parts.kit }
    public var drumSource: DrumSource? { parts.drumSource }
    public var soundFontDrumNotes: MIDINoteSet { parts.soundFontDrumNotes }
    public var soundFontSilence: SoundFontSilence { parts.soundFontSilence }
    public var warnings: [String] { parts.warnings }
    public var summary: String { parts.summary }
    public func summary(instrument: String?) -> String { parts.summary(instrument: instrument) }
    public var drumText: String? { parts.drumText }
    public func drumOrigin(note: UInt8) -> String? { parts.drumOrigin(note: note) }
    public var memorySummary: String { parts.memorySummary }
    public static func describe(_ silence: SoundFontSilence) -> String { InstrumentParts.describe(silence) }

    /// Frees what the audio thread has retired. Control loop.
    public func collectRetired() { parts.collectRetired() }
}
