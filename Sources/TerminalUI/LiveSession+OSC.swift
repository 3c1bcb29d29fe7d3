import Control
import Foundation
import Sessions

/// OSC remote control in the live session (`LiveOSCControl`): the control
/// loop has the controller apply what the receive thread decoded, as keys
/// and MIDI are applied, so the ramps and limits are the same.
extension LiveSession {
    /// Has the controller apply every OSC message received since the last
    /// call (`LiveController.pollOSC`). Headless, each action is a line on
    /// standard output.
    /// - Thread: control
    public func pollOSC(headless: Bool) {
        let lines = controller.pollOSC(self)
        if headless {
            for line in lines { print("busker live: OSC: \(line)") }
        }
    }

    /// Loads preset `name`'s strips and bus (`LiveController.loadPreset`).
    /// - Returns: nil when loaded, else why not.
    /// - Thread: control
    public func loadPreset(named name: String) -> String? {
        controller.loadPreset(named: name, into: self)
    }

    /// The screen's OSC line: what OSC did last, else the port it listens on.
    var oscLine: String? {
        guard let osc else { return nil }
        return "OSC: " + (osc.lastAction ?? "on port \(osc.server.port)")
    }

    /// The screen's MIDI line and OSC line on one line (a narrow screen clips
    /// its end): OSC first once it has done something; learn mode's prompt
    /// alone while it waits.
    var remoteControlLine: String? {
        if midi?.learn.isActive == true { return midiLine }
        let lines = osc?.lastAction != nil ? [oscLine, midiLine] : [midiLine, oscLine]
        let shown = lines.compactMap { $0 }
        return shown.isEmpty ? nil : shown.joined(separator: " · ")
    }
}
