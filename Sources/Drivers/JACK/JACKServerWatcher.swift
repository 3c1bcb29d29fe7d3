import CJACK
import Session

/// Watches for a JACK server after a loss, for `--reconnect`: while the
/// session waits (`watchedRoute` set), each poll tries to open a client on
/// the server (never starting one) and closes it at once; the first time it
/// opens, the route is available.
public final class JACKServerWatcher: DeviceWatching {
    /// The server to watch for; nil: `$JACK_DEFAULT_SERVER`, else `default`.
    public let serverName: String?
    public var watchedRoute: DeviceRoute? {
        didSet { wasAvailable = false }
    }
    private var wasAvailable = false

    public init(serverName: String?) {
        self.serverName = serverName
    }

    /// `.routeAvailable` once the server answers again; nothing while it does not or when not watching.
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server)
    public func poll() -> [DeviceChange] {
        guard watchedRoute != nil else { return [] }
        let running = Self.serverRunning(serverName)
        defer { wasAvailable = running }
        return running && !wasAvailable ? [.routeAvailable] : []
    }

    /// Whether a server of that name answers (a client opens, and is closed at once).
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server)
    public static func serverRunning(_ serverName: String?) -> Bool {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        var status = jack_status_t(rawValue: 0)
        let client = serverName.withOptionalCString { busker_jack_client_open("busker-watch", JackNoStartServer, &status, $0) }
        guard let client else { return false }
        jack_client_close(client)
        return true
    }

    /// The ports of a running server (`jack_lsp`'s list), or nil when none runs.
    /// - Thread: control
    /// - Realtime: unsafe (connects to the server)
    public static func serverPorts(_ serverName: String?) -> [String]? {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
        var status = jack_status_t(rawValue: 0)
        let client = serverName.withOptionalCString { busker_jack_client_open("busker-devices", JackNoStartServer, &status, $0) }
        guard let client else { return nil }
        defer { jack_client_close(client) }
        return JACKDriver.strings(jack_get_ports(client, nil, nil, 0))
    }
}
