import DSP
import Engine

/// One channel strip of `busker live`: the capture channels it reads (summed
/// into one mono signal), its input gain, clean-up, tone, reverb send, pan and
/// mute. Strips feed the stereo bus (see `LiveSettings`).
public struct StripSettings: Sendable, Equatable {
    public static let gainRange: ClosedRange<Float> = -24...24
    public static let panRange: ClosedRange<Float> = -1...1
    public static let reverbSendRange: ClosedRange<Float> = VoiceSettings.reverbRange

    /// The capture channels this strip reads, numbered from 1 as on the
    /// interface's front panel; more than one are summed (`--inputs 1+2`).
    public var channels: [Int] = [1]
    /// Input gain before everything else, in dB.
    public var gainDB: Float = 0
    /// High-pass corner against rumble and pops, in Hz.
    public var highPassHz: Float = 80
    public var noiseGate = false
    public var gateThresholdDB: Float = -50
    public var compressor = false
    public var compressorMakeupDB: Float = 6
    /// Spectral noise suppression and gain control (`VoiceProcessingNode`; adds 10.7 ms at 48 kHz).
    public var voiceProcessing = false
    public var bassDB: Float = 0
    public var trebleDB: Float = 0
    public var boostDB: Float = 0
    /// The strip's send to the bus reverb, 0–100 %.
    public var reverbSendPercent: Float = 0
    /// −1 left, 0 centre, +1 right (constant power).
    public var pan: Float = 0
    public var mute = false

    public init(channels: [Int] = [1]) { self.channels = channels }

    /// What the screen and the help call the strip's source: "in 1", "in 1+2".
    public var sourceLabel: String { "in " + channels.map(String.init).joined(separator: "+") }

    /// Throws a one-line error for the first value outside its range.
    public func validate() throws(ParameterError) {
        let checks: [(String, Float, ClosedRange<Float>, String)] = [
            ("gain", gainDB, Self.gainRange, "dB"),
            ("high-pass", highPassHz, VoiceSettings.highPassRange, "Hz"),
            ("gate-threshold", gateThresholdDB, VoiceSettings.gateThresholdRange, "dB"),
            ("makeup", compressorMakeupDB, VoiceSettings.compressorMakeupRange, "dB"),
            ("bass", bassDB, VoiceSettings.bassRange, "dB"),
            ("treble", trebleDB, VoiceSettings.trebleRange, "dB"),
            ("boost", boostDB, VoiceSettings.boostRange, "dB"),
            ("reverb", reverbSendPercent, Self.reverbSendRange, "%"),
            ("pan", pan, Self.panRange, ""),
        ]
        for (name, value, range, unit) in checks where !(range.contains(value)) {
            throw .outOfRange(name: name, value: value, range: range, unit: unit)
        }
    }
}
