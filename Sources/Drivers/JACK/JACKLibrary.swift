import CJACK

/// Facts about the JACK library Busker is linked against (libjack from
/// jackd2, or PipeWire's libjack when run under `pw-jack`).
public enum JACKLibrary {
    /// The library's own version string, as `jack_get_version_string` gives it.
    /// - Thread: any
    /// - Realtime: unsafe (makes a String)
    public static var version: String {
        guard let text = jack_get_version_string() else { return "unknown" }
        return String(cString: text)
    }
}
