import DSP
import Engine

/// One source of the stage besides the mic, on its own strip of the bus:
/// the keyboard's sampler, the drum kit, the backing song's sampler, an
/// audio backing track. The strip is the part's source, a meter, and a
/// fader, pan, mute, solo and reverb send on the stage bus (`StageBus`).
public final class StagePart {
    /// Its role, as the screen, the stems and presets name it: "keys", "drums", "song", "track".
    public let name: String
    /// Renders the part: stereo, or the sampler's six channels (dry 0–1,
    /// reverb send 2–3, chorus send 4–5) when `hasSends`.
    public let source: AudioNode
    /// Whether the source's channels 2–5 are the MIDI-set sends (CC 91, CC 93).
    public let hasSends: Bool
    /// The strip's level before its fader: what the screen shows and the stem holds.
    public let meter: MeterNode

    /// - Realtime: unsafe (allocates). Control thread.
    public init(name: String, source: AudioNode, hasSends: Bool = false) {
        self.name = name
        self.source = source
        self.hasSends = hasSends
        meter = MeterNode(name: "\(name) meter")
    }
}
