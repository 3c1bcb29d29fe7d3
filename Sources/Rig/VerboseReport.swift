import ALSA
import Chains
import Foundation
import JACK
import Session

/// What `-v`/`--verbose` prints: what Busker asked the devices for and what
/// they granted, side by side, and what it loaded, one fact a line.
public enum VerboseReport {
    /// The driver: ALSA's request and grant per stream, or the JACK client's ports and latencies.
    public static func lines(for driver: any AudioDriver) -> [String] {
        if let alsa = driver as? DuplexDriver {
            return lines(for: alsa)
        }
        if let jack = driver as? JACKDriver {
            let format = jack.format
            return [
                "JACK client \(jack.clientName) on server \(jack.serverName): \(format.sampleRate) Hz, \(format.periodFrames) frames a cycle (the server's)",
                "ports: \(jack.portNames.joined(separator: ", "))",
                "server latency: capture \(jack.serverCaptureLatency) frames, playback \(jack.serverPlaybackLatency) frames; Busker's own \(jack.ownLatencyFrames)",
                "connections: \(jack.connectionSummary)",
            ]
        }
        return ["driver: \(driver.summary)"]
    }

    static func lines(for driver: DuplexDriver) -> [String] {
        let asked = driver.options, granted = driver.granted
        var lines = [
            "asked: \(asked.sampleRate) Hz, period \(asked.periodFrames) × \(asked.periodCount), "
                + "formats in order \(asked.formats.map(\.rawValue).joined(separator: ", "))"
                + (asked.allowResampling ? ", ALSA may resample" : ", no resampling"),
        ]
        var streams: [(String, GrantedConfiguration.Stream)] = []
        if let capture = granted.capture { streams.append(("capture", capture)) }
        streams.append(("playback", granted.playback))
        for (side, stream) in streams {
            lines.append("\(side) \(stream.device): \(stream.format.rawValue), \(stream.channels) channel\(stream.channels == 1 ? "" : "s"), "
                         + "period \(stream.periodFrames) × \(stream.periodCount) = \(stream.bufferFrames) frames, "
                         + (stream.interleaved ? "RW_INTERLEAVED" : "RW_NONINTERLEAVED"))
        }
        lines.append("granted: \(granted.sampleRate) Hz\(granted.sampleRate == asked.sampleRate ? "" : " (not the \(asked.sampleRate) Hz asked)"), "
                     + "period \(granted.periodFrames) frames = \(String(format: "%.2f", granted.periodMilliseconds)) ms, "
                     + "\(granted.primedFrames) frames primed, " + (granted.isPlaybackOnly ? "playback only" : granted.linked ? "capture and playback linked" : "not linked"))
        if let realtime = driver.realtime { lines.append("render thread: \(realtime)") }
        return lines
    }

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
