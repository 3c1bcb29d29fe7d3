import Foundation
import Session

/// What a session asks of the ALSA driver beyond the stream.
extension DuplexDriver {
    /// The same PCMs opened again with the same options. Reads only what
    /// this driver was opened with: safe while its close runs elsewhere.
    /// - Throws: `ALSAError` (a PCM missing, busy or refusing the format).
    /// - Thread: control
    /// - Realtime: unsafe (opens devices)
    public func reopen() throws -> any AudioDriver {
        try DuplexDriver(options: options)
    }

    /// The sound cards, and after a loss whether the chosen PCMs open again.
    public func makeDeviceWatcher() -> (any DeviceWatching)? {
        DeviceWatcher(configuration: options.configuration, calls: options.calls)
    }

    /// A period read (duplex), rendered and written since the last start.
    public var completedPeriodSinceStart: Bool { framesProcessed > 0 }

    /// What the devices granted, without the clock correction's state.
    public var grantedSummary: String { granted.description }

    /// What was asked and what each stream granted, side by side.
    public var verboseLines: [String] {
        let asked = options, granted = granted
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
        if let realtime { lines.append("render thread: \(realtime)") }
        return lines
    }
}
