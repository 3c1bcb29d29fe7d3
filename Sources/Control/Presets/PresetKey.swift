import Chains
import Foundation
import DSP
import Engine

/// One key a preset section knows: its name (the command line's spelling),
/// how its value is written, and how a written value is read back and checked.
/// The tables for `[bus]`, `[strip N]` and `[part NAME]` are `PresetKey.bus`,
/// `PresetKey.strip` and `PresetKey.part`.
struct PresetKey<Settings>: Sendable {
    let name: String
    let write: @Sendable (Settings) -> String
    /// Sets the value, or returns what is wrong with it ("is outside −12…12 dB").
    let read: @Sendable (inout Settings, String) -> String?

    /// A number within `range`, written in its shortest exact decimal form
    /// (so a saved file reads back bit for bit), read as the command line reads it.
    static func number(_ name: String, _ keyPath: WritableKeyPath<Settings, Float> & Sendable, _ range: ClosedRange<Float>,
                       _ unit: String) -> PresetKey {
        PresetKey(name: name, write: { PresetKey.format($0[keyPath: keyPath]) }, read: { settings, text in
            let cleaned = text.hasPrefix("+") ? String(text.dropFirst()) : text
            guard let value = Float(cleaned), value.isFinite, !cleaned.lowercased().contains("x") else {
                return "is not a number"
            }
            guard range.contains(value) else {
                return "is outside \(PresetKey.format(range.lowerBound, minus: "−"))…\(PresetKey.format(range.upperBound, minus: "−"))"
                    + (unit.isEmpty ? "" : " \(unit)")
            }
            settings[keyPath: keyPath] = value
            return nil
        })
    }

    /// A switch, `on` or `off`.
    static func onOff(_ name: String, _ keyPath: WritableKeyPath<Settings, Bool> & Sendable) -> PresetKey {
        PresetKey(name: name, write: { $0[keyPath: keyPath] ? "on" : "off" }, read: { settings, text in
            switch text.lowercased() {
            case "on": settings[keyPath: keyPath] = true
            case "off": settings[keyPath: keyPath] = false
            default: return "must be on or off"
            }
            return nil
        })
    }

    /// A whole number as itself, any other as its shortest exact decimal ("0.35").
    static func format(_ x: Float, minus: String = "-") -> String {
        let text = x == x.rounded() && abs(x) < 1e9 ? String(Int(x)) : "\(x)"
        return text.hasPrefix("-") ? minus + text.dropFirst() : text
    }
}

extension PresetKey where Settings == LiveSettings {
    /// `[bus]`: what every strip feeds.
    static let bus: [PresetKey] = [
        .number("volume", \.volume, VoiceSettings.volumeRange, ""),
        PresetKey(name: "room", write: { $0.room.rawValue }, read: { settings, text in
            guard let room = RoomPreset(rawValue: text.lowercased()) else {
                return "must be one of " + RoomPreset.allCases.map(\.rawValue).joined(separator: ", ")
            }
            settings.room = room
            return nil
        }),
        .onOff("howl-guard", \.howlGuard),
    ]
}

extension PresetKey where Settings == StripSettings {
    /// `[strip N]`: `inputs`, then every `StripSettings.Key`, spelled and
    /// checked as `--strip N:key=value` does.
    static let strip: [PresetKey] = [inputs] + StripSettings.Key.allCases.map { key in
        PresetKey(name: key.rawValue, write: { key.value(in: $0).text }, read: { settings, text in
            guard let value = try? key.parse(text) else { return key.isFlag ? "must be on or off" : "is not a number" }
            var changed = settings
            key.set(value, in: &changed)
            do {
                try changed.validate()
            } catch {
                guard case let .outOfRange(_, _, range, unit)? = error as? ParameterError else { return "is out of range" }
                return "is outside \(format(range.lowerBound, minus: "−"))…\(format(range.upperBound, minus: "−"))"
                    + (unit.isEmpty ? "" : " \(unit)")
            }
            settings = changed
            return nil
        })
    }

    /// `inputs = 1` or `1+2`: the capture channels the strip sums, from 1.
    private static let inputs = PresetKey(name: "inputs", write: { $0.channels.map(String.init).joined(separator: "+") },
                                          read: { settings, text in
        let parts = text.split(separator: "+", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        var channels: [Int] = []
        for part in parts {
            guard let channel = Int(part), (1...LiveSettings.maximumChannel).contains(channel) else {
                return "must be capture channels 1…\(LiveSettings.maximumChannel), as in 1 or 1+2"
            }
            guard !channels.contains(channel) else { return "names channel \(channel) twice" }
            channels.append(channel)
        }
        settings.channels = channels
        return nil
    })
}

extension PresetKey where Settings == PartSettings {
    /// `[part NAME]`: a stage part's strip, spelled as `--part NAME:key=value` is.
    static let part: [PresetKey] = [
        .number("level", \.levelDB, PartSettings.levelRange, "dB"),
        .number("pan", \.pan, PartSettings.panRange, ""),
        .onOff("mute", \.mute),
        .onOff("solo", \.solo),
        .number("reverb", \.reverbSendPercent, PartSettings.sendRange, "%"),
    ]
}
