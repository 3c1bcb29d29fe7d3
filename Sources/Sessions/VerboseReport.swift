import ALSA
import Chains
import Foundation
import Session

/// What `-v`/`--verbose` prints: what Busker asked the devices for and what
/// they granted, side by side, and what it loaded, one fact a line.
/// The driver's facts are its own: `AudioDriver.verboseLines`.
public enum VerboseReport {
    /// The instruments: the SoundFont, its preset, the voices, the kit.
    public static func lines(for rig: InstrumentRig) -> [String] {
        var lines = [
            "SoundFont: \(rig.soundFont)",
            "sampler: \(rig.synth.presetName), \(rig.synth.configuration.polyphony) voices, \(Int(rig.synth.sampleRate)) Hz",
        ]
        if let kit = rig.kit {
            lines.append("drum kit: \(kit.name) from \(kit.manifestPath): \(kit.pads.count) pads, "
                         + "\(kit.sampleMemoryBytes / 1024) KiB of samples, \(kit.problems.count) problem\(kit.problems.count == 1 ? "" : "s")")
        } else {
            lines.append("drum kit: none")
        }
        return lines
    }
}
