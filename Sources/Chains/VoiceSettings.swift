import DSP
import Engine

/// The tone, reverb and volume of the instruments' chain (`busker play`,
/// `busker render`), with the ranges of the apps people know: bass and treble ±12 dB,
/// boost ±24 dB, reverb 0–100 %, volume 0–1 (starting quiet at 0.3).
public struct VoiceSettings: Sendable, Equatable {
    public static let bassRange: ClosedRange<Float> = -12...12
    public static let trebleRange: ClosedRange<Float> = -12...12
    public static let boostRange: ClosedRange<Float> = -24...24
    public static let reverbRange: ClosedRange<Float> = 0...100
    public static let volumeRange: ClosedRange<Float> = 0...1
    public static let highPassRange: ClosedRange<Float> = 20...500
    public static let gateThresholdRange: ClosedRange<Float> = NoiseGateNode.thresholdRange
    public static let compressorMakeupRange: ClosedRange<Float> = CompressorNode.makeupRange

    /// Low shelf at 150 Hz, in dB.
    public var bassDB: Float = 0
    /// High shelf at 6 kHz, in dB.
    public var trebleDB: Float = 0
    /// Plain gain before the reverb, in dB.
    public var boostDB: Float = 0
    /// Reverb wet amount, 0–100 %.
    public var reverbPercent: Float = 0
    public var room: RoomPreset = .medium
    /// Master volume, linear 0–1. Starts quiet: ears first.
    public var volume: Float = 0.3
    /// High-pass corner against rumble and pops, in Hz.
    public var highPassHz: Float = 80
    /// The noise gate (off by default: it changes the sound of music).
    public var noiseGate = false
    /// Where the noise gate opens, in dBFS (peak).
    public var gateThresholdDB: Float = -50
    /// The compressor (off by default).
    public var compressor = false
    /// The compressor's make-up gain, in dB: how much louder (or softer) the evened-out voice comes out.
    public var compressorMakeupDB: Float = 6
    /// Spectral noise suppression and automatic gain control (off by default:
    /// it changes the sound and adds 10.7 ms at 48 kHz).
    public var voiceProcessing = false
    /// Feedback protection: notch out howling as it starts (see `HowlGuardNode`).
    public var howlGuard: Bool = true

    public init() {}

    /// Throws a one-line error for the first value outside its range.
    public func validate() throws(ParameterError) {
        let checks: [(String, Float, ClosedRange<Float>, String)] = [
            ("bass", bassDB, Self.bassRange, "dB"),
            ("treble", trebleDB, Self.trebleRange, "dB"),
            ("boost", boostDB, Self.boostRange, "dB"),
            ("reverb", reverbPercent, Self.reverbRange, "%"),
            ("volume", volume, Self.volumeRange, ""),
            ("high-pass", highPassHz, Self.highPassRange, "Hz"),
            ("gate-threshold", gateThresholdDB, Self.gateThresholdRange, "dB"),
            ("makeup", compressorMakeupDB, Self.compressorMakeupRange, "dB"),
        ]
        for (name, value, range, unit) in checks where !(range.contains(value)) {
            throw .outOfRange(name: name, value: value, range: range, unit: unit)
        }
    }
}
