import Chains
import Foundation

extension LiveControl {
    /// The control and its value in `settings`, for the screen: "volume
    /// 0.42", "strip 2 bass 3.0 dB", "strip 1 muted".
    /// - Realtime: unsafe (makes a String). Control thread.
    public func description(in settings: LiveSettings) -> String {
        if case let .mute(strip) = self, let index = stripIndex(in: settings) {
            return "strip \(strip) \(settings.strips[index].mute ? "muted" : "on")"
        }
        guard let value = value(in: settings) else { return label }
        return "\(label) \(valueText(value))"
    }

    /// A value of this control as the screen shows it: "0.42", "30 %", "3.0 dB".
    /// - Realtime: unsafe (makes a String). Control thread.
    public func valueText(_ value: Float) -> String {
        switch self {
        case .volume, .pan: return String(format: "%.2f", value)
        case .reverb: return "\(Int(value.rounded())) %"
        default: return String(format: "%.1f dB", value)
        }
    }
}
