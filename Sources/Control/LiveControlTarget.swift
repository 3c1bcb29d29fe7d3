import Chains

/// What the live controls move: the running session's settings and its mic
/// switch. The session that runs the chain implements it (`LiveSession`);
/// `LiveController` calls it on the control thread.
public protocol LiveControlTarget: AnyObject {
    /// What every control is set to now.
    var settings: LiveSettings { get }
    /// The big switch: off mutes every strip.
    var micOn: Bool { get }
    /// Sets every control from `settings` (they ramp).
    /// - Returns: false, changing nothing, when its strips differ from the
    ///   running chain's or a value is out of range.
    @discardableResult func apply(_ settings: LiveSettings) -> Bool
    /// Turns the mic on or off (every strip ramps in or out).
    func setMic(on: Bool)
}
