/// Notices devices coming and going for a session, a poll at a time on the
/// control thread (the runner polls it once a second). It only reports; the
/// state machine decides what to do. ALSA's `DeviceWatcher` watches sound
/// cards and, after a loss, whether the chosen PCMs open again.
public protocol DeviceWatching: AnyObject {
    /// The route to try while watching after a loss; nil when not watching.
    var watchedRoute: DeviceRoute? { get set }
    /// What changed since the last poll.
    /// - Thread: control
    /// - Realtime: unsafe (implementations open devices)
    func poll() -> [DeviceChange]
}

/// What a device watcher noticed.
public enum DeviceChange: Hashable, Sendable {
    /// A device appeared: its name (`card 1: USB Audio`).
    case appeared(String)
    case removed(String)
    /// Every end of the watched route opens again (reported once, when it
    /// becomes available after not being so: an edge, not a level).
    case routeAvailable
}
